/**
 * The pure TypeScript twin of contracts/sources/attestation.move: build attestations with commit-then-reveal, their
 * tally per (repository, commit, build key) as a dynamic field of the Market, and a lease's required number of
 * agreeing attestations as a dynamic field of the Lease. Same checks in the same order, same abort codes (a test
 * reads the Move source and compares); contracts/tests/attestation_scenarios.json runs against both.
 */
import { bcs } from '@mysten/bcs';
import { sha256 } from '@noble/hashes/sha2.js';
import { MoveAbort } from './abort-codes.ts';
import { Bytes, ID, U64 } from './bcs.ts';
import type { RepositoryValue } from './bcs.ts';
import type { MoveContext, TableStore } from './context.ts';
import { LeaseState } from './market-bcs.ts';
import type { AdminCapValue, LeaseValue, MarketValue, ProviderCapValue, ProviderValue } from './market-bcs.ts';
import { leaseStateAt } from './market-model.ts';

export const ATTESTATION_MODULE = 'attestation';

export const DEFAULT_COMMIT_MS = 600_000n;
export const DEFAULT_REVEAL_MS = 86_400_000n;
export const MAX_ATTESTERS = 64;
export const MAX_REQUIRED = 16n;

/** A tally's state, as `status_of` numbers it. */
export const TallyStatus = { pending: 0, agreed: 1, disputed: 2 } as const;
export type TallyStatusName = keyof typeof TallyStatus;
export const TALLY_STATUS_NAMES = Object.keys(TallyStatus) as TallyStatusName[];

/** Abort codes of the `attestation` module, name → number, as its `const E…: u64` constants. */
export const AttestationAbortCode = {
  /** The ProviderCap is not the Provider's. */
  ENotProvider: 0,
  /** The provider's stake is under the market's minimum, or it is unbonding. */
  ENotStaked: 1,
  /** A commit id is 20 or 32 bytes. */
  EInvalidCommit: 2,
  /** A build key, commitment, tar sha256 and manifest root are 32 bytes each. */
  EInvalidDigest: 3,
  /** The tally's commit window has closed. */
  ECommitClosed: 4,
  /** This provider already committed to this tally. */
  EAlreadyCommitted: 5,
  /** The tally has MAX_ATTESTERS commitments. */
  ETallyFull: 6,
  /** This provider has no commitment in this tally. */
  ENoCommitment: 7,
  /** The commit window is still open: nobody reveals before it closes. */
  ERevealTooEarly: 8,
  /** The reveal window has closed. */
  ERevealTooLate: 9,
  /** This provider already revealed. */
  EAlreadyRevealed: 10,
  /** The revealed digests and nonce do not hash to the provider's commitment. */
  EWrongReveal: 11,
  /** A window length is zero. */
  EInvalidWindow: 12,
  /** Only the lease's tenant sets its requirement. */
  ENotTenant: 13,
  /** The lease is closed. */
  ELeaseClosed: 14,
  /** A lease requires at most MAX_REQUIRED agreeing attestations. */
  ETooManyRequired: 15,
} as const;

export type AttestationAbortName = keyof typeof AttestationAbortCode;

const namesByCode = new Map<number, AttestationAbortName>((Object.entries(AttestationAbortCode) as [AttestationAbortName, number][]).map(([name, code]) => [code, name]));

/** The `attestation` constant's name for an abort code raised in that module, or undefined. */
export function attestationAbortName(code: number): AttestationAbortName | undefined {
  return namesByCode.get(code);
}

/** A Move abort raised in module `attestation`. */
export class AttestationAbort extends MoveAbort<AttestationAbortName> {
  constructor(functionName: string, name: AttestationAbortName) {
    super(ATTESTATION_MODULE, functionName, name, AttestationAbortCode[name]);
  }
}

