import { createHash } from 'node:crypto';
import { blobIdFromBytes } from '../core/blob-id-codec.ts';
import { WalrusGitError, messageOf } from '../core/errors.ts';
import type { Log } from '../core/log.ts';
import { formatOfHashLength } from '../core/object-id.ts';
import { isValidRefName, REF_NAME_RULE } from '../contract/ref-name.ts';
import { ancestryQuestions, dropMovedRefs, notWriterReason, planPush, protectedRefReason, refuseRefClashes, updatesOf } from '../core/push-plan.ts';
import type { Ancestry, RefDecision, RefRequest } from '../core/push-plan.ts';
import { batchUpdates, describeLimit } from '../core/push-batches.ts';
import type { BlobStore } from '../ports/blob-store.ts';
import type { AccessHistory } from '../ports/access-history.ts';
import type { KeyService } from '../ports/key-service.ts';
import type { Ledger, PackEntry, RepositoryInfo } from '../ports/ledger.ts';
import type { PushResult } from '../ports/helper-backend.ts';
import type { PushRequest } from '../ports/helper-backend.ts';
import type { LeaseInfo } from '../ports/market.ts';
import { deployLines } from './market/push-deploys.ts';
import { NoKeyServersError, ObjectFormatMismatchError } from './errors.ts';
import type { LocalRepository } from '../ports/local-repository.ts';
import { formatBytes, rateOf } from './progress.ts';
import { readRemote } from './remote-state.ts';
import type { RemoteSnapshot } from './remote-state.ts';
import { choosePackIdentity } from './pack-identity.ts';
import { encryptingSpool, newPackSealing } from './sealed-packs.ts';

export interface PushDeps {
  ledger: Ledger;
  blobStore: BlobStore;
  local: LocalRepository;
  log: Log;
  /** Seals the data key of each pack pushed to a private repository (never used for a public one). */
  keyService?: KeyService;
  /** The repository's leases (the compute market's), to tell which deploy the push; absent where there is no market. */
  leasesOf?: (repositoryId: string) => Promise<LeaseInfo[]>;
  /** Lets a private repository's packs share a Seal identity while nobody lost access; each pack gets its own without it. */
  accessHistory?: AccessHistory;
}

export interface PushSettings {
  atomic: boolean;
  dryRun: boolean;
  progress: boolean;
  /** `--force-with-lease` expectations: ref → expected id (null: must not exist). */
  leases: ReadonlyMap<string, string | null>;
}

/** How long a push that landed waits for its lease lookup (started beside the upload) before answering git without it. */
const LEASE_LOOKUP_GRACE_MS = 250;

/** How often a batch is retried after refs moved under it (each retry drops the refs that moved). */
const MAX_ATTEMPTS = 5;

/**
 * One push (docs/architecture.md, Push): plan against chain state, stream a thin pack to the blob store, then commit
 * the refs in as few transactions as Sui's limits allow (one, unless thousands of refs move), each compare-and-swapped
 * by the contract. Answers only after the transactions are final.
 */
