/** A clock that moves only when the test says so, for code that takes `Timers` (src/core/timers.ts). */
import type { Timers } from '../../src/core/timers.ts';

export interface ManualTimers extends Timers {
  /** Moves the clock forward by `ms`, running every timer that falls due, in order of its time. */
  advance(ms: number): void;
  /** Timers not yet run or cleared. */
  pending(): number;
}

export function manualTimers(start = 0): ManualTimers {
  let now = start;
  let next = 0;
  const due = new Map<number, { at: number; run: () => void }>();
  return {
    now: () => now,
    setTimeout: (run, ms) => {
      const handle = ++next;
      due.set(handle, { at: now + Math.max(0, ms), run });
      return handle;
    },
    clearTimeout: (handle) => { due.delete(handle as number); },
    advance: (ms) => {
      const until = now + ms;
      for (;;) {
        const [handle, timer] = [...due].filter(([, t]) => t.at <= until).sort(([a, x], [b, y]) => x.at - y.at || a - b)[0] ?? [];
        if (handle === undefined) break;
        due.delete(handle);
        now = timer!.at;
        timer!.run();
      }
      now = until;
    },
    pending: () => due.size,
  };
}
