/**
 * `git walrus verify`: proves a repository's history from chain state and Walrus alone (docs/architecture.md, The push
 * log). 1. the push log replays to the on-chain `log_head`, and the ref and pack tables agree with the events; 2. every
 * live pack is served by Walrus under its blob ids, with the recorded size and sha256; 3. with `deep`, the packs
 * applied in push order hold every commit any ref ever pointed to, with its whole history;
 *    and every history rewrite (forced update, deletion) is listed.
 * A private repository's packs are checked as stored (ciphertext), which anyone can do; `deep` decrypts them, which
 * only its readers can (anyone else is told so before any pack is read).
 */
import type { Log } from '../../core/log.ts';
import { mapOrdered } from '../../core/ordered-parallel.ts';
import { InternalError, UsageError, WalrusGitError } from '../../core/errors.ts';
import { PackDecryptionError } from '../../core/pack-cipher.ts';
import type { BlobStore } from '../../ports/blob-store.ts';
import type { KeyService } from '../../ports/key-service.ts';
import type { Ledger, PackEntry, PushEvent, RepositoryInfo } from '../../ports/ledger.ts';
import type { CertifiedReads, CertifiedRepository, RpcAnswer } from '../../ports/certified.ts';
import { PackKeys } from '../sealed-packs.ts';
import type { Finding } from './finding.ts';
import { findRewrites, type HistoryRewrite } from './rewrites.ts';
import { verifyPushLog } from './verify-log.ts';
import { checkPack, packLabel, packPlaces, type BlobIdOf } from './verify-packs.ts';
import { verifyPackTable, verifyRefs } from './verify-state.ts';
import { DEFAULT_EXPIRY_WARNING_EPOCHS } from '../../core/blob-lifetime.ts';
import { liveLifetimes, type LiveLifetimes } from '../lifetime.ts';

/** What the deep check needs from an object store that packs are added to in push order (src/git/pack-reader.ts). */
export interface PackObjects {
  addPack(bytes: Uint8Array, label: string): Promise<string[]>;
  findMissing(oid: string, seen?: Set<string>): Promise<{ oid: string; referencedBy: string | null } | null>;
  close(): Promise<void>;
}

/** Packs read from Walrus at once (and so, with `deep`, held in memory at once). */
export const PACK_CHECK_CONCURRENCY = 4;

export interface VerifyDeps {
  ledger: Ledger;
  blobStore: BlobStore;
  blobIdOf: BlobIdOf;
  /** Opens an empty object store; needed for `deep`. */
  openPackObjects?: () => Promise<PackObjects>;
  /** Opens a private repository's pack keys, for `deep` (what anyone can check needs no key). */
  keyService?: KeyService;
  /** Given: the repository state checked against is the highest version the validators certified, not one node's word. */
  certified?: CertifiedReads;
  log: Log;
}

/** Where the certified state came from: its checkpoint, and what every configured RPC answered. */
export interface CertifiedSource extends Omit<CertifiedRepository, 'repository'> {
  answers: RpcAnswer[];
}

export interface VerifyReport {
  repository: string;
  seq: number;
  logHead: string;
  recomputedLogHead: string;
  pushes: number;
  packsChecked: number;
  bytesChecked: number;
  /** Present with `deep`. */
  commitsChecked?: number;
  rewrites?: HistoryRewrite[];
  /** How long the live packs stay on Walrus, where it can tell (expired ones are also findings). */
  lifetimes?: LiveLifetimes;
  /** Present when the state was proved against the validators' certificates. */
  certified?: CertifiedSource;
  findings: Finding[];
}

/** The log position a run vouches for: the seq and log head the chain recorded when the run was asked for. */
export type LogPosition = Pick<RepositoryInfo, 'seq' | 'logHead'>;

/** Reads of the chain state a run makes while pushes keep landing, before it gives up. */
const SNAPSHOT_ATTEMPTS = 3;

/** Pushes kept landing while verify read the chain state: nothing was judged; run it again when pushes are quieter. */
export class VerifyRacedError extends WalrusGitError {
  constructor(repository: string, attempts: number) {
    super('VERIFY_RACED', `verify of ${repository} gave up after ${attempts} reads of its chain state: a push landed during each; nothing is wrong with the repository, run verify again when pushes are quieter`, { repository, attempts });
  }
}

