/**
 * Scenario vectors of the compute market (contracts/tests/market_scenarios.json), of the lease's Seal policy
 * (contracts/tests/lease_access_scenarios.json, same format; its `seal_approve_lease` steps expect `lease_access`
 * aborts) and of a lease's secrets (contracts/tests/lease_secrets_scenarios.json; its `set_secrets` and
 * `seal_approve_lease_secrets*` steps expect `lease_secrets` aborts) and of build attestations
 * (contracts/tests/attestation_scenarios.json; its `set_windows`, `commit_build`, `reveal_build` and
 * `require_reproduced` steps expect `attestation` aborts, and a step may expect a tally): calls with their sender, the clock
 * time of their transaction, the expected result (`ok` or a market abort name), the coins the call pays to whom, and
 * the expected state of providers and leases afterwards; the `setup` steps begin every scenario. The same file drives the twin (test/contract/), the signed
 * transactions on the devnet (test/sui/) and the generated Move tests (scripts/gen-move-tests.ts); so it names actors
 * and labels (repositories, providers, leases), never object ids. A provider's label also names its ProviderCap.
 * Pure: takes the parsed JSON.
 */
import { fromHex } from '@mysten/bcs';
import { normalizeAddress } from '../../../src/contract/bcs.ts';
import { MarketAbortCode } from '../../../src/contract/market-abort-codes.ts';
import type { MarketAbortName } from '../../../src/contract/market-abort-codes.ts';
import { LeaseEndReason } from '../../../src/contract/market-bcs.ts';
import type { LeaseEndReasonName } from '../../../src/contract/market-bcs.ts';
import { LeaseAccessAbortCode } from '../../../src/contract/lease-access-model.ts';
import type { LeaseAccessAbortName } from '../../../src/contract/lease-access-model.ts';
import { LEASE_SECRETS_MODULE, LeaseSecretsAbortCode } from '../../../src/contract/lease-secrets-model.ts';
import type { LeaseSecretsAbortName } from '../../../src/contract/lease-secrets-model.ts';
import { ATTESTATION_MODULE, AttestationAbortCode, TALLY_STATUS_NAMES } from '../../../src/contract/attestation-model.ts';
import type { AttestationAbortName, TallyStatusName } from '../../../src/contract/attestation-model.ts';
import type { KeyId } from './scenarios.ts';

export type MarketCall =
  | { call: 'set_params'; min_stake: bigint; unbonding_ms: bigint; min_lease_ms: bigint }
  | { call: 'create_repository' | 'create_private_repository'; repo: string; name: string }
  | { call: 'push'; repo: string; ref: string; old: Uint8Array | null; new: Uint8Array }
  /** `member` is an actor's name; `address` its address. */
  | { call: 'add_writer' | 'add_reader' | 'remove_reader'; repo: string; member: string; address: string }
  | { call: 'register'; provider: string; stake: bigint; price_per_ms: bigint; endpoint: string; keys: string[]; values: string[] }
  | { call: 'add_stake'; provider: string; cap: string; amount: bigint }
  | { call: 'request_unbond' | 'withdraw_stake'; provider: string; cap: string }
  | { call: 'slash'; provider: string; lease: string; amount: bigint }
  | { call: 'open_lease'; lease: string; provider: string; repo: string; ref: string; deposit: bigint }
  | { call: 'top_up'; lease: string; amount: bigint }
  | { call: 'settle'; lease: string }
  | { call: 'claim' | 'provider_close' | 'withdraw_url'; lease: string; provider: string; cap: string }
  | { call: 'close'; lease: string; provider: string }
  | { call: 'record_deploy'; lease: string; cap: string; repo: string; commit: Uint8Array; artifact: bigint; sha256: Uint8Array }
  | { call: 'seal_approve_lease'; id: KeyId; repo: string; lease: string; cap: string }
  | { call: 'state_url'; lease: string; provider: string; cap: string; url: string }
  | { call: 'set_secrets'; lease: string; blob_id: bigint; version: bigint }
  | { call: 'seal_approve_lease_secrets'; id: SecretId; repo: string; lease: string; cap: string }
  | { call: 'seal_approve_lease_secrets_as_tenant'; id: SecretId; lease: string }
  | { call: 'set_windows'; commit_ms: bigint; reveal_ms: bigint }
  | { call: 'commit_build'; provider: string; cap: string; repo: string; commit: Uint8Array; build_key: Uint8Array; commitment: CommitmentSpec }
  | ({ call: 'reveal_build'; provider: string; cap: string; repo: string; commit: Uint8Array; build_key: Uint8Array } & Digests)
  | { call: 'require_reproduced'; lease: string; required: bigint };

