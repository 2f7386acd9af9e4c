/**
 * Abort codes of the `market` module, name → number. Identical to the `const E…: u64` constants in
 * contracts/sources/market.move (a test reads the Move source and compares). Sui reports an abort with its module,
 * so these numbers are the market's own: a client matches (module, name), never a bare number.
 */
import { MoveAbort } from './abort-codes.ts';

export const MarketAbortCode = {
  /** The object was created by another package version: call the current package. */
  EWrongVersion: 0,
  /** The stake is below the market's minimum (to register, or for a provider to take a new lease). */
  EStakeTooLow: 1,
  /** The price per millisecond must be above zero. */
  EInvalidPrice: 2,
  /** Endpoint an http(s) URL with a host; at most 32 attributes, keys and values of the same count, unique keys, each ≤ 256 bytes without control characters. */
  EInvalidProviderInfo: 3,
  /** The ProviderCap belongs to another provider. */
  ENotProvider: 4,
  /** The Provider object is not the lease's provider. */
  EWrongProvider: 5,
  /** The provider is unbonding and takes no new leases. */
  ENotAccepting: 6,
  /** The deposit pays for less than the market's minimum lease duration at the provider's price. */
  EDepositTooSmall: 7,
  /** The ref is not a valid git ref name under refs/. */
  EInvalidRefName: 8,
  /** Only the lease's tenant may do this. */
  ENotTenant: 9,
  /** The lease is closed. */
  ELeaseClosed: 10,
  /** The lease's funds ran out: it can only be closed (open a new lease). */
  ELeaseExhausted: 11,
  /** The amount must be above zero. */
  EZeroAmount: 12,
  /** The provider is already unbonding. */
  EAlreadyUnbonding: 13,
  /** Request unbonding first. */
  ENotUnbonding: 14,
  /** The provider still has leases that are not closed. */
  EActiveLeases: 15,
  /** The unbonding delay has not passed yet. */
  ETooEarly: 16,
  /** A slash may not exceed the provider's stake. */
  ESlashExceedsStake: 17,
  /** The Repository object is not the lease's repository. */
  EWrongRepository: 18,
  /** The commit is not the current value of the lease's ref in the repository. */
  ENotHead: 19,
  /** An artifact's sha256 is 32 bytes. */
  EInvalidArtifact: 20,
  /** A lease's URL is 1–256 bytes of printable ASCII (no spaces) starting with http:// or https://. */
  EInvalidUrl: 21,
  /**
   * The repository is private and the tenant may not read it (not its owner, a writer or a reader): opening a lease as
   * the sender, or recording a deploy for the lease's tenant.
   */
  ECannotRead: 22,
} as const;

export type MarketAbortName = keyof typeof MarketAbortCode;

const namesByCode = new Map<number, MarketAbortName>((Object.entries(MarketAbortCode) as [MarketAbortName, number][]).map(([name, code]) => [code, name]));

/** The market constant's name for an abort code raised in module `market`, or undefined. */
export function marketAbortName(code: number): MarketAbortName | undefined {
  return namesByCode.get(code);
}

/**
 * A Move abort raised by the market model (module `market`).
 * What to do: nothing by itself: the devnet reports it as the transaction's MoveAbort, and the command's own error says what to do.
 */
export class MarketAbort extends MoveAbort<MarketAbortName> {
  constructor(functionName: string, name: MarketAbortName) {
    super('market', functionName, name, MarketAbortCode[name]);
  }
}
