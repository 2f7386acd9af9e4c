import { startEncoderDaemon } from '../../src/main/warm-encoder.ts';
import { askEncoder, encoderStatus, stopEncoder } from '../../src/walrus-protocol/encoder-daemon-client.ts';

/** A warm encoder started on `socket` and built for `numShards`, as a helper with walrus.warmEncoder finds it. */
export async function runningWarmEncoder(socket: string, numShards: number): Promise<{ rssMb(): Promise<number>; stop(): Promise<void> }> {
  startEncoderDaemon(socket);
  for (let i = 0; i < 200 && (await encoderStatus(socket)) === null; i++) await new Promise((resolve) => setTimeout(resolve, 50));
  if ((await askEncoder(socket, { op: 'warm', numShards })) === null) throw new Error(`the warm encoder did not start on ${socket}`);
  return {
    rssMb: async () => ((await encoderStatus(socket))?.rssBytes ?? NaN) / 2 ** 20,
    stop: async () => { await stopEncoder(socket); },
  };
}
