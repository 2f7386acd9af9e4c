/**
 * Retries an operation whose failures say whether repeating could help (`retryable`, as on WalrusGitError, unless
 * the caller's `retryIf` decides), with exponential backoff and full jitter. Non-retryable errors and the last failure
 * propagate unchanged.
 */
export interface RetryPolicy {
  attempts: number;
  baseDelayMs: number;
  maxDelayMs: number;
}

export const DEFAULT_RETRY: RetryPolicy = { attempts: 5, baseDelayMs: 250, maxDelayMs: 8_000 };

export async function withRetry<T>(
  operation: (attempt: number) => Promise<T>,
  options: { policy?: RetryPolicy; signal?: AbortSignal; retryIf?: (error: unknown) => boolean; onRetry?: (error: unknown, attempt: number, delayMs: number) => void } = {},
): Promise<T> {
  const policy = options.policy ?? DEFAULT_RETRY;
  for (let attempt = 1; ; attempt++) {
    try {
      return await operation(attempt);
    } catch (error) {
      const retryable = options.retryIf ? options.retryIf(error) : (error as { retryable?: unknown } | null)?.retryable === true;
      if (!retryable || attempt >= policy.attempts || options.signal?.aborted) throw error;
      const delayMs = Math.random() * Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** (attempt - 1));
      options.onRetry?.(error, attempt, delayMs);
      await sleep(delayMs, options.signal);
    }
  }
}

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal!.reason);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
