/**
 * Chooses the Seal identity of a private repository's next pack (docs/architecture.md, Private repositories (Seal),
 * One identity per access state): the pusher's identity of the repository's current access state
 * (src/core/pack-identity.ts), with the identity key its packs' data keys derive from (src/core/shared-pack-key.ts),
 * when it can read that state; a fresh random identity otherwise, with a data key of the pack's own.
 */
import { messageOf } from '../core/errors.ts';
import type { Log } from '../core/log.ts';
import { newPackIdentity } from '../core/pack-cipher.ts';
import { accessStateMessage, identityOfSignature } from '../core/pack-identity.ts';
import { identityKeyOfSignature } from '../core/shared-pack-key.ts';
import { runsOutBy } from '../contract/lease-accrual.ts';
import type { AccessHistory } from '../ports/access-history.ts';
import type { RepositoryInfo } from '../ports/ledger.ts';

/**
 * A lease whose funds run out this soon gets its repository a fresh identity for the push: the push's transaction lands
 * seconds after these reads, maybe after the lease ran out, and its provider may hold the key of the shared one.
 */
export const LEASE_ENDING_MARGIN_MS = 10 * 60_000;

/** The Seal identity of a pack, and the identity key shared by the packs under it (null for a random identity). */
export interface PackIdentity {
  identity: Uint8Array;
  identityKey: Uint8Array | null;
}

/** The identity the next pack of `repository` (private) is sealed under. */
export async function choosePackIdentity(history: AccessHistory | undefined, repository: RepositoryInfo, log: Log): Promise<PackIdentity> {
  const random = () => ({ identity: newPackIdentity(repository.id), identityKey: null });
  if (history === undefined) return random();
  try {
    const [removals, { leases, nowMs }] = await Promise.all([history.countRemovals(repository.id), history.leasesOf(repository.id)]);
    const ended = leases.filter((lease) => lease.state === 'closed' || runsOutBy(lease, nowMs));
    const ending = leases.filter((lease) => !ended.includes(lease) && runsOutBy(lease, nowMs + LEASE_ENDING_MARGIN_MS));
    if (ending.length > 0) {
      log.debug(`a fresh Seal identity for this pack: lease ${ending[0]!.id} runs out of funds within ${LEASE_ENDING_MARGIN_MS / 60_000} minutes`);
      return random();
    }
    const state = { removals, endedLeases: ended.length, members: [repository.owner, ...repository.writers, ...repository.readers] };
    const signature = await history.sign(accessStateMessage(repository.id, state));
    return { identity: identityOfSignature(repository.id, signature), identityKey: identityKeyOfSignature(signature) };
  } catch (error) {
    // A fresh identity is always safe; it only costs a reader one more key.
    log.debug(`a fresh Seal identity for this pack: the repository's access history did not answer (${messageOf(error)})`);
    return random();
  }
}
