/**
 * Attesting a build (`git walrus attest`, and the controller's attester mode): commit to its digests, wait for the
 * tally's commit window to close by the chain's clock, reveal.
 *
 * The nonce is derived, not drawn: the sha256 of the attesting key's signature over the tally's coordinates and the
 * provider (a domain-tagged Sui personal message). Only that key can compute it, so nobody else can open the
 * commitment before the reveal; and the key computes the same one again, so an attester interrupted between commit
 * and reveal (a crash, a restart, a second process) still reveals. This needs a key whose signatures are
 * deterministic, as Ed25519's are (RFC 8032).
 */
import { createHash } from 'node:crypto';
import { hexToBytes } from '@noble/hashes/utils.js';
import { commitmentOf } from '../../contract/attestation-model.ts';
import { AttestationMissedError } from '../../core/attestation.ts';
import { normalizeSuiId } from '../../core/walrus-url.ts';
import type { AttestationLedger, Attester, TallyCoordinates } from '../../ports/attestations.ts';

export interface BuildDigests {
  tarSha256: string;
  manifestRoot: string;
}

export interface AttestDeps {
  attestations: Pick<AttestationLedger, 'tally' | 'commitBuild' | 'revealBuild'>;
  /** The chain's clock (ms). */
  clockMs(): Promise<number>;
  /** The attesting key's Sui personal-message signature over `message` (base64, as Sui serializes it). */
  signPersonalMessage(message: Uint8Array): Promise<{ signature: string }>;
}

/** Where one attestation stands after a step: waiting to reveal, revealed (by this step or before). */
export type AttestationStep =
  | { state: 'committed'; revealAfterMs: number; digest?: string }
  | { state: 'revealed'; digest?: string };

/** The message whose signature the nonce is the hash of: what it is for, and everything that names this attestation. */
export function nonceMessage(attester: Attester, at: TallyCoordinates): Uint8Array {
  const lines = ['walrus-git build attestation nonce v1', `provider ${attester.providerId}`, `repository ${at.repositoryId}`, `commit ${at.commit}`, `build key ${at.buildKey}`];
  return new TextEncoder().encode(`${lines.join('\n')}\n`);
}

export async function attestationNonce(deps: Pick<AttestDeps, 'signPersonalMessage'>, attester: Attester, at: TallyCoordinates): Promise<Uint8Array> {
  const { signature } = await deps.signPersonalMessage(nonceMessage(attester, at));
  return new Uint8Array(createHash('sha256').update(signature).digest());
}

/**
 * One step, from whatever the chain shows: commit when this provider has not, reveal once the commit window has closed
 * and it has not revealed, nothing when it has. Safe to repeat and to run from another process with the same key. A
 * commitment it can no longer make or open (the commit window closed before it committed, the reveal window after)
 * is AttestationMissedError.
 */
export async function advanceAttestation(deps: AttestDeps, attester: Attester, at: TallyCoordinates, digests: BuildDigests): Promise<AttestationStep> {
  const [tally, now] = await Promise.all([deps.attestations.tally(at), deps.clockMs()]);
  const self = (provider: string) => normalizeSuiId(provider) === normalizeSuiId(attester.providerId);
  if (tally?.revealed.some((reveal) => self(reveal.provider))) return { state: 'revealed' };
  if (!tally?.committed.some(self)) {
    if (tally && now >= tally.commitUntilMs) throw new AttestationMissedError(at, 'its commit window closed before this provider committed', tally.commitUntilMs);
    const nonce = await attestationNonce(deps, attester, at);
    const commitment = commitmentOf(hexToBytes(digests.tarSha256), hexToBytes(digests.manifestRoot), attester.providerId, nonce);
    const committed = await deps.attestations.commitBuild(attester, at, commitment);
    return { state: 'committed', revealAfterMs: committed.commitUntilMs, digest: committed.digest };
  }
  if (now < tally.commitUntilMs) return { state: 'committed', revealAfterMs: tally.commitUntilMs };
  if (now >= tally.revealUntilMs) throw new AttestationMissedError(at, 'its reveal window closed before this provider revealed', tally.revealUntilMs);
  const revealed = await deps.attestations.revealBuild(attester, at, digests, await attestationNonce(deps, attester, at));
  return { state: 'revealed', digest: revealed.digest };
}

/**
 * The whole attestation in one go (`git walrus attest`): steps until revealed, sleeping until the commit window closes
 * (at most 5 s at a time, then the chain's clock is read again). Returns the transactions this run sent.
 */
export async function attest(
  deps: AttestDeps & { sleep(ms: number): Promise<void>; onCommitted?(revealAfterMs: number): void },
  attester: Attester, at: TallyCoordinates, digests: BuildDigests,
): Promise<{ committed?: string; revealed?: string }> {
  const sent: { committed?: string; revealed?: string } = {};
  for (;;) {
    const step = await advanceAttestation(deps, attester, at, digests);
    if (step.state === 'revealed') return step.digest === undefined ? sent : { ...sent, revealed: step.digest };
    if (step.digest !== undefined) {
      sent.committed = step.digest;
      deps.onCommitted?.(step.revealAfterMs);
    }
    const now = await deps.clockMs();
    if (now < step.revealAfterMs) await deps.sleep(Math.min(step.revealAfterMs - now, 5_000));
  }
}