/** What an attester reveals: the tar sha256, the manifest root and the nonce of its commitment. */
export interface Digests {
  tar: Uint8Array;
  root: Uint8Array;
  nonce: Uint8Array;
}

/** A commitment: `commitment_of` these digests and the id of provider `provider` (not always the committer's), or raw bytes. */
export type CommitmentSpec = (Digests & { provider: string }) | { raw: Uint8Array };

/** A tally a step expects afterwards (`attestation::tally_summary`). */
export interface ExpectedTally {
  repo: string;
  commit: Uint8Array;
  build_key: Uint8Array;
  status: TallyStatusName;
  commitments: bigint;
  reveals: bigint;
}

/**
 * A key id for the secrets policies: the id bytes of a lease (then the domain tag unless `domain` is false) or of a
 * repository, or nothing, then `suffix`.
 */
export interface SecretId {
  lease: string | null;
  repo: string | null;
  domain: boolean;
  suffix: Uint8Array;
}

/** The module whose aborts a call's expectation names. */
export function abortingModule(call: MarketCall['call']): 'market' | 'lease_access' | typeof LEASE_SECRETS_MODULE | typeof ATTESTATION_MODULE {
  if (call === 'seal_approve_lease') return 'lease_access';
  if (call === 'set_windows' || call === 'commit_build' || call === 'reveal_build' || call === 'require_reproduced') return ATTESTATION_MODULE;
  if (call === 'set_secrets' || call === 'seal_approve_lease_secrets' || call === 'seal_approve_lease_secrets_as_tenant') return LEASE_SECRETS_MODULE;
  return 'market';
}

export const LEASE_STATES = ['open', 'exhausted', 'closed'] as const;

export interface ExpectedProvider {
  stake?: bigint;
  active_leases?: bigint;
  completed_leases?: bigint;
  provider_closed_leases?: bigint;
  slashed?: bigint;
  /** null = bonded. */
  unbonds_at_ms?: bigint | null;
}

export interface ExpectedLease {
  state?: (typeof LEASE_STATES)[number];
  escrow?: bigint;
  earned?: bigint;
  settled_until_ms?: bigint;
  /** The last deployed commit, null before any deploy. */
  last_commit?: Uint8Array | null;
  /** The URL its provider stated ('' before any). */
  url?: string;
  /** The version of its secrets (`lease_secrets::secrets_version`, 0 before any). */
  secrets_version?: bigint;
  /** Agreeing attestations its tenant requires (`attestation::required_reproductions`, 0 before any). */
  required?: bigint;
  /** How it ended (`lease_end_reason`, `lease_ended_by`, `lease_ended_at_ms`); null while it is not closed. */
  end?: ExpectedEnd | null;
}

export interface ExpectedEnd {
  reason: LeaseEndReasonName;
  /** The actor's name, and its address. */
  by: string;
  byAddress: string;
  at_ms: bigint;
}

export interface MarketStep {
  sender: string;
  senderAddress: string;
  /** Clock time of the transaction (non-decreasing through a scenario). */
  clockMs: bigint;
  call: MarketCall;
  /** An abort of the module `abortingModule` names for the call. */
  expect: 'ok' | MarketAbortName | LeaseAccessAbortName | LeaseSecretsAbortName | AttestationAbortName;
  /** Coins the call sends, by actor name (each actor gets at most one coin per call); absent actors get nothing. */
  pays: Map<string, bigint>;
  providers: Map<string, ExpectedProvider>;
  leases: Map<string, ExpectedLease>;
  tallies: ExpectedTally[];
}