export async function pushRefs(
  deps: PushDeps,
  repositoryId: string,
  requests: readonly PushRequest[],
  settings: PushSettings,
  /** Chain state just read (by `list for-push`); read afresh when absent. */
  known?: RemoteSnapshot,
): Promise<PushResult[]> {
  const { ledger, local, log } = deps;
  const snapshot = known ?? (await readRemote(ledger, repositoryId));
  const remoteFormat = formatOfHashLength(snapshot.info.hashLength);
  // Each of these local questions is a git process of its own: asked side by side. The objects the remote's refs name
  // that this repository has are what the pack leaves out; asked now, beside the planning, wasted only when nothing
  // is to be pushed.
  const present = local.presentObjects([...snapshot.refs.values()]);
  present.catch(() => {}); // awaited below unless the push stops first
  const [localFormat, resolved] = await Promise.all([local.objectFormat(), local.resolve(requests.flatMap((r) => (r.src === null ? [] : [r.src])))]);
  if (remoteFormat !== null && remoteFormat !== localFormat) throw new ObjectFormatMismatchError(remoteFormat, localFormat);

  const refRequests: RefRequest[] = [];
  const unresolved: PushResult[] = [];
  let resolvedIndex = 0;
  for (const request of requests) {
    const next = request.src === null ? null : resolved[resolvedIndex++];
    if (request.src !== null && next === null) {
      unresolved.push({ dst: request.dst, ok: false, reason: `src refspec ${request.src} does not match any object` });
      continue;
    }
    // The contract's rule is narrower than git's (printable ASCII): refused here, before a pack is paid for.
    if (!isValidRefName(request.dst)) {
      unresolved.push({ dst: request.dst, ok: false, reason: `invalid ref name: ${REF_NAME_RULE}` });
      continue;
    }
    const lease = settings.leases.has(request.dst) ? { lease: settings.leases.get(request.dst)! } : {};
    refRequests.push({ dst: request.dst, new: next, force: request.force, ...lease });
  }
  const questions = ancestryQuestions(refRequests, snapshot.refs);
  const answers = await local.ancestry(questions);
  const ancestry = new Map<string, Ancestry>(questions.map((q, i) => [q.dst, answers[i]!]));
  let decisions = planPush(refRequests, { ...snapshot.info, refs: snapshot.refs }, await ledger.signerAddress(), ancestry, settings.atomic);
  if (settings.atomic && unresolved.length > 0) decisions = decisions.map((d) => (d.kind === 'update' ? { kind: 'reject', dst: d.dst, reason: 'atomic push failed' } : d));

  const { batches, limit } = batchUpdates(decisions.flatMap((d) => (d.kind === 'update' ? [d] : [])));
  if (settings.atomic && limit !== null) {
    // Refused before anything is uploaded: an atomic push must be one transaction.
    const reason = `atomic push failed: ${updatesOf(decisions).length} ref updates need ${batches.length} transactions; ${describeLimit(limit)}`;
    decisions = decisions.map((d) => (d.kind === 'update' ? { kind: 'reject', dst: d.dst, reason } : d));
  }

  if (updatesOf(decisions).length > 0 && !settings.dryRun) {
    // Which leases deploy these refs is asked beside the upload, never before it: it is news, not part of the push.
    const leases = deps.leasesOf?.(repositoryId).catch((error) => { log.debug(`lease lookup: ${messageOf(error)}`); return []; });
    const include = [...new Set(updatesOf(decisions).flatMap((u) => (u.new === null ? [] : [u.new])))];
    // Once the pack's size is known, the first transaction is prepared (its gas dry run) while the upload finishes.
    const first = updatesOf(batches[0] ?? []);
    const prepare = first.length > 0 && ledger.preparePush ? (standIn: PackEntry) => ledger.preparePush!(repositoryId, first, standIn) : undefined;
    const pack = include.length === 0 ? null : await uploadPack(deps, include, [...(await present)], settings.progress, snapshot.info.private ? snapshot.info : null, {
      // Once git packs, not before, so that they never delay its start: the signing code (~0.1-0.2 s of this thread,
      // while git counts objects and computes deltas, before the pack's first bytes; its garbage is gone before the
      // encoder's memory grows), and the blob-id encoder where the session's `list` did not start it already.
      packing: () => {
        deps.blobStore.prepareWrites?.();
        ledger.prepareWrites?.();
      },
      ...(prepare ? { shaped: prepare } : {}),
    });
    // Signing comes next and loads what it needs: free the blob-id encoders first, so the two never add up.
    await deps.blobStore.release?.();
    const { outcome, seqs } = await commitBatches(deps, repositoryId, batches, pack, settings.atomic);
    decisions = decisions.map((d) => outcome.get(d.dst) ?? d);
    await Promise.all([keepListing(deps, repositoryId, snapshot, seqs, updatesOf(decisions)), leases && tellDeploys(log, leases, updatesOf(decisions))]);
  } else if (settings.dryRun) {
    log.debug(`dry run: no upload and no transaction (${batches.length} transaction(s) planned)`);
  }
  return [...decisions.map(resultOf), ...unresolved];
}

