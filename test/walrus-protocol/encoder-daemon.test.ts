import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { BlobEncoder } from '@mysten/walrus-wasm';
import { blobIdFromInt } from '@mysten/walrus';
import { bcs } from '@mysten/bcs';
import { chmodSync, existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { createConnection } from 'node:net';
import { dirname, join } from 'node:path';
import { computeBlobId, useWarmEncoder } from '../../src/walrus-protocol/blob-id.ts';
import { runEncoderDaemon } from '../../src/walrus-protocol/encoder-daemon.ts';
import { askEncoder, encoderStatus, stopEncoder, WarmEncoder } from '../../src/walrus-protocol/encoder-daemon-client.ts';
import { frame, FrameReader, MAX_DAEMON_BLOB, type EncoderReply, type EncoderRequest } from '../../src/walrus-protocol/encoder-frames.ts';
import { encoderSocket, startEncoderDaemon } from '../../src/main/warm-encoder.ts';
import { UsageError } from '../../src/core/errors.ts';
import { tempDir } from '../../scripts/harness/git-env.ts';

const expectedId = (bytes: Uint8Array, numShards: number) => {
  const [idBytes] = new BlobEncoder(numShards).compute_metadata(bytes) as [number[]];
  return blobIdFromInt(bcs.u256().parse(Uint8Array.from(idBytes)));
};
const bytesOf = (seed: number, size = 50_000) => new Uint8Array(size).map((_, i) => (i * 31 + seed) % 251);

async function until<T>(what: string, probe: () => Promise<T | null>): Promise<T> {
  for (let i = 0; i < 400; i++) {
    const value = await probe();
    if (value !== null) return value;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`gave up waiting: ${what}`);
}

const daemon = suite('the warm encoder');
const made: { remove(): void }[] = [];
const scratch = () => {
  const dir = tempDir('walrus-warm-');
  made.push(dir);
  return dir.path;
};
daemon.after(() => made.forEach((dir) => dir.remove()));

daemon('the first helper starts it and computes its own id meanwhile; later ids come from the daemon, equal to the encoder\'s', async () => {
  let started = 0;
  // A helper given its key in the environment starts the daemon: the key must not reach it.
  const key = 'suiprivkey1qq-not-a-real-key';
  const encoder = new WarmEncoder({ socket: encoderSocket(scratch()), start: () => {
    started++;
    process.env.GIT_WALRUS_KEY = key;
    try { startEncoderDaemon(encoder.socket); } finally { delete process.env.GIT_WALRUS_KEY; }
  } });
  useWarmEncoder(encoder);
  try {
    assert.is(await encoder.warm(50), false, 'none answers a warm-up');
    assert.is(started, 0, 'a warm-up alone (a push that may send nothing) starts no daemon');
    const first = bytesOf(1);
    assert.is(await computeBlobId(first, 50), expectedId(first, 50));
    assert.is(started, 1, 'no daemon answered: one is started, the id computed here');
    const status = await until('the daemon to answer', () => encoderStatus(encoder.socket));
    assert.is(status.socket, encoder.socket);
    assert.not.match(readFileSync(`/proc/${status.pid}/environ`, 'latin1'), key, 'the daemon holds no key');
    assert.is(statSync(encoder.socket).mode & 0o777, 0o600, 'only its user may open the socket');
    assert.is(statSync(dirname(encoder.socket)).mode & 0o777, 0o700);
    const second = bytesOf(2);
    assert.is(await computeBlobId(second, 50), expectedId(second, 50));
    const doc = new TextEncoder().encode('some other string');
    assert.is(await computeBlobId(doc, 1000), 'M4hsZGQ1oCktdzegB6HnI6Mi28S2nqOPHxK-W7_4BUk', 'the id the Walrus docs show, through the daemon');
    const after = (await encoderStatus(encoder.socket))!;
    assert.is(after.ids, 2, 'both later ids were the daemon\'s');
    assert.equal(after.shards, [50, 1000]);
    assert.is(started, 1, 'started once per process');
    assert.ok(await stopEncoder(encoder.socket));
    await until('the socket to go', async () => (existsSync(encoder.socket) ? null : true));
    assert.is(await encoderStatus(encoder.socket), null);
    const gone = (pid: number) => { try { process.kill(pid, 0); return false; } catch { return true; } };
    await until('the daemon process to exit', async () => (gone(status.pid) ? true : null));
    const third = bytesOf(3);
    assert.is(await computeBlobId(third, 50), expectedId(third, 50), 'with the daemon gone, ids are computed here again');
    assert.is(started, 1);
  } finally {
    useWarmEncoder(null);
    await stopEncoder(encoder.socket);
  }
});

daemon('a second daemon beside a running one leaves at once; a file left where the socket goes is replaced; idle, it exits', async () => {
  const socket = join(scratch(), 'run', 'encoder.sock');
  mkdirSync(dirname(socket), { mode: 0o700 });
  writeFileSync(socket, 'left behind');
  const first = runEncoderDaemon({ socket, idleOutMs: 60_000 });
  await until('the daemon to answer', () => encoderStatus(socket));
  assert.is(await runEncoderDaemon({ socket, idleOutMs: 60_000 }), false, 'another daemon answers there');
  assert.ok(await stopEncoder(socket));
  assert.is(await first, true);
  assert.not.ok(existsSync(socket), 'the daemon removes its socket');
  const idle = runEncoderDaemon({ socket, idleOutMs: 100 });
  assert.is(await idle, true, 'unused, it exits by itself');
  assert.not.ok(existsSync(socket));
});

daemon('refuses a socket directory others may enter, naming it', async () => {
  const dir = join(scratch(), 'open');
  mkdirSync(dir);
  chmodSync(dir, 0o755);
  try {
    await runEncoderDaemon({ socket: join(dir, 'encoder.sock'), idleOutMs: 100 });
    assert.unreachable();
  } catch (error) {
    assert.instance(error, UsageError);
    assert.match((error as Error).message, dir);
    assert.match((error as Error).message, /0700/);
  }
});

daemon('a request that is not its protocol gets an error and the daemon goes on serving', async () => {
  const socket = join(scratch(), 'run', 'encoder.sock');
  const running = runEncoderDaemon({ socket, idleOutMs: 60_000 });
  await until('the daemon to answer', () => encoderStatus(socket));
  try {
    const raw = (bytes: Uint8Array) => new Promise<string>((resolve, reject) => {
      const connection = createConnection(socket, () => connection.write(bytes));
      const reader = new FrameReader<EncoderReply & { op?: string }>();
      connection.on('data', (chunk: Buffer) => {
        const [reply] = reader.push(chunk);
        if (reply) resolve('error' in reply.header ? reply.header.error : JSON.stringify(reply.header));
      });
      connection.on('error', reject);
    });
    const hugeHeader = new Uint8Array([0xff, 0xff, 0xff, 0xff]);
    assert.match(await raw(hugeHeader), /not a warm-encoder request: a header of 4294967295 bytes/);
    const tooLong = Buffer.concat(frame({ op: 'id', numShards: 50, length: MAX_DAEMON_BLOB + 1 }));
    assert.match(await raw(tooLong), /invalid blob length/);
    assert.match(await raw(Buffer.concat(frame({ op: 'id', numShards: 3, length: 1 } as EncoderRequest))), /invalid shard count 3/);
    assert.match(await raw(Buffer.concat(frame({ op: 'format' } as unknown as EncoderRequest))), /unknown request "format"/);
    const ok = await askEncoder(socket, { op: 'id', numShards: 10, length: 3 }, new Uint8Array([1, 2, 3]));
    assert.equal(ok && 'blobId' in ok ? ok.blobId : null, expectedId(new Uint8Array([1, 2, 3]), 10));
  } finally {
    await stopEncoder(socket);
    await running;
  }
});

daemon('a home whose socket path would be too long for a Unix socket gets one under the temporary directory', () => {
  const long = join('/tmp', 'x'.repeat(120));
  const socket = encoderSocket(long);
  assert.ok(Buffer.byteLength(socket) < 108);
  assert.is.not(socket, join(long, 'run', 'encoder.sock'));
  assert.is(encoderSocket('/home/me/.git-walrus'), '/home/me/.git-walrus/run/encoder.sock');
});

daemon.run();

const frames = suite('warm-encoder frames');

frames('a message split anywhere reads back whole; messages back to back read apart', () => {
  const body = bytesOf(9, 1000);
  const bytes = Buffer.concat([...frame({ op: 'id', numShards: 50, length: body.byteLength }, body), ...frame({ op: 'status' })]);
  for (const cut of [1, 3, 4, 7, 50, 1003, bytes.length - 1]) {
    const reader = new FrameReader<EncoderRequest>();
    const messages = [...reader.push(bytes.subarray(0, cut)), ...reader.push(bytes.subarray(cut))];
    assert.is(messages.length, 2, `cut at ${cut}`);
    assert.equal(messages[0]!.header, { op: 'id', numShards: 50, length: 1000 });
    assert.equal(Buffer.from(messages[0]!.body!), Buffer.from(body));
    assert.equal(messages[1]!.header, { op: 'status' });
  }
});

frames.run();