export interface MarketScenario {
  name: string;
  steps: MarketStep[];
}

export interface MarketScenarioFile {
  actors: Map<string, string>;
  /** The actor that publishes the package and holds the AdminCap. */
  admin: string;
  scenarios: MarketScenario[];
}

function fail(where: string, message: string): never {
  throw new TypeError(`${where}: ${message}`);
}

const amount = (v: unknown, where: string): bigint => {
  if (!(typeof v === 'number' && Number.isSafeInteger(v) && v >= 0) && !(typeof v === 'string' && /^\d+$/.test(v))) fail(where, `expected an amount, got ${JSON.stringify(v)}`);
  return BigInt(v);
};

const hex = (v: unknown, where: string): Uint8Array => {
  if (typeof v !== 'string' || !/^([0-9a-f]{2})*$/.test(v)) fail(where, `expected lowercase hex, got ${JSON.stringify(v)}`);
  return fromHex(v);
};

function call(name: string, a: any, where: string, labels: { repos: Set<string>; providers: Set<string>; leases: Map<string, string> }, actor: (name: string, where: string) => string): MarketCall {
  const known = (set: { has(k: string): boolean }, label: unknown, kind: string): string => {
    if (typeof label !== 'string' || !set.has(label)) fail(where, `unknown ${kind} ${JSON.stringify(label)}`);
    return label;
  };
  const repo = () => known(labels.repos, a.repo, 'repository');
  const provider = (label = a.provider) => known(labels.providers, label, 'provider');
  const lease = () => known(labels.leases, a.lease, 'lease');
  const leaseProvider = () => provider(a.provider ?? labels.leases.get(lease()));
  switch (name) {
    case 'set_params':
      return { call: name, min_stake: amount(a.min_stake, where), unbonding_ms: amount(a.unbonding_ms, where), min_lease_ms: amount(a.min_lease_ms, where) };
    case 'create_repository':
    case 'create_private_repository':
      return { call: name, repo: a.repo, name: a.name };
    case 'push':
      return { call: name, repo: repo(), ref: a.ref, old: a.old === null ? null : hex(a.old, where), new: hex(a.new, where) };
    case 'add_writer':
    case 'add_reader':
    case 'remove_reader':
      return { call: name, repo: repo(), member: a.member, address: actor(a.member, where) };
    case 'register': {
      const attributes = Object.entries((a.attributes ?? {}) as Record<string, string>);
      return {
        call: name,
        provider: a.provider,
        stake: amount(a.stake, where),
        price_per_ms: amount(a.price_per_ms, where),
        endpoint: a.endpoint,
        keys: a.keys ?? attributes.map(([k]) => k),
        values: a.values ?? attributes.map(([, v]) => v),
      };
    }
    case 'add_stake':
      return { call: name, provider: provider(), cap: provider(a.cap ?? a.provider), amount: amount(a.amount, where) };
    case 'request_unbond':
    case 'withdraw_stake':
      return { call: name, provider: provider(), cap: provider(a.cap ?? a.provider) };
    case 'slash':
      return { call: name, provider: provider(), lease: lease(), amount: amount(a.amount, where) };
    case 'open_lease':
      return { call: name, lease: a.lease, provider: provider(), repo: repo(), ref: a.ref, deposit: amount(a.deposit, where) };
    case 'top_up':
      return { call: name, lease: lease(), amount: amount(a.amount, where) };
    case 'settle':
      return { call: name, lease: lease() };
    case 'claim':
    case 'provider_close':
    case 'withdraw_url': {
      const p = leaseProvider();
      return { call: name, lease: lease(), provider: p, cap: provider(a.cap ?? p) };
    }
    case 'close':
      return { call: name, lease: lease(), provider: leaseProvider() };
    case 'record_deploy':
      return {
        call: name,
        lease: lease(),
        cap: provider(a.cap ?? labels.leases.get(lease())),
        repo: repo(),
        commit: hex(a.commit, where),
        artifact: amount(a.artifact, where),
        sha256: hex(a.sha256, where),
      };
    case 'seal_approve_lease': {
      const l = lease();
      return {
        call: name,
        id: { repo: a.id?.repo === undefined ? null : known(labels.repos, a.id.repo, 'repository'), suffix: hex(a.id?.suffix ?? '', where) },
        repo: repo(),
        lease: l,
        cap: provider(a.cap ?? labels.leases.get(l)),
      };
    }
    case 'state_url': {
      const p = leaseProvider();
      if (typeof a.url !== 'string') fail(where, 'expected url to be a string');
      return { call: name, lease: lease(), provider: p, cap: provider(a.cap ?? p), url: a.url };
    }
    case 'set_secrets':
      return { call: name, lease: lease(), blob_id: amount(a.blob_id, where), version: amount(a.version, where) };
    case 'seal_approve_lease_secrets':
    case 'seal_approve_lease_secrets_as_tenant': {
      const l = lease();
      const id: SecretId = {
        lease: a.id?.lease === undefined ? null : known(labels.leases, a.id.lease, 'lease'),
        repo: a.id?.repo === undefined ? null : known(labels.repos, a.id.repo, 'repository'),
        domain: a.id?.domain ?? true,
        suffix: hex(a.id?.suffix ?? '', where),
      };
      if (name === 'seal_approve_lease_secrets_as_tenant') return { call: name, id, lease: l };
      return { call: name, id, repo: repo(), lease: l, cap: provider(a.cap ?? labels.leases.get(l)) };
    }
    case 'set_windows':
      return { call: name, commit_ms: amount(a.commit_ms, where), reveal_ms: amount(a.reveal_ms, where) };
    case 'commit_build':
    case 'reveal_build': {
      const attester = { provider: provider(), cap: provider(a.cap ?? a.provider), repo: repo(), commit: hex(a.commit, where), build_key: hex(a.build_key, where) };
      const digests = (d: any): Digests => ({ tar: hex(d.tar, where), root: hex(d.root, where), nonce: hex(d.nonce, where) });
      if (name === 'reveal_build') return { call: name, ...attester, ...digests(a) };
      const c = a.commitment;
      const commitment: CommitmentSpec = typeof c === 'string' ? { raw: hex(c, where) } : { ...digests(c), provider: provider(c.provider ?? a.provider) };
      return { call: name, ...attester, commitment };
    }
    case 'require_reproduced':
      return { call: name, lease: lease(), required: amount(a.required, where) };
    default:
      return fail(where, `unknown call ${name}`);
  }
}