interface ChainSnapshot {
  repository: RepositoryInfo;
  certified?: CertifiedSource;
  /** The events up to the repository's seq, and its ref and live pack tables, all read at that one seq. */
  events: PushEvent[];
  refs: Map<string, string>;
  packs: PackEntry[];
}

/**
 * The repository, its events and its tables as of one seq: a push landing between the reads would make the tables
 * disagree with the events and fail checks that hold. The seq is read again after the tables; if it moved, again.
 */
async function readSnapshot(deps: VerifyDeps, id: string): Promise<ChainSnapshot> {
  const { ledger, log } = deps;
  for (let attempt = 1; ; attempt += 1) {
    let certified: CertifiedSource | undefined;
    let repository;
    if (deps.certified) {
      log.progress('proving the repository against the validators\' certificates');
      const { best, answers } = await deps.certified.repository(id);
      const { repository: state, ...source } = best;
      repository = state;
      certified = { ...source, answers };
    } else {
      repository = await ledger.getRepository(id);
    }
    const [events, refs, packs] = await Promise.all([ledger.listPushes(id), ledger.listRefs(id), ledger.listPacks(id, repository.liveFrom)]);
    // A node behind the certified state may answer a lower seq: its tables are then no newer than the state.
    if ((await ledger.getRepository(id)).seq <= repository.seq) {
      return { repository, ...(certified ? { certified } : {}), events: events.filter((event) => event.seq <= repository.seq), refs, packs };
    }
    if (attempt === SNAPSHOT_ATTEMPTS) throw new VerifyRacedError(id, attempt);
    log.progress('a push landed while reading chain state: reading it again');
  }
}

/**
 * `at` pins the log position the run vouches for (a page that asked for it shows verdicts for those pushes): pushes
 * that land after it are read with the tables but judged by a later run.
 */
export async function verifyRepository(deps: VerifyDeps, id: string, options: { deep?: boolean; signal?: AbortSignal; expiryWarningEpochs?: number; at?: LogPosition } = {}): Promise<VerifyReport> {
  const { ledger, log } = deps;
  const deep = options.deep ?? false;
  if (deep && deps.openPackObjects === undefined) throw new InternalError('verify --deep was asked without an object store');
  log.progress('reading chain state');
  const { repository, certified, events, refs, packs } = await readSnapshot(deps, id);
  if (deep && repository.hashLength === 32) throw new UsageError('verify --deep reads SHA-1 repositories only; this one uses SHA-256');
  log.progress(`reading chain state: ${events.length} push events, ${refs.size} refs, ${packs.length} live packs`, true);
  const at = options.at ?? repository;
  if (at.seq > repository.seq) throw new InternalError(`verify was pinned to seq ${at.seq}, past the chain's seq ${repository.seq}`);
  const logged = events.filter((event) => event.seq <= at.seq);

  // Only readers get past this for a private repository's history; checking storage needs no key.
  const keys = deep ? await PackKeys.of({ ledger, keyService: deps.keyService }, repository, packs, repository.liveFrom) : null;
  const replay = verifyPushLog({ id, seq: at.seq, logHead: at.logHead }, logged);
  const refused = (certified?.answers ?? []).filter((answer) => answer.problem !== undefined)
    .map((answer): Finding => ({ code: 'CERT_ANSWER_REFUSED', seq: null, message: `RPC ${answer.rpc}: ${answer.problem}` }));
  const findings = [...refused, ...replay.findings, ...verifyRefs(events, refs), ...verifyPackTable(events, packs, repository.liveFrom)];
  const report: VerifyReport = {
    repository: id,
    seq: at.seq,
    logHead: at.logHead,
    recomputedLogHead: replay.recomputedLogHead,
    pushes: logged.length,
    packsChecked: 0,
    bytesChecked: 0,
    ...(certified ? { certified } : {}),
    findings,
  };

  const objects = deep ? await deps.openPackObjects!() : null;
  try {
    const places = packPlaces(events);
    const live = packs.map((pack, offset) => ({ pack, place: { index: repository.liveFrom + offset, seq: places.get(repository.liveFrom + offset) ?? null } }));
    // Read in parallel, but add to the object store in push order: thin packs need their predecessors.
    const checks = mapOrdered(live, PACK_CHECK_CONCURRENCY, async ({ pack, place }) => ({
      pack,
      place,
      check: await checkPack(deps.blobStore, deps.blobIdOf, pack, place, { keepBytes: deep, signal: options.signal }),
    }));
    for await (const { pack, place, check } of checks) {
      log.progress(`checking packs: ${report.packsChecked + 1}/${packs.length} (${packLabel(place)}, ${pack.size} bytes)`);
      findings.push(...check.findings);
      report.packsChecked += 1;
      report.bytesChecked += pack.size;
      // Only intact packs go into the object store: what is missing because of a bad pack then shows as missing.
      if (objects !== null && check.bytes !== null && check.findings.length === 0) {
        try {
          const bytes = keys === null ? check.bytes : await keys.decryptAll(place.index - repository.liveFrom, check.bytes);
          await objects.addPack(bytes, packLabel(place));
        } catch (error) {
          const code = (error as { code?: unknown }).code;
          if (code !== 'PACK_UNREADABLE' && !(error instanceof PackDecryptionError)) throw error;
          findings.push({ code: code as 'PACK_UNREADABLE' | 'PACK_DECRYPTION_FAILED', seq: place.seq, message: (error as Error).message });
        }
      }
    }
    log.progress(`checking packs: ${packs.length}/${packs.length}, ${report.bytesChecked} bytes`, true);
    const lifetimes = await liveLifetimes(ledger, deps.blobStore, id, options.expiryWarningEpochs ?? DEFAULT_EXPIRY_WARNING_EPOCHS, repository);
    if (lifetimes !== null) {
      report.lifetimes = lifetimes;
      for (const pack of lifetimes.packs.filter((p) => p.verdict === 'expired')) {
        const seq = places.get(pack.index) ?? null;
        // The storage nodes confirm why the blob could not be read: say that instead.
        const unreadable = findings.findIndex((f) => f.code === 'BLOB_UNAVAILABLE' && f.blobId === pack.blobId);
        if (unreadable >= 0) findings.splice(unreadable, 1);
        const when = pack.endEpoch === null ? 'is gone from Walrus' : `expired at epoch ${pack.endEpoch}`;
        findings.push({ code: 'PACK_EXPIRED', seq, blobId: pack.blobId, message: `${packLabel({ index: pack.index, seq })}: blob ${pack.blobId} ${when} (now epoch ${lifetimes.epoch}); the pack is lost unless its objects are pushed again` });
      }
    }
    if (objects !== null) {
      report.commitsChecked = await checkHistory(objects, events, findings, log);
      report.rewrites = findRewrites(logged);
    }
  } finally {
    await objects?.close();
  }
  return report;
}

