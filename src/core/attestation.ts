/**
 * Build attestations in the user's terms (docs/architecture.md, Reproduced builds): a tally as the chain holds it,
 * the judgement a provider makes of it before a release, and the refusals of the `attestation` module in words.
 * Pure.
 */
import { WalrusGitError } from './errors.ts';

export type TallyStatus = 'pending' | 'agreed' | 'disputed';

/** What one provider revealed. */
export interface RevealedBuild {
  provider: string;
  tarSha256: string;
  manifestRoot: string;
}

/** One tally: who committed, who revealed what, and the windows. */
export interface TallyView {
  commitUntilMs: number;
  revealUntilMs: number;
  committed: string[];
  revealed: RevealedBuild[];
  status: TallyStatus;
}

/** Where a provider's release stands against its lease's requirement. */
export type Reproduction =
  | { state: 'reproduced'; agreeing: string[] }
  | { state: 'waiting'; agreeing: string[]; required: number; committed: number; revealUntilMs: number | null }
  | { state: 'disputed'; agreeing: string[]; differing: RevealedBuild[] };

/**
 * Judges `tally` for the provider `self` that built `own`: disputed as soon as another provider revealed a different
 * digest pair (the release is held, whatever the count), reproduced once `required` other providers revealed the same
 * one, waiting otherwise. The provider's own reveal never counts: a provider cannot vouch for itself.
 */
export function judgeReproduction(tally: TallyView | null, self: string, own: { tarSha256: string; manifestRoot: string }, required: number): Reproduction {
  const others = (tally?.revealed ?? []).filter((r) => r.provider !== self);
  const same = (r: RevealedBuild) => r.tarSha256 === own.tarSha256 && r.manifestRoot === own.manifestRoot;
  const agreeing = others.filter(same).map((r) => r.provider);
  const differing = others.filter((r) => !same(r));
  if (differing.length > 0) return { state: 'disputed', agreeing, differing };
  if (agreeing.length >= required) return { state: 'reproduced', agreeing };
  return { state: 'waiting', agreeing, required, committed: tally?.committed.length ?? 0, revealUntilMs: tally?.revealUntilMs ?? null };
}

/** What the attestations say of one deploy record. */
export interface RecordReproduction {
  /** Providers other than the record's that revealed its tar sha256 (under any build key: equal digests, equal bytes). */
  reproducedBy: string[];
  /** Reveals of other providers with another tar sha256, each with the build key it was made under. */
  differing: Array<RevealedBuild & { buildKey: string }>;
}

/** Judges a deploy record (built by `record.provider` into tar sha256 `record.sha256`) against its commit's tallies. */
export function reproductionOfRecord(record: { provider: string; sha256: string }, tallies: ReadonlyArray<{ buildKey: string; tally: TallyView }>): RecordReproduction {
  const reproducedBy = new Set<string>();
  const differing: RecordReproduction['differing'] = [];
  for (const { buildKey, tally } of tallies) {
    for (const reveal of tally.revealed) {
      if (reveal.provider === record.provider) continue;
      if (reveal.tarSha256 === record.sha256) reproducedBy.add(reveal.provider);
      else differing.push({ ...reveal, buildKey });
    }
  }
  return { reproducedBy: [...reproducedBy], differing };
}

/** Why the `attestation` module refused, in words, per abort constant. */
const REASONS: Record<string, string> = {
  ENotProvider: "this key does not hold the provider's ProviderCap",
  ENotStaked: "the provider's stake is under the market's minimum or it is unbonding: only a bonded provider with the minimum stake attests",
  EInvalidCommit: 'a commit id is 20 (SHA-1) or 32 (SHA-256) bytes',
  EInvalidDigest: 'a build key, commitment, tar sha256 and manifest root are 32 bytes (64 hex digits) each',
  ECommitClosed: "this build's commit window has closed: attest the next commit, or a build under another key",
  EAlreadyCommitted: 'this provider already committed to this build; reveal it once the commit window closes',
  ETallyFull: 'this build already has the most attesters a tally takes (64)',
  ENoCommitment: 'this provider did not commit to this build before the window closed, so it has nothing to reveal',
  ERevealTooEarly: 'the commit window is still open: reveal after it closes (`git walrus attestations` shows when)',
  ERevealTooLate: 'the reveal window has closed',
  EAlreadyRevealed: 'this provider already revealed this build',
  EWrongReveal: 'the digests and nonce do not open the commitment this provider made (a different build, or a lost nonce)',
  EInvalidWindow: 'commit and reveal windows must be longer than zero',
  ENotTenant: "only the lease's tenant sets how many attestations it requires",
  ELeaseClosed: 'the lease is closed',
  ETooManyRequired: 'a lease requires at most 16 agreeing attestations',
};

/**
 * The chain refused an attestation or a lease's requirement (a Move abort in module `attestation`).
 * What to do: change what the reason names and run the command again.
 */
export class AttestationRefusedError extends WalrusGitError {
  readonly abortName: string;
  constructor(what: string, abortName: string, data: Record<string, unknown> = {}) {
    super('ATTESTATION_REFUSED', `${what} refused: ${REASONS[abortName] ?? abortName}`, { abortName, ...data });
    this.abortName = abortName;
  }
}

/**
 * An attestation that can no longer be made: the tally's commit window closed before this provider committed, or its
 * reveal window before it revealed.
 * What to do: nothing for this build; attest the next commit in time (the commit window opens with a tally's first
 * commitment, `git walrus attestations` shows when it closes).
 */
export class AttestationMissedError extends WalrusGitError {
  constructor(at: { repositoryId: string; commit: string; buildKey: string }, why: string, closedAtMs: number) {
    super('ATTESTATION_MISSED', `the build of ${at.commit} under key ${at.buildKey} cannot be attested any more: ${why} (${new Date(closedAtMs).toISOString()})`, { ...at, closedAtMs });
  }
}
