/**
 * A TCP proxy on 127.0.0.1 that puts a network's distance between a client and a local server: every chunk is
 * delivered `oneWayMs` after it was sent, in order, in each direction, and a new connection's first bytes wait one
 * round trip more (the handshake a real connection pays before it can send). Bandwidth is not limited: the figures
 * are about round trips, which is what a remote helper's many small requests pay. (A kernel delay with netem would
 * be truer to TCP's slow start, but this machine's kernel has no netem; the proxy needs nothing.)
 */
import { createServer, connect, type Socket } from 'node:net';

export interface LatencyProxy {
  /** `http://127.0.0.1:<port>`: the server's address as the client should use it. */
  readonly url: string;
  readonly port: number;
  /** Connections opened through the proxy so far (each paid the handshake). */
  readonly connections: number;
  close(): Promise<void>;
}

export interface ProxyTarget { host: string; port: number }

/** `target` may be a function, read at each connection: a server whose port is known only after the proxy's. */
export async function startLatencyProxy(target: ProxyTarget | (() => ProxyTarget), oneWayMs: number): Promise<LatencyProxy> {
  let connections = 0;
  const open = new Set<Socket>();
  const server = createServer((client) => {
    connections++;
    const upstream = connect(typeof target === 'function' ? target() : target);
    for (const socket of [client, upstream]) {
      open.add(socket);
      socket.on('close', () => open.delete(socket));
      socket.on('error', () => { client.destroy(); upstream.destroy(); });
    }
    delayed(client, upstream, oneWayMs, 2 * oneWayMs);
    delayed(upstream, client, oneWayMs, 0);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    get connections() { return connections; },
    close: () => new Promise<void>((resolve) => {
      for (const socket of open) socket.destroy();
      server.close(() => resolve());
    }),
  };
}

/** Copies `from` to `to`, each chunk `delayMs` late (the first `firstExtraMs` more), in order; the end follows the last chunk. */
function delayed(from: Socket, to: Socket, delayMs: number, firstExtraMs: number): void {
  const queue: { due: number; chunk: Buffer | null }[] = [];
  let first = true;
  let timer: NodeJS.Timeout | undefined;
  const flush = () => {
    timer = undefined;
    while (queue.length > 0 && queue[0]!.due <= Date.now()) {
      const { chunk } = queue.shift()!;
      if (to.destroyed) return;
      if (chunk === null) to.end();
      else to.write(chunk);
    }
    if (queue.length > 0) timer = setTimeout(flush, queue[0]!.due - Date.now());
  };
  const push = (chunk: Buffer | null) => {
    queue.push({ due: Date.now() + delayMs + (first ? firstExtraMs : 0), chunk });
    first = false;
    timer ??= setTimeout(flush, queue[0]!.due - Date.now());
  };
  from.on('data', (chunk: Buffer) => push(chunk));
  from.on('end', () => push(null));
}

export interface StorageNodeProxies {
  readonly proxies: LatencyProxy[];
  /** The arguments of `git walrus devnet` that start the nodes with a committee naming the proxies. */
  readonly devnetArgs: string[];
  /** Points each proxy at its node, from what the devnet printed about where they listen. */
  follow(printed: string): void;
}

/**
 * One proxy in front of each of the devnet's `count` storage nodes: the committee names the proxies, so every sliver,
 * confirmation and read pays the distance. The nodes' ports are known only once the devnet runs, hence `follow`.
 */
export async function storageNodeProxies(count: number, oneWayMs: number): Promise<StorageNodeProxies> {
  const listening: string[] = [];
  const proxies: LatencyProxy[] = [];
  for (let index = 0; index < count; index++) {
    proxies.push(await startLatencyProxy(() => {
      const [host, port] = listening[index]!.split(':');
      return { host: host!, port: Number(port) };
    }, oneWayMs));
  }
  return {
    proxies,
    devnetArgs: ['--storage-nodes', String(count), '--storage-node-address', ...proxies.map((proxy) => `127.0.0.1:${proxy.port}`)],
    follow: (printed) => {
      listening.push(...(/^walrus storage nodes listen on: (.+)$/m.exec(printed)?.[1] ?? '').split(', '));
      if (listening.length !== count) throw new Error(`the devnet printed no listening address for its storage nodes:\n${printed}`);
    },
  };
}