/**
 * Every object a ref ever pointed to, with its whole history, must be in the live packs. A repack consolidates what
 * the refs reach at that moment, so from a repack on, only the values the refs then held are still required of the
 * pushes before it. Returns how many ref targets were checked.
 */
async function checkHistory(objects: PackObjects, events: readonly PushEvent[], findings: Finding[], log: Log): Promise<number> {
  const targets = requiredTargets(events);
  const seen = new Set<string>();
  let done = 0;
  for (const [oid, { seq, ref }] of targets) {
    done += 1;
    log.progress(`checking history: ${done}/${targets.size} ref targets`);
    const missing = await objects.findMissing(oid, seen);
    if (missing === null) continue;
    findings.push(missing.oid === oid
      ? { code: 'COMMIT_MISSING', seq, message: `push ${seq}: ${ref} was set to ${oid}, which is in none of the live packs` }
      : {
          code: 'HISTORY_INCOMPLETE',
          seq,
          message: `push ${seq}: ${ref} was set to ${oid}, whose history is incomplete: object ${missing.oid} (referenced by ${missing.referencedBy}) is in none of the live packs`,
        });
  }
  log.progress(`checking history: ${done}/${targets.size} ref targets`, true);
  return done;
}

/** Object id → the first push that set a ref to it (and which ref), for every target still required. */
export function requiredTargets(events: readonly PushEvent[]): Map<string, { seq: number; ref: string }> {
  let targets = new Map<string, { seq: number; ref: string }>();
  const current = new Map<string, { oid: string; seq: number }>();
  for (const event of events) {
    if (event.kind === 1) {
      targets = new Map();
      for (const [ref, { oid, seq }] of current) if (!targets.has(oid)) targets.set(oid, { seq, ref });
    }
    for (const update of event.updates) {
      if (update.new === null) current.delete(update.name);
      else {
        current.set(update.name, { oid: update.new, seq: event.seq });
        if (!targets.has(update.new)) targets.set(update.new, { seq: event.seq, ref: update.name });
      }
    }
  }
  return targets;
}
