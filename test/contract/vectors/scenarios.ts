/**
 * Scenario vectors for the contract (contracts/tests/scenarios.json): calls with their senders, the expected result
 * (`ok` or an abort name) and the expected state afterwards. The same file drives the TypeScript model
 * (test/contract/scenarios.test.ts), the generated Move tests (scripts/gen-move-tests.ts) and, later, the SDK against
 * the devnet; so it names actors and repositories, never object ids or model details.
 *
 * The expected `log_head` is not stored (object ids differ between the model, Move's test_scenario and a chain):
 * `expectedRecord` derives each push's record from the scenario alone plus the actual repository id, and the head is
 * the chain of those records (`nextLogHead`). The encoding itself is pinned by contracts/tests/push_log_vectors.json.
 * Pure: takes the parsed JSON.
 */
import { fromHex } from '@mysten/bcs';
import { AbortCode } from '../../../src/contract/abort-codes.ts';
import type { AbortName } from '../../../src/contract/abort-codes.ts';
import { normalizeAddress } from '../../../src/contract/bcs.ts';
import type { PackEntryValue, PushRecordValue, RefUpdateValue } from '../../../src/contract/bcs.ts';
import { RecordKind } from '../../../src/contract/push-log.ts';

export interface PackJson {
  /** Walrus blob ids as decimal strings (u256). */
  chunks: string[];
  size: number;
  /** hex */
  sha256: string;
  /** hex: the sealed data key of a private repository's pack (absent for a public repository's). */
  sealed_key?: string;
}

export type Call =
  | { call: 'create'; name: string; head: string }
  | { call: 'new_pack_entry'; chunks: bigint[]; size: bigint; sha256: Uint8Array }
  | { call: 'push'; names: string[]; olds: (Uint8Array | null)[]; news: (Uint8Array | null)[]; forces: boolean[]; pack: PackEntryValue | null }
  | { call: 'repack'; pack: PackEntryValue; live_from: bigint }
  | { call: 'repack_at'; pack: PackEntryValue; expected_seq: bigint }
  | { call: 'add_writer' | 'remove_writer'; writer: string }
  | { call: 'protect_ref' | 'unprotect_ref'; name: string }
  | { call: 'set_head'; head: string }
  | { call: 'transfer_ownership'; new_owner: string }
  | { call: 'create_private'; name: string; head: string }
  | { call: 'new_sealed_pack_entry'; chunks: bigint[]; size: bigint; sha256: Uint8Array; sealed_key: Uint8Array }
  | { call: 'add_reader' | 'remove_reader'; reader: string }
  | { call: 'seal_approve'; id: KeyId };

/**
 * A Seal key id (without the package prefix) as scenarios name it: the id bytes of repository `repo` (a label; none
 * for no prefix) followed by `suffix`. Object ids differ between runners, so each runner builds the bytes itself.
 */
export interface KeyId {
  repo: string | null;
  suffix: Uint8Array;
}

export interface RegistryExpectation {
  owner: string;
  name: string;
  /** Label of the repository registered there, or null for none. */
  repo: string | null;
}

/** Expected state of one repository after a step; only the fields given are checked. */
export interface ExpectedState {
  name?: string;
  owner?: string;
  head?: string;
  writers?: string[];
  protected?: string[];
  /** The complete ref set: name → object id. */
  refs?: Map<string, Uint8Array>;
  hash_len?: number;
  seq?: bigint;
  pack_count?: bigint;
  live_from?: bigint;
  registry?: RegistryExpectation[];
  private?: boolean;
  readers?: string[];
}

export interface Step {
  /** Actor name and address. */
  sender: string;
  senderAddress: string;
  /** Clock time of the transaction. */
  clockMs: bigint;
  /** The repository label the call targets (create: the label it defines). Undefined for new_pack_entry. */
  repo?: string;
  call: Call;
  expect: 'ok' | AbortName;
  state?: ExpectedState;
}

export interface Scenario {
  name: string;
  steps: Step[];
}

export interface ScenarioFile {
  actors: Map<string, string>;
  scenarios: Scenario[];
}

function fail(where: string, message: string): never {
  throw new TypeError(`scenarios.json: ${where}: ${message}`);
}

const hexOrNull = (v: unknown, where: string): Uint8Array | null => {
  if (v === null) return null;
  if (typeof v !== 'string' || !/^([0-9a-f]{2})*$/.test(v)) fail(where, `expected lowercase hex or null, got ${JSON.stringify(v)}`);
  return fromHex(v);
};

function pack(v: any, where: string): PackEntryValue {
  if (!v || !Array.isArray(v.chunks) || typeof v.size !== 'number' || typeof v.sha256 !== 'string') fail(where, 'pack needs chunks, size and sha256');
  const sealedKey = v.sealed_key === undefined ? null : hexOrNull(v.sealed_key, where);
  return { chunks: v.chunks.map((c: string) => BigInt(c)), size: BigInt(v.size), sha256: hexOrNull(v.sha256, where)!, sealed_key: sealedKey };
}

