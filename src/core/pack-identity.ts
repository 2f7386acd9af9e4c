/**
 * The Seal identity a private repository's packs share while nobody has lost access (docs/architecture.md, Private
 * repositories (Seal), One identity per access state). Seal's key servers release the key of an identity to whoever
 * the contract's policy accepts at the moment they are asked, and a key once released opens everything ever sealed
 * under that identity. So packs may share an identity only while every address that could have obtained its key may
 * still read: no member removed (a writer or reader removed, the ownership transferred away) and no lease of the
 * repository ended (closed, or out of funds by the chain's Clock: its provider read under it) since the identity was
 * first used.
 *
 * The pusher derives the nonce from the repository's access state and its own key: the sha256 of its signature over
 * the state (Sui's signatures are deterministic). Both counts only ever grow, so a state never comes back, and the
 * same pusher gets the same identity for as long as the state holds, without reading earlier packs. Nobody else can
 * compute it (it needs the pusher's key), so nobody can ask for its key before it is on chain; an identity another
 * writer planted is never taken over, whatever it claims.
 */
import { createHash } from 'node:crypto';
import { packIdentityWith } from './pack-cipher.ts';

/** What a shared identity stands for: the repository's access as the pusher reads it. */
export interface AccessState {
  /** Times a member lost access so far: writers and readers removed, the ownership transferred. */
  removals: number;
  /** Leases of the repository that have ended: closed, or out of funds by the chain's Clock. */
  endedLeases: number;
  /** The owner, the writers and the readers now (a removal the event index has not caught up with shows here). */
  members: readonly string[];
}

/** The message the pusher signs for the identity of `state` (domain-separated, so no other signature matches). */
export function accessStateMessage(repositoryId: string, state: AccessState): Uint8Array {
  const members = [...new Set(state.members.map((m) => m.toLowerCase()))].sort();
  return new TextEncoder().encode([
    'git-walrus shared pack identity v1',
    `repository ${repositoryId.toLowerCase()}`,
    `removals ${state.removals}`,
    `ended leases ${state.endedLeases}`,
    `members ${members.join(',')}`,
  ].join('\n'));
}

/** The identity of `repositoryId` whose nonce is the sha256 of `signature` (the pusher's, over `accessStateMessage`). */
export function identityOfSignature(repositoryId: string, signature: Uint8Array): Uint8Array {
  return packIdentityWith(repositoryId, new Uint8Array(createHash('sha256').update(signature).digest()));
}
