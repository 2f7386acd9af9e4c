import type { ClientWithCoreApi } from '@mysten/sui/client';
import { connectionProblem, ServiceUnreachableError } from '../core/service-unreachable.ts';
import { withRetry } from '../core/retry.ts';
import type { RetryPolicy } from '../core/retry.ts';

/**
 * Deadlines for a Sui node: every request the SDK sends (gRPC-web or JSON-RPC, through the `fetch` both transports
 * accept) gets `timeoutMs` to be answered. What is tried again depends on what failed: a refused or failed connection
 * (a node restarting, a reset, undici's own 10 s connect timeout) is tried again with back-off, a bounded number of
 * times; a request the node took and never answered within the deadline is not, because a node that holds a
 * connection silent for the whole deadline is stuck or overloaded and would make the user wait the deadline again
 * for each try (three tries of 30 s were 92 s). A signed transaction sent twice is the same transaction (one digest), so retrying writes
 * is safe. When the tries run out, `client.core` throws a ServiceUnreachableError that names the node and what the
 * call was doing; the transports would otherwise turn it into an untyped "fetch failed".
 */
export interface SuiDeadlines {
  url: string;
  timeoutMs: number;
  /** What the user should check, with the settings' names. */
  help: string;
  retry?: RetryPolicy;
  fetch?: typeof fetch;
}

/** Three tries, 1 s then 2 s apart at most (full jitter): a restarting node gets a moment, a dead one is told fast. */
export const SUI_RETRY: RetryPolicy = { attempts: 3, baseDelayMs: 1_000, maxDelayMs: 2_000 };

export interface DeadlineFetch {
  fetch: typeof fetch;
  /** `error` as the ServiceUnreachableError it came from (the gRPC transport keeps only its message), or as is. */
  typed(error: unknown): unknown;
}

export function suiDeadlineFetch(options: SuiDeadlines): DeadlineFetch {
  const base = options.fetch ?? globalThis.fetch;
  const policy = options.retry ?? SUI_RETRY;
  const failures = new Map<string, ServiceUnreachableError>();
  const request: typeof fetch = (input, init = {}) => withRetry(async (attempt) => {
    const deadline = AbortSignal.timeout(options.timeoutMs);
    const caller = init.signal ?? undefined;
    try {
      return await base(input, { ...init, signal: caller === undefined ? deadline : AbortSignal.any([caller, deadline]) });
    } catch (error) {
      if (caller?.aborted) throw caller.reason;
      const problem = deadline.aborted ? { problem: 'timeout' as const } : connectionProblem(error);
      const failure = new ServiceUnreachableError({ service: 'the Sui node', url: options.url, timeoutMs: options.timeoutMs, attempts: attempt, help: options.help, ...problem });
      failures.set(failure.message, failure);
      throw failure;
    }
  }, { policy, retryIf: (error) => error instanceof ServiceUnreachableError && error.unreachable.problem !== 'timeout', ...(init.signal ? { signal: init.signal } : {}) });
  return {
    fetch: request,
    typed: (error) => (error instanceof ServiceUnreachableError ? error : failures.get((error as Error | null)?.message ?? '') ?? error),
  };
}

/** What a `client.core` call was doing, in the user's words, for the error that says it could not be done. */
function doing(method: string): string {
  if (/^(signAndExecute|execute)Transaction$/.test(method)) return 'sending a transaction';
  if (/^simulateTransaction$/.test(method)) return 'checking a transaction before sending it';
  if (/^(waitFor|get)Transaction$/.test(method)) return 'waiting for a transaction';
  return 'reading the chain';
}

/**
 * The client with its `core` answering every failure of `deadlines` as a ServiceUnreachableError. The SDK's own
 * code (transaction building, the Walrus and Seal clients) reaches the node through `client.core` too.
 */
export function withDeadlines<C extends ClientWithCoreApi>(client: C, deadlines: DeadlineFetch): C {
  const core = client.core;
  const wrapped = new Proxy(core, {
    get(target, property) {
      const value: unknown = Reflect.get(target, property, target);
      if (typeof value !== 'function') return value;
      return (...args: unknown[]) => {
        const result: unknown = (value as (...a: unknown[]) => unknown).apply(target, args);
        if (!(result instanceof Promise)) return result;
        return result.catch((error: unknown) => {
          const typed = deadlines.typed(error);
          throw typed instanceof ServiceUnreachableError && typed.doing === undefined ? typed.during(doing(String(property))) : typed;
        });
      };
    },
  });
  Object.defineProperty(client, 'core', { value: wrapped, configurable: true, enumerable: true, writable: true });
  return client;
}