/** Fieldless keys: Move stores them with one `dummy_field: bool`. */
const Unit = (name: string) => bcs.struct(name, { dummy_field: bcs.bool() });
export const WindowsKey = Unit('WindowsKey');
export const RequiredKey = Unit('RequiredKey');
export const Windows = bcs.struct('Windows', { commit_ms: U64, reveal_ms: U64 });
export const TallyKey = bcs.struct('TallyKey', { repository: ID, commit: Bytes, build_key: Bytes });
export const Commitment = bcs.struct('Commitment', { provider: ID, hash: Bytes });
export const Reveal = bcs.struct('Reveal', { provider: ID, tar_sha256: Bytes, manifest_root: Bytes });
export const Tally = bcs.struct('Tally', { commit_until_ms: U64, reveal_until_ms: U64, commitments: bcs.vector(Commitment), reveals: bcs.vector(Reveal) });
export const BuildCommitted = bcs.struct('BuildCommitted', {
  repository: ID,
  commit: Bytes,
  build_key: Bytes,
  provider: ID,
  commit_until_ms: U64,
  reveal_until_ms: U64,
});
export const BuildRevealed = bcs.struct('BuildRevealed', {
  repository: ID,
  commit: Bytes,
  build_key: Bytes,
  provider: ID,
  tar_sha256: Bytes,
  manifest_root: Bytes,
  agreeing: U64,
  reveals: U64,
  status: bcs.u8(),
});
export const ReproductionRequired = bcs.struct('ReproductionRequired', { lease: ID, required: U64 });
export type TallyValue = ReturnType<typeof Tally.parse>;
export type TallyKeyValue = ReturnType<typeof TallyKey.parse>;

/** Every struct of the module by name (the devnet's type list, pure values and events). */
export const AttestationStructs = { WindowsKey, Windows, TallyKey, Commitment, Reveal, Tally, RequiredKey, BuildCommitted, BuildRevealed, ReproductionRequired };

export function attestationType(pkg: string, name: keyof typeof AttestationStructs): string {
  return `${pkg}::${ATTESTATION_MODULE}::${name}`;
}

const WINDOWS_KEY_BCS = WindowsKey.serialize({ dummy_field: false }).toBytes();
/** The BCS of the Lease's requirement field name (`RequiredKey()`). */
export const REQUIRED_KEY_BCS = RequiredKey.serialize({ dummy_field: false }).toBytes();

/** The BCS of a tally's field name on the Market. */
export function tallyKeyBcs(key: TallyKeyValue): Uint8Array {
  return TallyKey.serialize(key).toBytes();
}

function check(condition: boolean, functionName: string, name: AttestationAbortName): asserts condition {
  if (!condition) throw new AttestationAbort(functionName, name);
}

const equal = (a: Uint8Array, b: Uint8Array) => a.length === b.length && a.every((byte, i) => byte === b[i]);

/** `commitment_of`: sha2_256(tar_sha256 ‖ manifest_root ‖ provider id bytes ‖ nonce). */
export function commitmentOf(tarSha256: Uint8Array, manifestRoot: Uint8Array, provider: string, nonce: Uint8Array): Uint8Array {
  return sha256(new Uint8Array([...tarSha256, ...manifestRoot, ...ID.serialize(provider).toBytes(), ...nonce]));
}

/** `status_of`: disputed once two digest pairs differ, agreed once two providers revealed the same one. */
export function statusOf(tally: TallyValue): TallyStatusName {
  const [first] = tally.reveals;
  if (first === undefined) return 'pending';
  const same = (r: { tar_sha256: Uint8Array; manifest_root: Uint8Array }) => equal(r.tar_sha256, first.tar_sha256) && equal(r.manifest_root, first.manifest_root);
  if (tally.reveals.some((r) => !same(r))) return 'disputed';
  return tally.reveals.length >= 2 ? 'agreed' : 'pending';
}

/** The tally stored under `key` on the Market, or null before its first commitment. */
export function tallyOf(tables: TableStore, pkg: string, market: MarketValue, key: TallyKeyValue): TallyValue | null {
  const value = tables.get(market.id, attestationType(pkg, 'TallyKey'), tallyKeyBcs(key));
  return value === null ? null : Tally.parse(value);
}

