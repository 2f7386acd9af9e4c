/**
 * Bytes the chain served, decoded: a node that is faulty, hostile or of another network can serve anything, so a
 * decoding failure (BCS that ends early, an enum tag out of range, a length past the end) is the node's, said so
 * with a code, never an untyped TypeError from deep in the codec.
 */
import { WalrusGitError, messageOf } from '../core/errors.ts';

export class MalformedChainDataError extends WalrusGitError {
  constructor(what: string, reason: string) {
    super('CHAIN_DATA_MALFORMED', `${what} as the Sui node served it cannot be decoded (${reason}); the node is faulty or serves another network: try another node (GIT_WALRUS_SUI_URL)`, { what, reason });
  }
}

/** `decode()`'s value, or a MalformedChainDataError naming `what` (e.g. "a Pushed event") when it throws. */
export function fromChainBytes<T>(what: string, decode: () => T): T {
  try {
    return decode();
  } catch (error) {
    if (error instanceof WalrusGitError) throw error;
    throw new MalformedChainDataError(what, messageOf(error).split('\n', 1)[0]!.slice(0, 200));
  }
}