/**
 * Keeps the refs as this push left them, for the next `list` (remote-state.ts): it then reads only the repository
 * object, not the refs table (two round trips fewer for the next push or fetch). Only when this push's transactions
 * are the only changes since the snapshot (the seqs they reached follow the snapshot's one by one: nobody else pushed
 * or repacked between the reads and the last of them), so the refs are exactly the snapshot's with the updates that
 * landed. Otherwise nothing is kept and the next `list` reads the refs as before.
 */
async function keepListing(deps: PushDeps, repositoryId: string, snapshot: RemoteSnapshot, seqs: readonly number[], landed: readonly { name: string; new: string | null }[]): Promise<void> {
  if (seqs.length === 0 || seqs.some((seq, i) => seq !== snapshot.info.seq + 1 + i)) return;
  const refs = new Map(snapshot.refs);
  for (const update of landed) {
    if (update.new === null) refs.delete(update.name);
    else refs.set(update.name, update.new);
  }
  // A listing that cannot be written is only a round trip more for the next `list`.
  await deps.local.writeListedRefs(repositoryId, { seq: seqs.at(-1)!, refs }).catch((error: unknown) => deps.log.debug(`the refs pushed are not kept for the next list: ${messageOf(error)}`));
}

/** Says which open leases deploy the refs that landed, if the lookup answers in time. */
async function tellDeploys(log: Log, lookup: Promise<LeaseInfo[]>, landed: readonly { name: string; new: string | null }[]): Promise<void> {
  const moved = new Map(landed.flatMap((update) => (update.new === null ? [] : [[update.name, update.new] as const])));
  if (moved.size === 0) return;
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<null>((resolve) => { timer = setTimeout(() => resolve(null), LEASE_LOOKUP_GRACE_MS); });
  const leases = await Promise.race([lookup, late]);
  clearTimeout(timer);
  for (const line of deployLines(leases ?? [], moved)) log.info(line);
}

/**
 * Commits the batches one transaction each, in order: the pack rides with the first batch that lands, each batch is
 * compare-and-swapped on its own, and a batch that fails after others landed is reported ref by ref (what landed
 * stays). Returns the final decision of every batched ref, and the repository's seq after each transaction that
 * landed.
 */
async function commitBatches(deps: PushDeps, repositoryId: string, batches: RefDecision[][], uploaded: PackEntry | null, atomic: boolean): Promise<{ outcome: Map<string, RefDecision>; seqs: number[] }> {
  const outcome = new Map<string, RefDecision>();
  const seqs: number[] = [];
  let pack = uploaded;
  for (const [index, batch] of batches.entries()) {
    let decided: RefDecision[];
    try {
      const committed = await commit(deps, repositoryId, batch, pack, atomic);
      decided = committed.decisions;
      if (committed.seq !== null) seqs.push(committed.seq);
    } catch (error) {
      if (index === 0) throw error; // nothing landed: the push failed as a whole
      const reason = `not pushed: transaction ${index + 1} of ${batches.length} failed (${messageOf(error)}); the refs of the transactions before it were pushed`;
      for (const d of batches.slice(index).flat()) outcome.set(d.dst, { kind: 'reject', dst: d.dst, reason });
      return { outcome, seqs };
    }
    if (updatesOf(decided).length > 0) pack = null;
    if (batches.length > 1) deps.log.debug(`transaction ${index + 1}/${batches.length}: ${updatesOf(decided).length} of ${batch.length} ref(s) landed`);
    for (const d of decided) outcome.set(d.dst, d);
  }
  return { outcome, seqs };
}

/**
 * Sends the transaction. When the chain refuses some refs (they moved under the push, or became protected), those
 * are reported and the rest retried without them; with `atomic`, the whole batch fails instead.
 */