function windowsOf(tables: TableStore, pkg: string, market: MarketValue): { commit_ms: bigint; reveal_ms: bigint } {
  const value = tables.get(market.id, attestationType(pkg, 'WindowsKey'), WINDOWS_KEY_BCS);
  return value === null ? { commit_ms: DEFAULT_COMMIT_MS, reveal_ms: DEFAULT_REVEAL_MS } : Windows.parse(value);
}

function putTally(ctx: MoveContext, market: MarketValue, key: TallyKeyValue, tally: TallyValue, exists: boolean): void {
  const args = [market.id, attestationType(ctx.packageId, 'TallyKey'), tallyKeyBcs(key), attestationType(ctx.packageId, 'Tally'), Tally.serialize(tally).toBytes()] as const;
  if (exists) ctx.tables.set(...args);
  else ctx.tables.add(...args);
}

/** `set_windows`: the commit and reveal windows of tallies opened from now on. */
export function setWindows(ctx: MoveContext, market: MarketValue, _admin: AdminCapValue, commitMs: bigint, revealMs: bigint): void {
  check(commitMs > 0n && revealMs > 0n, 'set_windows', 'EInvalidWindow');
  const keyType = attestationType(ctx.packageId, 'WindowsKey');
  const value = Windows.serialize({ commit_ms: commitMs, reveal_ms: revealMs }).toBytes();
  if (ctx.tables.get(market.id, keyType, WINDOWS_KEY_BCS) === null) ctx.tables.add(market.id, keyType, WINDOWS_KEY_BCS, attestationType(ctx.packageId, 'Windows'), value);
  else ctx.tables.set(market.id, keyType, WINDOWS_KEY_BCS, attestationType(ctx.packageId, 'Windows'), value);
}

/** `commit_build`: the provider commits to a digest of `commit` built under `buildKey`; the first opens the tally. */
export function commitBuild(
  ctx: MoveContext,
  market: MarketValue,
  provider: ProviderValue,
  cap: ProviderCapValue,
  repo: RepositoryValue,
  commit: Uint8Array,
  buildKey: Uint8Array,
  commitment: Uint8Array,
  nowMs: bigint,
): void {
  const fn = 'commit_build';
  check(cap.provider === provider.id, fn, 'ENotProvider');
  check(provider.stake.value >= market.min_stake && provider.unbonds_at_ms === null, fn, 'ENotStaked');
  check(commit.length === 20 || commit.length === 32, fn, 'EInvalidCommit');
  check(buildKey.length === 32 && commitment.length === 32, fn, 'EInvalidDigest');
  const windows = windowsOf(ctx.tables, ctx.packageId, market);
  const key = { repository: repo.id, commit, build_key: buildKey };
  const existing = tallyOf(ctx.tables, ctx.packageId, market, key);
  const commitUntil = nowMs + windows.commit_ms;
  const tally = existing ?? { commit_until_ms: commitUntil, reveal_until_ms: commitUntil + windows.reveal_ms, commitments: [], reveals: [] };
  check(nowMs < tally.commit_until_ms, fn, 'ECommitClosed');
  check(!tally.commitments.some((c) => c.provider === provider.id), fn, 'EAlreadyCommitted');
  check(tally.commitments.length < MAX_ATTESTERS, fn, 'ETallyFull');
  tally.commitments.push({ provider: provider.id, hash: commitment });
  putTally(ctx, market, key, tally, existing !== null);
  ctx.emit(`${ATTESTATION_MODULE}::BuildCommitted`, BuildCommitted.serialize({
    repository: repo.id,
    commit,
    build_key: buildKey,
    provider: provider.id,
    commit_until_ms: tally.commit_until_ms,
    reveal_until_ms: tally.reveal_until_ms,
  }).toBytes());
}

