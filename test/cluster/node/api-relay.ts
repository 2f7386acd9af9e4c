/**
 * A TCP relay from the host's address on the node link to the apiserver on loopback: the apiserver
 * binds only 127.0.0.1, and the node namespace (kube-proxy, pods through the `kubernetes` Service)
 * cannot reach the host's loopback. TLS passes through untouched; the serving certificate names the
 * relay's address too.
 */
import { connect, createServer } from 'node:net';
import type { Server, Socket } from 'node:net';

export interface ApiRelay {
  /** The port it listens on (the one asked for, or the one the system chose for port 0). */
  port: number;
  close(): Promise<void>;
}

export interface RelayOptions {
  /** A connection from an address for which this says true is reset at once (tests cut a client off this way). */
  refuse?: (remoteAddress: string) => boolean;
}

/** Also relays to any other TCP server (tests put one in front of a devnet server). */
export async function startApiRelay(listen: { host: string; port: number }, target: { host: string; port: number }, options: RelayOptions = {}): Promise<ApiRelay> {
  const sockets = new Set<Socket>();
  const server: Server = createServer((client) => {
    if (options.refuse?.(client.remoteAddress ?? '')) {
      client.resetAndDestroy();
      return;
    }
    const upstream = connect(target.port, target.host);
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.on('close', () => sockets.delete(socket));
      socket.unref();
      // Either side failing ends both; the client sees a reset and retries, as against a restarting apiserver.
      socket.on('error', () => { client.destroy(); upstream.destroy(); });
    }
    client.pipe(upstream).pipe(client);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(listen.port, listen.host, () => resolve());
  });
  // Long-lived watches through the relay must not keep a finished test process alive.
  server.unref();
  return {
    port: (server.address() as { port: number }).port,
    close: () => new Promise((resolve) => {
      for (const socket of sockets) socket.destroy();
      server.close(() => resolve());
    }),
  };
}