async function commit(deps: PushDeps, repositoryId: string, planned: RefDecision[], pack: PackEntry | null, atomic: boolean): Promise<{ decisions: RefDecision[]; seq: number | null }> {
  const { ledger, log } = deps;
  let decisions = planned;
  for (let attempt = 1; attempt <= MAX_ATTEMPTS; attempt++) {
    const updates = updatesOf(decisions);
    if (updates.length === 0) return { decisions, seq: null };
    try {
      const receipt = await ledger.push(repositoryId, updates, pack);
      log.debug(`push landed: seq ${receipt.seq}, transaction ${receipt.digest}`);
      return { decisions, seq: receipt.seq };
    } catch (error) {
      const refusal = refusalOf(error);
      if (refusal === null) throw error;
      const refused = await refuseWhatChanged(ledger, repositoryId, decisions, refusal);
      if (updatesOf(refused).length === updates.length) throw error; // nothing we can see changed: not a race we understand
      log.debug(`the chain refused part of the push (${refusal}, attempt ${attempt}); ${atomic ? 'failing the batch' : 'retrying without those refs'}`);
      if (atomic) return { decisions: refused.map((d) => (d.kind === 'update' ? { kind: 'reject', dst: d.dst, reason: 'atomic push failed' } : d)), seq: null };
      decisions = refused;
    }
  }
  return { decisions: decisions.map((d) => (d.kind === 'update' ? { kind: 'reject', dst: d.dst, reason: 'fetch first' } : d)), seq: null };
}

/** Re-reads the chain and refuses the updates it no longer allows, each in the words that fit. */
async function refuseWhatChanged(ledger: Ledger, repositoryId: string, decisions: RefDecision[], refusal: 'conflict' | 'protected' | 'not-writer'): Promise<RefDecision[]> {
  if (refusal === 'conflict') {
    const refs = await ledger.listRefs(repositoryId);
    return refuseRefClashes(dropMovedRefs(decisions, refs), refs);
  }
  const state = await ledger.getRepository(repositoryId);
  const signer = await ledger.signerAddress();
  return decisions.map((d) => {
    if (d.kind !== 'update') return d;
    if (refusal === 'not-writer') return { kind: 'reject', dst: d.dst, reason: notWriterReason(signer, state.owner) };
    const forbidden = state.protectedRefs.includes(d.dst) && (d.update.force || d.update.new === null);
    return forbidden ? { kind: 'reject', dst: d.dst, reason: protectedRefReason(d.dst, state.owner) } : d;
  });
}

/** Sorts a refused transaction: a ref moved (retry without it), a protected ref, a non-writer, or not a refusal. */
function refusalOf(error: unknown): 'conflict' | 'protected' | 'not-writer' | null {
  if (!(error instanceof WalrusGitError)) return null;
  const name = error.data.abortName ?? error.code;
  // A ref created meanwhile can also make a new one clash as file and directory (ERefClash): read again, like a move.
  if (name === 'ERefMismatch' || name === 'ERefExists' || name === 'ERefClash') return 'conflict';
  if (name === 'EProtected') return 'protected';
  if (name === 'ENotWriter') return 'not-writer';
  return null;
}

function resultOf(decision: RefDecision): PushResult {
  if (decision.kind === 'update') return { dst: decision.dst, ok: true };
  return { dst: decision.dst, ok: false, reason: decision.kind === 'up-to-date' ? 'up to date' : decision.reason };
}

/** What a caller of `uploadPack` starts along the way, each called once. */
export interface UploadHooks {
  /** git is packing. */
  packing?: () => void;
  /** The pack's size is known: an entry of its shape (stand-in blob ids and digest). */
  shaped?: (standIn: PackEntry) => void;
}

/**
 * Uploads the pack `git pack-objects` writes, in blobs of at most `maxBlobSize` bytes, hashing as it goes. git writes
 * to a spool file at its own pace while chunks upload one at a time from a single buffer in shared memory, which the
 * blob-id worker reads in place (see src/walrus-protocol/blob-id.ts): a push of any size holds one chunk. Returns null for an
 * empty pack (every object is already on the remote): no blob. For a private repository (`privateTo`) the
 * pack is encrypted frame by frame on its way (src/core/pack-cipher.ts): size, sha256 and blob ids are then those of
 * the stored ciphertext, and the entry carries the sealed data key.
 */
