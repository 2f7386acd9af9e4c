/**
 * Container log files as a CRI runtime writes them and the kubelet reads them (one file per run of a container,
 * `<pods>/<namespace>_<pod>_<uid>/<container>/<restartCount>.log`, each line `<time> <stream> F <text>`), and the
 * reading the kubelet's `/containerLogs` does on them: `tailLines`, `sinceTime`, `timestamps`, `limitBytes` and
 * `follow`, which waits for new lines while the container runs and ends at the end of the file once it has stopped.
 */
import { createWriteStream, watch } from 'node:fs';
import type { FSWatcher, WriteStream } from 'node:fs';
import { mkdir, open } from 'node:fs/promises';
import { dirname, join } from 'node:path';

export type LogStream = 'stdout' | 'stderr';

/** The directory holding every log file of one pod (removed with the pod). */
export const podLogsDir = (root: string, namespace: string, name: string, uid: string) => join(root, `${namespace}_${name}_${uid}`);

export const containerLogFile = (podDir: string, container: string, restartCount: number) => join(podDir, container, `${restartCount}.log`);

/** Nanosecond-precision UTC time with nine fraction digits: fixed width, so times compare as strings. */
export function logTime(epochMs: number, subMillisecondNs = 0): string {
  const iso = new Date(epochMs).toISOString();
  return `${iso.slice(0, 19)}.${iso.slice(20, 23)}${String(subMillisecondNs).padStart(6, '0')}Z`;
}

/** Go's RFC3339Nano output: trailing zeros of the fraction dropped, and the dot with them when none is left. */
export function goNanoTime(fixed: string): string {
  const fraction = fixed.slice(20, 29).replace(/0+$/, '');
  return `${fixed.slice(0, 19)}${fraction ? `.${fraction}` : ''}Z`;
}

export class ContainerLogWriter {
  readonly #out: WriteStream;
  readonly #origin = process.hrtime.bigint();
  readonly #originMs = Date.now();

  private constructor(out: WriteStream) {
    this.#out = out;
  }

  static async create(path: string): Promise<ContainerLogWriter> {
    await mkdir(dirname(path), { recursive: true });
    return new ContainerLogWriter(createWriteStream(path, { flags: 'a' }));
  }

  write(stream: LogStream, line: string): void {
    const elapsedNs = process.hrtime.bigint() - this.#origin;
    const ms = this.#originMs + Number(elapsedNs / 1_000_000n);
    this.#out.write(`${logTime(ms, Number(elapsedNs % 1_000_000n))} ${stream} F ${line}\n`);
  }

  close(): Promise<void> {
    return new Promise((resolve) => this.#out.end(resolve));
  }
}

export interface ReadOptions {
  /** Lines from the end to start at; undefined for all. Without follow, also the number of lines written. */
  tailLines?: number;
  /** A `logTime` string: lines written before it are skipped. */
  since?: string;
  timestamps: boolean;
  limitBytes?: number;
  follow: boolean;
}

export interface LogSink {
  /** False when the reader went away: reading stops. */
  write(chunk: Buffer): boolean | Promise<boolean>;
}

const LINE = /^(\S+) (stdout|stderr) ([PF]) (.*)$/s;
/** As the kubelet, a follower re-checks the file this often even without a change notice. */
const FORCE_CHECK_MS = 1000;

/** The byte offset at which the last `lines` lines of `data` start. */
export function tailStart(data: Buffer, lines: number | undefined): number {
  if (lines === undefined) return 0;
  let end = data.length;
  // The file's final newline ends its last line; it does not start another.
  if (end > 0 && data[end - 1] === 0x0a) end--;
  let count = 0;
  for (let i = end - 1; i >= 0; i--) {
    if (data[i] !== 0x0a) continue;
    count++;
    if (count === lines) return i + 1;
  }
  return lines === 0 ? data.length : 0;
}

/**
 * Writes the file's lines to the sink per the options. While following, waits for more while `running()` says the
 * container runs; once it has stopped, what is left is written and the read ends. `signal` ends a follow early.
 */
export async function readContainerLog(path: string, options: ReadOptions, running: () => boolean, sink: LogSink, signal: AbortSignal): Promise<void> {
  const file = await open(path, 'r');
  let watcher: FSWatcher | undefined;
  try {
    const initial = await file.readFile();
    let offset = tailStart(initial, options.tailLines);
    let pending = initial.subarray(offset);
    offset = initial.length;
    let remainingLines = options.tailLines !== undefined && !options.follow ? options.tailLines : Infinity;
    let remainingBytes = options.limitBytes ?? Infinity;
    let changed: (() => void) | undefined;
    // Returns false when the read is over (a limit reached, the reader gone).
    const drain = async (): Promise<boolean> => {
      for (;;) {
        if (remainingLines === 0) return false;
        const eol = pending.indexOf(0x0a);
        if (eol < 0) return true;
        const raw = pending.subarray(0, eol).toString('utf8');
        pending = pending.subarray(eol + 1);
        const parsed = LINE.exec(raw);
        if (!parsed) continue;
        const [, time, , tag, text] = parsed as unknown as [string, string, string, string, string];
        if (options.since && time < options.since) continue;
        let out = Buffer.from(`${options.timestamps ? `${goNanoTime(time)} ` : ''}${text}${tag === 'F' ? '\n' : ''}`);
        if (out.length > remainingBytes) out = out.subarray(0, remainingBytes);
        remainingBytes -= out.length;
        if (!(await sink.write(out))) return false;
        if (remainingBytes <= 0) return false;
        if (remainingLines !== Infinity) remainingLines--;
      }
    };
    const readMore = async () => {
      const { size } = await file.stat();
      if (size <= offset) return;
      const chunk = Buffer.alloc(size - offset);
      const { bytesRead } = await file.read(chunk, 0, chunk.length, offset);
      offset += bytesRead;
      pending = Buffer.concat([pending, chunk.subarray(0, bytesRead)]);
    };
    if (!(await drain()) || !options.follow) return;
    watcher = watch(path, () => changed?.());
    for (;;) {
      if (signal.aborted) return;
      const wasRunning = running();
      await readMore();
      if (!(await drain())) return;
      // Stopped before this last read: everything it wrote has been read.
      if (!wasRunning) return;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, FORCE_CHECK_MS);
        const done = () => { clearTimeout(timer); signal.removeEventListener('abort', done); changed = undefined; resolve(); };
        changed = done;
        signal.addEventListener('abort', done, { once: true });
      });
    }
  } finally {
    watcher?.close();
    await file.close();
  }
}
