/**
 * A container's `terminated` state from its exit: the exit code (128+n for signal n), the reason, and the message:
 * why it could not run, else the terminationMessagePath file's content, else (FallbackToLogsOnError, a failure) the
 * tail of its output.
 */
import { readFile } from 'node:fs/promises';
import type { V1Container } from '@kubernetes/client-node';
import type { Exit } from './runtime.ts';
import { exitReason, wireTime } from './status.ts';
import type { Terminated } from './status.ts';

const MAX_MESSAGE_BYTES = 4096;
export const FALLBACK_LOG_LINES = 80;
const FALLBACK_LOG_BYTES = 2048;

export interface Run {
  spec: V1Container;
  /** The host path of the file mounted at the container's terminationMessagePath. */
  terminationLog: string;
  startedAt: number;
  containerID: string;
  /** The container's last lines of output (FALLBACK_LOG_LINES at most). */
  tail: string[];
}

export async function terminatedState(run: Run, exit: Exit): Promise<Terminated> {
  const ended = exitReason(exit.exitCode, exit.cannotRun, exit.oomKilled);
  return {
    exitCode: exit.exitCode,
    ...(exit.signal ? { signal: exit.signal } : {}),
    reason: ended.reason,
    ...(ended.message ? { message: ended.message } : await terminationMessage(run.spec, run.terminationLog, exit, run.tail)),
    startedAt: wireTime(run.startedAt),
    finishedAt: wireTime(Date.now()),
    containerID: run.containerID,
  };
}

async function terminationMessage(spec: V1Container, path: string, exit: Exit, tail: string[]): Promise<{ message?: string }> {
  let message = (await readFile(path).catch(() => Buffer.alloc(0))).subarray(0, MAX_MESSAGE_BYTES).toString('utf8');
  if (!message && exit.exitCode !== 0 && spec.terminationMessagePolicy === 'FallbackToLogsOnError') {
    message = tail.join('\n');
    if (Buffer.byteLength(message) > FALLBACK_LOG_BYTES) message = Buffer.from(message).subarray(-FALLBACK_LOG_BYTES).toString('utf8');
  }
  return message ? { message } : {};
}