function expectedProvider(p: any, where: string): ExpectedProvider {
  const out: ExpectedProvider = {};
  for (const key of ['stake', 'active_leases', 'completed_leases', 'provider_closed_leases', 'slashed'] as const) if (p[key] !== undefined) out[key] = amount(p[key], where);
  if (p.unbonds_at_ms !== undefined) out.unbonds_at_ms = p.unbonds_at_ms === null ? null : amount(p.unbonds_at_ms, where);
  return out;
}

function expectedLease(l: any, where: string, actor: (name: string, where: string) => string): ExpectedLease {
  const out: ExpectedLease = {};
  if (l.state !== undefined) {
    if (!LEASE_STATES.includes(l.state)) fail(where, `unknown lease state ${l.state}`);
    out.state = l.state;
  }
  for (const key of ['escrow', 'earned', 'settled_until_ms', 'secrets_version', 'required'] as const) if (l[key] !== undefined) out[key] = amount(l[key], where);
  if (l.last_commit !== undefined) out.last_commit = l.last_commit === null ? null : hex(l.last_commit, where);
  if (l.url !== undefined) out.url = String(l.url);
  if (l.end === null) out.end = null;
  else if (l.end !== undefined) {
    if (!(l.end.reason in LeaseEndReason)) fail(where, `unknown end reason ${JSON.stringify(l.end.reason)}`);
    out.end = { reason: l.end.reason, by: l.end.by, byAddress: actor(l.end.by, where), at_ms: amount(l.end.at_ms, where) };
  }
  return out;
}

