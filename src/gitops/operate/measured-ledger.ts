import type { Clock } from '../../core/clock.ts';

/**
 * `ledger` with each of `methods` timed: `observe` hears every call's method, duration in seconds and whether it
 * failed (the controller's chain-read metrics and its readiness, which needs a recent read that succeeded).
 */
export function measuredLedger<L extends object>(ledger: L, methods: readonly (keyof L & string)[], clock: Clock, observe: (method: string, seconds: number, failed: boolean) => void): L {
  const measured = Object.create(ledger) as L;
  for (const method of methods) {
    const call = ledger[method] as unknown as (...args: unknown[]) => Promise<unknown>;
    (measured as Record<string, unknown>)[method] = async (...args: unknown[]) => {
      const start = clock.now();
      try {
        const result = await call.apply(ledger, args);
        observe(method, (clock.now() - start) / 1000, false);
        return result;
      } catch (error) {
        observe(method, (clock.now() - start) / 1000, true);
        throw error;
      }
    };
  }
  return measured;
}
