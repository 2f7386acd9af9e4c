import { WalrusGitError } from './errors.ts';

/**
 * A network service (a Sui node, a Walrus aggregator or publisher) that did not answer in time or could not be
 * reached, after its retries. The message names the service and its URL, what was being done, and what to check.
 */
export interface Unreachable {
  /** In the user's words, e.g. "the Sui node". */
  service: string;
  url: string;
  /** `timeout`: connected (or not) but no answer within the deadline; `refused`: nothing listens there. */
  problem: 'timeout' | 'refused' | 'failed';
  timeoutMs: number;
  attempts: number;
  /** The transport's words, for `failed` (a DNS or TLS failure, a reset connection). */
  detail?: string;
  /** What to check: the settings that name the URL, the deadline's setting. */
  help: string;
}

/** The network deadline's default (GIT_WALRUS_TIMEOUT): a loaded node answers within seconds; one that takes 30 is not coming. */
export const DEFAULT_TIMEOUT_MS = 30_000;

export class ServiceUnreachableError extends WalrusGitError {
  readonly unreachable: Unreachable;
  readonly doing: string | undefined;

  constructor(unreachable: Unreachable, doing?: string) {
    super('SERVICE_UNREACHABLE', describeUnreachable(unreachable, doing), { ...unreachable, ...(doing ? { doing } : {}) }, { retryable: true });
    this.unreachable = unreachable;
    this.doing = doing;
  }

  /** The same failure, told as happening while `doing` (e.g. "reading the repository"). */
  during(doing: string): ServiceUnreachableError {
    return new ServiceUnreachableError(this.unreachable, doing);
  }
}

/** The message of an Unreachable, as every network adapter words it. */
export function describeUnreachable({ service, url, problem, timeoutMs, attempts, detail, help }: Unreachable, doing: string | undefined): string {
  const tries = attempts === 1 ? [] : [`${attempts} attempts`];
  const [what, why] = problem === 'timeout' ? [`did not answer within ${seconds(timeoutMs)}`, tries]
    : problem === 'refused' ? ['refused the connection', [...tries, 'nothing listens at that address']]
      : ['could not be reached', [...tries, detail ?? 'the connection failed']];
  return `${service} at ${url} ${what}${doing ? ` while ${doing}` : ''}${why.length ? ` (${why.join(': ')})` : ''}; ${help}`;
}

/** What a failed fetch says about the connection: refused, or another failure in the transport's words. */
export function connectionProblem(error: unknown): Pick<Unreachable, 'problem' | 'detail'> {
  const cause = (error as { cause?: { code?: unknown; message?: unknown } } | null)?.cause;
  const code = typeof cause?.code === 'string' ? cause.code : undefined;
  if (code === 'ECONNREFUSED') return { problem: 'refused' };
  const detail = typeof cause?.message === 'string' ? cause.message : error instanceof Error ? error.message : String(error);
  return { problem: 'failed', detail };
}

const seconds = (ms: number) => `${Number((ms / 1000).toFixed(1))} s`;