function expectedTally(t: any, where: string, repos: Set<string>): ExpectedTally {
  if (!repos.has(t.repo)) fail(where, `unknown repository ${JSON.stringify(t.repo)}`);
  if (!TALLY_STATUS_NAMES.includes(t.status)) fail(where, `unknown tally status ${t.status}`);
  return { repo: t.repo, commit: hex(t.commit, where), build_key: hex(t.build_key, where), status: t.status, commitments: amount(t.commitments, where), reveals: amount(t.reveals, where) };
}

/**
 * Validates and decodes the parsed market_scenarios.json. An expected abort must be its scenario's last step (a Move
 * test ends at its abort); clock times never go back; labels are defined before use.
 */
export function parseMarketScenarios(json: any, source = 'market_scenarios.json'): MarketScenarioFile {
  const actors = new Map<string, string>(Object.entries(json.actors ?? {}).map(([n, a]) => [n, normalizeAddress(a as string)]));
  const actor = (n: string, where: string): string => actors.get(n) ?? fail(where, `unknown actor ${n}`);
  const admin = json.admin as string;
  actor(admin, `${source}: admin`);
  const setup: unknown[] = json.setup ?? [];
  const scenarios = (json.scenarios ?? []).map((sc: any, si: number): MarketScenario => {
    const labels = { repos: new Set<string>(), providers: new Set<string>(), leases: new Map<string, string>() };
    let clock = 0n;
    const all = [...setup, ...sc.steps];
    const steps = all.map((st: any, i: number): MarketStep => {
      const where = `${source}: scenario ${si + 1} (${sc.name}) step ${i + 1}`;
      const aborts = { market: MarketAbortCode, lease_access: LeaseAccessAbortCode, [LEASE_SECRETS_MODULE]: LeaseSecretsAbortCode, [ATTESTATION_MODULE]: AttestationAbortCode }[abortingModule(st.call)];
      if (st.expect !== 'ok' && !(st.expect in aborts)) fail(where, `unknown expectation ${st.expect}`);
      if (st.expect !== 'ok' && i !== all.length - 1) fail(where, 'an expected abort must be the last step');
      const clockMs = amount(st.clock_ms ?? 0, where);
      if (clockMs < clock) fail(where, 'the clock goes back');
      clock = clockMs;
      const c = call(st.call, st.args ?? {}, where, labels, actor);
      if (st.expect === 'ok') {
        if (c.call === 'create_repository' || c.call === 'create_private_repository') labels.repos.add(c.repo);
        if (c.call === 'register') labels.providers.add(c.provider);
        if (c.call === 'open_lease') labels.leases.set(c.lease, c.provider);
      }
      const pays = new Map<string, bigint>(Object.entries(st.pays ?? {}).map(([n, v]) => (actor(n, where), [n, amount(v, where)])));
      const state = st.state ?? {};
      return {
        sender: st.sender,
        senderAddress: actor(st.sender, where),
        clockMs,
        call: c,
        expect: st.expect,
        pays,
        providers: new Map(Object.entries(state.providers ?? {}).map(([label, p]) => [label, expectedProvider(p, where)])),
        leases: new Map(Object.entries(state.leases ?? {}).map(([label, l]) => [label, expectedLease(l, where, actor)])),
        tallies: (state.tallies ?? []).map((t: any) => expectedTally(t, where, labels.repos)),
      };
    });
    return { name: sc.name, steps };
  });
  return { actors, admin, scenarios };
}

/** Whether the step moves money into leases: the amount deposited (open_lease, top_up), or 0. */
export function depositOf(step: MarketStep): bigint {
  const c = step.call;
  if (c.call === 'open_lease') return c.deposit;
  if (c.call === 'top_up') return c.amount;
  return 0n;
}

/** The amount the step adds to stakes (register, add_stake), or 0. */
export function stakeOf(step: MarketStep): bigint {
  const c = step.call;
  if (c.call === 'register') return c.stake;
  if (c.call === 'add_stake') return c.amount;
  return 0n;
}
