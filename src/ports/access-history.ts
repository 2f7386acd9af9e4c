/**
 * What a pusher reads of a private repository's access to choose the Seal identity of its next pack
 * (src/remote/pack-identity.ts): whether anyone lost access since an identity was first used. Composed from the
 * chain's events, the compute market and the user's key by src/main/access-history.ts.
 */
import type { LeaseInfo } from './market.ts';

export interface AccessHistory {
  /** How many times a member of the repository lost access so far: writers and readers removed, ownership transferred. */
  countRemovals(repositoryId: string): Promise<number>;
  /** Every lease ever opened on the repository (none where the network has no market), with the chain's Clock now. */
  leasesOf(repositoryId: string): Promise<{ leases: LeaseInfo[]; nowMs: number }>;
  /** The user's Sui personal-message signature over `message`, its serialized bytes. */
  sign(message: Uint8Array): Promise<Uint8Array>;
}
