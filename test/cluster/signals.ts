/** Waiting and signalling, once for the whole test cluster (plane runner, node network, kubelet). */

/** Resolves after `ms`, or as soon as `abort` fires. */
export function sleep(ms: number, abort?: AbortSignal): Promise<void> {
  return new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, ms);
    abort?.addEventListener('abort', () => { clearTimeout(timer); resolve(); }, { once: true });
  });
}

/** Sends `name` to `pid`; a process that is already gone is no error. */
export function signal(pid: number, name: NodeJS.Signals): void {
  try {
    process.kill(pid, name);
  } catch {
    // Already gone.
  }
}

/**
 * SIGTERM to every target still running, a grace period, SIGKILL to those still running, then waits until none
 * runs. `isRunning` decides, so that a recycled pid is never signalled.
 */
export async function terminate<T>(targets: readonly T[], options: { pid(target: T): number; isRunning(target: T): boolean; graceMs: number; pollMs?: number }): Promise<void> {
  const { pid, isRunning, graceMs, pollMs = 50 } = options;
  const live = targets.filter(isRunning);
  for (const target of live) signal(pid(target), 'SIGTERM');
  const deadline = Date.now() + graceMs;
  while (live.some(isRunning) && Date.now() < deadline) await sleep(pollMs);
  for (const target of live.filter(isRunning)) signal(pid(target), 'SIGKILL');
  while (live.some(isRunning)) await sleep(Math.min(pollMs, 20));
}