export async function uploadPack(
  deps: Pick<PushDeps, 'local' | 'blobStore' | 'log' | 'keyService' | 'accessHistory'>,
  include: string[],
  exclude: string[],
  progress: boolean,
  privateTo: RepositoryInfo | null,
  hooks: UploadHooks = {},
): Promise<PackEntry | null> {
  const { local, blobStore, log } = deps;
  const hash = createHash('sha256');
  const chunks: string[] = [];
  let size = 0;
  const cost = { encoded: 0, endEpoch: Infinity };
  const started = Date.now();
  // Read while git packs: the access state behind a shared identity is a few chain reads and a signature.
  const identity = privateTo === null ? null : choosePackIdentity(deps.accessHistory, privateTo, log);
  identity?.catch(() => {}); // awaited below unless the pack is empty
  const spooled = await local.packObjects(include, exclude, progress);
  hooks.packing?.();
  let pack = spooled;
  let sealedKey: string | undefined;
  let shaped = false;
  try {
    const header = new Uint8Array(12);
    if ((await spooled.read(0, header)) === header.length && packObjectCount(header) === 0) return null;
    if (privateTo !== null) {
      if (deps.keyService === undefined) throw new NoKeyServersError(privateTo.id);
      const { identity: sealedUnder, identityKey } = await identity!;
      const sealing = await newPackSealing(deps.keyService, sealedUnder, identityKey);
      sealedKey = sealing.sealedKey;
      pack = encryptingSpool(spooled, sealing.encryptor);
    }
    // The pack's shape is reported once known: when git has written it all (usually while the first chunks are still
    // encoding), or else at its last chunk, a short read (an encrypted spool does not know its size ahead).
    const shape = (total: number) => {
      if (shaped) return;
      shaped = true;
      hooks.shaped?.(packShape(Math.max(1, Math.ceil(total / blobStore.maxBlobSize)), total, sealedKey));
    };
    pack.size?.().then(shape, () => {});
    const buffer = new Uint8Array(new SharedArrayBuffer(blobStore.maxBlobSize));
    for (let length = await pack.read(0, buffer); length > 0; length = await pack.read(size, buffer)) {
      const chunk = buffer.subarray(0, length);
      size += length;
      if (length < buffer.length) shape(size);
      if (progress) log.progress(`Uploading pack: ${chunks.length + 1} chunk(s), ${formatBytes(size)} | ${rateOf(size, started)}`);
      const stored = blobStore.write(chunk);
      hash.update(chunk); // while the upload runs
      const blob = await stored;
      chunks.push(blob.blobId);
      cost.encoded += blob.encodedSize ?? 0;
      cost.endEpoch = Math.min(cost.endEpoch, blob.endEpoch ?? Infinity);
    }
  } finally {
    shaped = true; // too late to prepare anything
    await pack.discard();
  }
  if (progress) log.progress(`Uploading pack: ${chunks.length} chunk(s), ${formatBytes(size)} | ${rateOf(size, started)}, done.`, true);
  log.debug(`Storage: ${chunks.length} blob(s) of ${formatBytes(size)}${cost.encoded > 0 ? `, ${formatBytes(cost.encoded)} encoded on Walrus (what storage is paid for)` : ''}${Number.isFinite(cost.endEpoch) ? `, stored until Walrus epoch ${cost.endEpoch}` : ''}`);
  const entry: PackEntry = { chunks, size, sha256: hash.digest('hex') };
  if (sealedKey !== undefined) entry.sealedKey = sealedKey;
  return entry;
}

const STAND_IN_BLOB_ID = blobIdFromBytes(new Uint8Array(32));

/** A pack entry of the given shape whose blob ids and digest are stand-ins (for preparing the transaction early). */
function packShape(chunks: number, size: number, sealedKey: string | undefined): PackEntry {
  const entry: PackEntry = { chunks: Array.from({ length: chunks }, () => STAND_IN_BLOB_ID), size, sha256: '0'.repeat(64) };
  if (sealedKey !== undefined) entry.sealedKey = sealedKey;
  return entry;
}

/** The object count of a pack, from its 12-byte header ("PACK", version, count). */
function packObjectCount(header: Uint8Array): number {
  return new DataView(header.buffer, header.byteOffset, header.byteLength).getUint32(8);
}
