/**
 * Entry of the warm encoder daemon (`node encoder-daemon.ts <socket> <idle-out ms>`), started detached by the first
 * process that needs it (walrus.warmEncoder); docs/architecture.md, The warm encoder.
 */
import { startProcess } from './start.ts';

await startProcess(async () => {
  const { runEncoderDaemon } = await import('../walrus-protocol/encoder-daemon.ts');
  const [socket, idleOutMs] = process.argv.slice(2);
  await runEncoderDaemon({ socket: socket!, idleOutMs: Number(idleOutMs) });
});