/** `reveal_build`: the provider reveals the digests it committed to; they count in the tally. */
export function revealBuild(
  ctx: MoveContext,
  market: MarketValue,
  provider: ProviderValue,
  cap: ProviderCapValue,
  repo: RepositoryValue,
  commit: Uint8Array,
  buildKey: Uint8Array,
  tarSha256: Uint8Array,
  manifestRoot: Uint8Array,
  nonce: Uint8Array,
  nowMs: bigint,
): void {
  const fn = 'reveal_build';
  check(cap.provider === provider.id, fn, 'ENotProvider');
  const key = { repository: repo.id, commit, build_key: buildKey };
  const tally = tallyOf(ctx.tables, ctx.packageId, market, key);
  check(tally !== null, fn, 'ENoCommitment');
  const committed = tally.commitments.find((c) => c.provider === provider.id);
  check(committed !== undefined, fn, 'ENoCommitment');
  check(nowMs >= tally.commit_until_ms, fn, 'ERevealTooEarly');
  check(nowMs < tally.reveal_until_ms, fn, 'ERevealTooLate');
  check(!tally.reveals.some((r) => r.provider === provider.id), fn, 'EAlreadyRevealed');
  check(tarSha256.length === 32 && manifestRoot.length === 32, fn, 'EInvalidDigest');
  check(equal(commitmentOf(tarSha256, manifestRoot, provider.id, nonce), committed.hash), fn, 'EWrongReveal');
  tally.reveals.push({ provider: provider.id, tar_sha256: tarSha256, manifest_root: manifestRoot });
  putTally(ctx, market, key, tally, true);
  const agreeing = tally.reveals.filter((r) => equal(r.tar_sha256, tarSha256) && equal(r.manifest_root, manifestRoot)).length;
  ctx.emit(`${ATTESTATION_MODULE}::BuildRevealed`, BuildRevealed.serialize({
    repository: repo.id,
    commit,
    build_key: buildKey,
    provider: provider.id,
    tar_sha256: tarSha256,
    manifest_root: manifestRoot,
    agreeing: BigInt(agreeing),
    reveals: BigInt(tally.reveals.length),
    status: TallyStatus[statusOf(tally)],
  }).toBytes());
}

/** The lease's requirement read through the table store; 0 when never set. */
export function requiredOf(tables: TableStore, pkg: string, lease: LeaseValue): bigint {
  const value = tables.get(lease.id, attestationType(pkg, 'RequiredKey'), REQUIRED_KEY_BCS);
  return value === null ? 0n : U64.parse(value);
}

/** `require_reproduced`: the tenant sets how many other providers must agree before a release rolls out. */
export function requireReproduced(ctx: MoveContext, lease: LeaseValue, required: bigint, nowMs: bigint): void {
  const fn = 'require_reproduced';
  check(ctx.sender === lease.tenant, fn, 'ENotTenant');
  check(leaseStateAt(lease, nowMs) !== LeaseState.closed, fn, 'ELeaseClosed');
  check(required <= MAX_REQUIRED, fn, 'ETooManyRequired');
  const keyType = attestationType(ctx.packageId, 'RequiredKey');
  const value = U64.serialize(required).toBytes();
  if (ctx.tables.get(lease.id, keyType, REQUIRED_KEY_BCS) === null) ctx.tables.add(lease.id, keyType, REQUIRED_KEY_BCS, 'u64', value);
  else ctx.tables.set(lease.id, keyType, REQUIRED_KEY_BCS, 'u64', value);
  ctx.emit(`${ATTESTATION_MODULE}::ReproductionRequired`, ReproductionRequired.serialize({ lease: lease.id, required }).toBytes());
}

/** `tally_summary`: (status, commitments, reveals); (pending, 0, 0) before the first commitment. */
export function tallySummary(ctx: MoveContext, market: MarketValue, key: TallyKeyValue): [number, bigint, bigint] {
  const tally = tallyOf(ctx.tables, ctx.packageId, market, key);
  if (tally === null) return [TallyStatus.pending, 0n, 0n];
  return [TallyStatus[statusOf(tally)], BigInt(tally.commitments.length), BigInt(tally.reveals.length)];
}
