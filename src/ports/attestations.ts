/**
 * Build attestations on chain (contracts/sources/attestation.move): what attesters, the provider's controller and the
 * `attest`/`attestations` commands need. Ids 0x + 64 hex; commits, build keys and digests lowercase hex; times Clock
 * milliseconds. Implemented over `client.core` by src/sui/attestations.ts.
 */
import type { TxReceipt } from './ledger.ts';
import type { TallyView } from '../core/attestation.ts';

/** One tally's coordinates: a commit of a repository built under a build key. */
export interface TallyCoordinates {
  repositoryId: string;
  commit: string;
  buildKey: string;
}

/** An attester's own provider (the signer holds its cap). */
export interface Attester {
  providerId: string;
  capId: string;
}

export interface AttestationLedger {
  /** The tally of a commit under a build key, or null before its first commitment. */
  tally(at: TallyCoordinates): Promise<TallyView | null>;
  /** For each commit of repository `repositoryId` anyone committed a build of: the build keys, oldest first. */
  buildKeysOf(repositoryId: string): Promise<Map<string, string[]>>;
  /**
   * Leases whose tenant set a reproduction requirement after `cursor` (`ReproductionRequired` events, oldest first;
   * null: from the start), and the cursor to go on from (the same when nothing is new). The requirement may have
   * changed since: read it with `requiredReproductions`.
   */
  reproductionRequestsAfter(cursor: string | null): Promise<{ leases: string[]; cursor: string | null }>;
  /** How many other providers must agree before lease `leaseId`'s provider rolls a release out; 0 when not required. */
  requiredReproductions(leaseId: string): Promise<number>;
  /** Commits to `commitment` (see `commitmentOf`); the first commitment opens the tally. */
  commitBuild(attester: Attester, at: TallyCoordinates, commitment: Uint8Array): Promise<TxReceipt & { commitUntilMs: number; revealUntilMs: number }>;
  /** Reveals the digests committed to, with the commitment's nonce. */
  revealBuild(attester: Attester, at: TallyCoordinates, digests: { tarSha256: string; manifestRoot: string }, nonce: Uint8Array): Promise<TxReceipt>;
  /** Admin (the signer holds the market's AdminCap): the commit and reveal windows of tallies opened from now on. */
  setWindows(commitMs: number, revealMs: number): Promise<TxReceipt>;
  /** The tenant requires `required` agreeing attestations of other providers on lease `leaseId` (0 lifts it). */
  requireReproduced(leaseId: string, required: number): Promise<TxReceipt>;
}
