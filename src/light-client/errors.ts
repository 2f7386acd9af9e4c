import { WalrusGitError } from '../core/errors.ts';

/**
 * Something an RPC served did not verify against the certified chain: a signature, a digest, a link. `what` names
 * the check in the user's terms; whoever fetched the data adds which RPC served it (`withSource`).
 */
export class NotCertifiedError extends WalrusGitError {
  readonly what: string;

  constructor(what: string, data: Record<string, unknown> = {}) {
    super('NOT_CERTIFIED', `${what}; the data cannot be trusted: try another RPC (walrus.rpc), or report the node that served it`, { what, ...data });
    this.what = what;
  }

  /** The same refusal, naming the RPC that served the data. */
  withSource(rpc: string): NotCertifiedError {
    if (this.data.rpc !== undefined) return this;
    return new NotCertifiedError(`${this.what} (served by ${rpc})`, { ...this.data, rpc });
  }
}
