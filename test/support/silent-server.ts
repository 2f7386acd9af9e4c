/** Network ends that never answer, for the tests of deadlines and retries. */
import { createServer } from 'node:net';
import type { Server, Socket } from 'node:net';

/** A TCP server that takes every connection and never writes a byte. */
export async function silentServer(): Promise<{ port: number; connections: () => number; close(): Promise<void> }> {
  const sockets = new Set<Socket>();
  let accepted = 0;
  const server: Server = createServer((socket) => { accepted++; sockets.add(socket); socket.on('close', () => sockets.delete(socket)); });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const { port } = server.address() as { port: number };
  return {
    port,
    connections: () => accepted,
    close: () => new Promise((done) => { for (const socket of sockets) socket.destroy(); server.close(() => done()); }),
  };
}

/** A port where nothing listens: bound, then released. */
export async function closedPort(): Promise<number> {
  const { port, close } = await silentServer();
  await close();
  return port;
}