function call(name: string, a: any, actor: (n: string) => string, where: string): Call {
  switch (name) {
    case 'create':
      return { call: name, name: a.name, head: a.head };
    case 'new_pack_entry': {
      const p = pack(a, where);
      return { call: name, chunks: p.chunks, size: p.size, sha256: p.sha256 };
    }
    case 'push':
      return {
        call: name,
        names: a.names,
        olds: a.olds.map((v: unknown) => hexOrNull(v, where)),
        news: a.news.map((v: unknown) => hexOrNull(v, where)),
        forces: a.forces,
        pack: a.pack === null ? null : pack(a.pack, where),
      };
    case 'repack':
      return { call: name, pack: pack(a.pack, where), live_from: BigInt(a.live_from) };
    case 'repack_at':
      return { call: name, pack: pack(a.pack, where), expected_seq: BigInt(a.expected_seq) };
    case 'add_writer':
    case 'remove_writer':
      return { call: name, writer: actor(a.writer) };
    case 'protect_ref':
    case 'unprotect_ref':
      return { call: name, name: a.name };
    case 'set_head':
      return { call: name, head: a.head };
    case 'transfer_ownership':
      return { call: name, new_owner: actor(a.new_owner) };
    case 'create_private':
      return { call: name, name: a.name, head: a.head };
    case 'new_sealed_pack_entry': {
      const p = pack(a, where);
      if (p.sealed_key === null) fail(where, 'new_sealed_pack_entry needs sealed_key');
      return { call: name, chunks: p.chunks, size: p.size, sha256: p.sha256, sealed_key: p.sealed_key };
    }
    case 'add_reader':
    case 'remove_reader':
      return { call: name, reader: actor(a.reader) };
    case 'seal_approve':
      return { call: name, id: { repo: a.id?.repo ?? null, suffix: hexOrNull(a.id?.suffix ?? '', where)! } };
    default:
      return fail(where, `unknown call ${name}`);
  }
}

function state(s: any, actor: (n: string) => string, where: string): ExpectedState {
  const out: ExpectedState = {};
  if (s.name !== undefined) out.name = s.name;
  if (s.owner !== undefined) out.owner = actor(s.owner);
  if (s.head !== undefined) out.head = s.head;
  if (s.writers !== undefined) out.writers = s.writers.map(actor);
  if (s.protected !== undefined) out.protected = s.protected;
  if (s.refs !== undefined) out.refs = new Map(Object.entries(s.refs).map(([k, v]) => [k, hexOrNull(v, where)!]));
  if (s.hash_len !== undefined) out.hash_len = s.hash_len;
  if (s.seq !== undefined) out.seq = BigInt(s.seq);
  if (s.pack_count !== undefined) out.pack_count = BigInt(s.pack_count);
  if (s.live_from !== undefined) out.live_from = BigInt(s.live_from);
  if (s.registry !== undefined) out.registry = s.registry.map((r: any) => ({ owner: actor(r.owner), name: r.name, repo: r.repo }));
  if (s.private !== undefined) out.private = s.private;
  if (s.readers !== undefined) out.readers = s.readers.map(actor);
  return out;
}

/** Validates and decodes the parsed scenarios.json. An expected abort must be its scenario's last step (a Move test ends at its abort). */
export function parseScenarios(json: any): ScenarioFile {
  const actors = new Map<string, string>(Object.entries(json.actors ?? {}).map(([n, a]) => [n, normalizeAddress(a as string)]));
  const actor = (n: string): string => actors.get(n) ?? fail('actors', `unknown actor ${n}`);
  const scenarios: Scenario[] = (json.scenarios ?? []).map((sc: any, si: number) => {
    const labels = new Set<string>();
    const steps: Step[] = sc.steps.map((st: any, i: number): Step => {
      const where = `scenario ${si + 1} (${sc.name}) step ${i + 1}`;
      if (st.expect !== 'ok' && !(st.expect in AbortCode)) fail(where, `unknown expectation ${st.expect}`);
      if (st.expect !== 'ok' && i !== sc.steps.length - 1) fail(where, 'an expected abort must be the last step');
      const creates = st.call === 'create' || st.call === 'create_private';
      if (!st.call.startsWith('new_') && !creates && !labels.has(st.repo)) fail(where, `unknown repository ${st.repo}`);
      if (st.call === 'seal_approve' && st.args?.id?.repo !== undefined && !labels.has(st.args.id.repo)) fail(where, `unknown repository ${st.args.id.repo}`);
      if (creates) labels.add(st.repo);
      const step: Step = {
        sender: st.sender,
        senderAddress: actor(st.sender),
        clockMs: BigInt(st.clock_ms ?? 0),
        call: call(st.call, st.args ?? {}, actor, where),
        expect: st.expect,
      };
      if (st.repo !== undefined) step.repo = st.repo;
      if (st.state !== undefined) step.state = state(st.state, actor, where);
      return step;
    });
    return { name: sc.name, steps };
  });
  return { actors, scenarios };
}

/** Whether a step's call appends to the push log when it succeeds. */
export function isLogged(call: Call): call is Extract<Call, { call: 'push' | 'repack' | 'repack_at' }> {
  return call.call === 'push' || call.call === 'repack' || call.call === 'repack_at';
}

/**
 * What the log must record for a successful push or repack step (null for other calls). `liveFrom` is the
 * repository's before the step, `packCount` its number of packs before the step (a repack's pack gets that index and
 * becomes the first live one).
 */
export function expectedRecord(step: Step, context: { repository: string; seq: bigint; liveFrom: bigint; packCount: bigint }): PushRecordValue | null {
  const c = step.call;
  if (c.call === 'push') {
    const updates: RefUpdateValue[] = c.names.map((name, i) => ({ name, old: c.olds[i]!, new: c.news[i]!, forced: c.forces[i]! }));
    return { repository: context.repository, seq: context.seq, kind: RecordKind.push, sender: step.senderAddress, timestamp_ms: step.clockMs, updates, pack: c.pack, live_from: context.liveFrom };
  }
  if (c.call === 'repack' || c.call === 'repack_at') {
    return { repository: context.repository, seq: context.seq, kind: RecordKind.repack, sender: step.senderAddress, timestamp_ms: step.clockMs, updates: [], pack: c.pack, live_from: context.packCount };
  }
  return null;
}
