import { WalrusGitError } from '../../core/errors.ts';

/**
 * A transaction the chain refuses before executing it (bad signature, unknown input object, gas balance too low,
 * size limits): nothing is charged and nothing is recorded, as when a validator rejects a transaction. The message
 * follows Sui's own wording; the JSON-RPC front returns it as an RPC error.
 * What to do: fix what the message names (signature, gas, an input object, a limit) and send the transaction again; nothing was charged.
 */
export class TransactionRejectedError extends WalrusGitError {
  readonly reason: string;
  constructor(reason: string, message: string, data: Record<string, unknown> = {}) {
    super('DEVNET_TX_REJECTED', `Transaction rejected: ${message}`, { reason, ...data });
    this.reason = reason;
  }
}

/**
 * A read of something the chain does not have (transaction, package, function).
 * What to do: check the id, digest or function name: the local network knows only what was executed on it.
 */
export class ChainNotFoundError extends WalrusGitError {
  constructor(what: string, data: Record<string, unknown> = {}) {
    super('DEVNET_NOT_FOUND', `${what} not found`, data);
  }
}
