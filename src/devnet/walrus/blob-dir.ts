import { mkdirSync, readFileSync, createReadStream } from 'node:fs';
import { open, readFile, readdir, rename, unlink, stat } from 'node:fs/promises';
import type { FileHandle } from 'node:fs/promises';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { Readable } from 'node:stream';
import { WalrusGitError } from '../../core/errors.ts';
import { withFileLock, writeFileAtomic } from '../../fs/atomic.ts';
import { processExists } from '../../fs/process-alive.ts';
import type { EpochClock } from './epochs.ts';

/**
 * The devnet Walrus state, kept in one directory that several processes may share:
 *
 *   network.json        { numShards, genesisMs, epochDurationMs }: fixed at creation, so every process computes
 *                       the same ids and epochs
 *   incoming/<pid>-<r>  an upload being received (fsynced, never served)
 *   blobs/<blobId>      certified blob bytes, moved in by rename once complete
 *   meta/<blobId>.json  the certification record; a blob is served only when this exists and has not expired
 *   lock                held while a blob is committed or removed
 *
 * The data file is renamed into place before its record is written, so a process killed at any point leaves either
 * no record (nothing served; a later store of the same bytes completes it) or a complete blob.
 */

export interface NetworkParams extends EpochClock {
  numShards: number;
}

export interface BlobRecord {
  blobId: string;
  size: number;
  encodedLength: number;
  certifiedEpoch: number;
  /** Exclusive end epoch: the latest of all stores of these bytes. */
  endEpoch: number;
  deletable: boolean;
  /** The certification event of the first store, reported to later stores as `alreadyCertified`. */
  event: { txDigest: string; eventSeq: string };
  /**
   * The Blob objects on the devnet chain that hold the blob, when the service runs beside one (src/devnet/walrus/
   * chain-blobs.ts): then their end epochs, not `endEpoch`, say how long the blob lives.
   */
  objects?: string[];
}

export class DevnetWalrusConfigError extends WalrusGitError {
  constructor(dir: string, field: string, stored: number, requested: number) {
    super('DEVNET_WALRUS_CONFIG', `the devnet Walrus state in ${dir} was created with ${field}=${stored}, but ${requested} was requested; use a new state directory to change it`, { dir, field, stored, requested });
  }
}

/** How much of a blob the service reads at a time. */
const READ_PIECE = 1024 * 1024;

export class BlobDirectory {
  readonly dir: string;
  private readonly lockPath: string;

  constructor(dir: string) {
    this.dir = dir;
    this.lockPath = join(dir, 'lock');
  }

  /** The persisted network parameters, if the directory has been initialized (synchronous: read at startup). */
  storedParams(): NetworkParams | undefined {
    try {
      return JSON.parse(readFileSync(join(this.dir, 'network.json'), 'utf8')) as NetworkParams;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw error;
    }
  }

  /** Creates the layout and persists `params` unless another process did first; returns the parameters in force. */
  async initialize(params: NetworkParams): Promise<NetworkParams> {
    for (const sub of ['incoming', 'blobs', 'meta']) mkdirSync(join(this.dir, sub), { recursive: true });
    const inForce = await withFileLock(this.lockPath, async () => {
      const stored = this.storedParams();
      if (stored !== undefined) return stored;
      await writeFileAtomic(join(this.dir, 'network.json'), `${JSON.stringify(params, null, 2)}\n`);
      return params;
    });
    await this.removeAbandonedUploads();
    return inForce;
  }

  /**
   * Streams a request body to a new file in incoming/, fsynced. Returns undefined (and keeps nothing) when the body
   * exceeds `limit` bytes.
   */
  async receive(body: ReadableStream<Uint8Array> | null, limit: number): Promise<{ path: string; size: number } | undefined> {
    const path = join(this.dir, 'incoming', `${process.pid}-${randomBytes(6).toString('hex')}`);
    const handle = await open(path, 'wx');
    let size = 0;
    let complete = false;
    try {
      if (body !== null) {
        for await (const chunk of body) {
          size += chunk.byteLength;
          if (size > limit) return undefined;
          await handle.write(chunk);
        }
      }
      await handle.sync();
      complete = true;
      return { path, size };
    } finally {
      await handle.close();
      if (!complete) await unlink(path).catch(() => {});
    }
  }

  async discard(path: string): Promise<void> {
    await unlink(path).catch(() => {});
  }

  async record(blobId: string): Promise<BlobRecord | undefined> {
    try {
      return JSON.parse(await readFile(this.metaPath(blobId), 'utf8')) as BlobRecord;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw error;
    }
  }

  /**
   * Runs `decide` under the directory lock with the current record of `blobId`. If it returns a record, the
   * received file becomes the blob's data (unless the data is already in place) and the record is written;
   * the received file is removed in every case.
   */
  async commit<T>(blobId: string, received: string, decide: (current: BlobRecord | undefined) => { record?: BlobRecord; result: T }): Promise<T> {
    try {
      return await withFileLock(this.lockPath, async () => {
        const { record, result } = decide(await this.record(blobId));
        if (record !== undefined) {
          const hasData = await stat(this.dataPath(blobId)).then((s) => s.size === record.size, () => false);
          if (!hasData) await rename(received, this.dataPath(blobId));
          await writeFileAtomic(this.metaPath(blobId), `${JSON.stringify(record)}\n`);
        }
        return result;
      });
    } finally {
      await this.discard(received);
    }
  }

  /** Removes an expired blob: the record first (so it is no longer served), then the data. */
  async remove(blobId: string, stillExpired: (record: BlobRecord) => boolean): Promise<void> {
    await withFileLock(this.lockPath, async () => {
      const record = await this.record(blobId);
      if (record === undefined || !stillExpired(record)) return;
      await unlink(this.metaPath(blobId));
      await unlink(this.dataPath(blobId)).catch(() => {});
    });
  }

  /** Opens the blob's data for reading; undefined if the file is not there. The open handle survives a removal. */
  async openData(blobId: string): Promise<FileHandle | undefined> {
    try {
      return await open(this.dataPath(blobId), 'r');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw error;
    }
  }

  /**
   * A web stream of bytes [start, start + length) of an open data file; closes the handle when done. It reads 1 MiB
   * at a time: with the default 64 KiB, passing the pieces through the web stream costs more than reading them
   * (a 10 MiB blob read twice as fast per CPU second).
   */
  static stream(handle: FileHandle, start: number, length: number): ReadableStream<Uint8Array> {
    if (length === 0) {
      void handle.close();
      return new ReadableStream({ start: (controller) => controller.close() });
    }
    const nodeStream = createReadStream('', { fd: handle, start, end: start + length - 1, autoClose: true, highWaterMark: READ_PIECE });
    return Readable.toWeb(nodeStream) as ReadableStream<Uint8Array>;
  }

  /** Uploads of processes that no longer exist will never complete. */
  private async removeAbandonedUploads(): Promise<void> {
    const names = await readdir(join(this.dir, 'incoming')).catch(() => [] as string[]);
    for (const name of names) {
      const pid = Number.parseInt(name.split('-')[0] ?? '', 10);
      if (Number.isInteger(pid) && pid > 0 && !processExists(pid)) await unlink(join(this.dir, 'incoming', name)).catch(() => {});
    }
  }

  private dataPath(blobId: string): string {
    return join(this.dir, 'blobs', blobId);
  }

  private metaPath(blobId: string): string {
    return join(this.dir, 'meta', `${blobId}.json`);
  }
}
