/**
 * Attesting a build (`git walrus attest`, and the provider's controller): commit to its digests with a fresh nonce,
 * wait for the tally's commit window to close by the chain's clock, reveal. The nonce never leaves this process
 * before the reveal, so a commitment cannot be opened by anyone else; an attester interrupted between the two steps
 * cannot reveal that commitment later, and its attestation is simply missing from the tally.
 */
import { randomBytes } from 'node:crypto';
import { hexToBytes } from '@noble/hashes/utils.js';
import { commitmentOf } from '../../contract/attestation-model.ts';
import type { AttestationLedger, Attester, TallyCoordinates } from '../../ports/attestations.ts';

export interface BuildDigests {
  tarSha256: string;
  manifestRoot: string;
}

export interface AttestDeps {
  attestations: Pick<AttestationLedger, 'commitBuild' | 'revealBuild'>;
  /** The chain's clock (ms). */
  clockMs(): Promise<number>;
  sleep(ms: number): Promise<void>;
  /** Told once the commitment landed, before the wait. */
  onCommitted?(commitUntilMs: number): void;
}

/** Commits, waits for the commit window to close, reveals; returns both transactions' digests. */
export async function attest(deps: AttestDeps, attester: Attester, at: TallyCoordinates, digests: BuildDigests): Promise<{ committed: string; revealed: string }> {
  const nonce = new Uint8Array(randomBytes(32));
  const commitment = commitmentOf(hexToBytes(digests.tarSha256), hexToBytes(digests.manifestRoot), attester.providerId, nonce);
  const committed = await deps.attestations.commitBuild(attester, at, commitment);
  deps.onCommitted?.(committed.commitUntilMs);
  for (let now = await deps.clockMs(); now < committed.commitUntilMs; now = await deps.clockMs()) await deps.sleep(Math.min(committed.commitUntilMs - now, 5_000));
  const revealed = await deps.attestations.revealBuild(attester, at, digests, nonce);
  return { committed: committed.digest, revealed: revealed.digest };
}
