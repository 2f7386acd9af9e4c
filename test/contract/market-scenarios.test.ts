import { readFileSync } from 'node:fs';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { toHex } from '@mysten/bcs';
import { MoveAbort } from '../../src/contract/abort-codes.ts';
import { Repository } from '../../src/contract/bcs.ts';
import type { RegistryValue, RepositoryValue } from '../../src/contract/bcs.ts';
import type { MoveContext } from '../../src/contract/context.ts';
import { MemoryChain } from './vectors/memory-context.ts';
import { Lease, LeaseEndReason, LeaseState, Market, MarketEvents, Provider, SUI_COIN_TYPE } from '../../src/contract/market-bcs.ts';
import { Coin } from '../../src/contract/bcs.ts';
import type { AdminCapValue, LeaseValue, MarketValue, ProviderCapValue, ProviderValue } from '../../src/contract/market-bcs.ts';
import * as market from '../../src/contract/market-model.ts';
import * as repository from '../../src/contract/model.ts';
import { sealApproveLease } from '../../src/contract/lease-access-model.ts';
import { SECRETS_DOMAIN, sealApproveLeaseSecrets, sealApproveLeaseSecretsAsTenant, secretsOf, setSecrets } from '../../src/contract/lease-secrets-model.ts';
import { ID } from '../../src/contract/bcs.ts';
import { AttestationAbortCode, commitBuild, commitmentOf, requireReproduced, requiredOf, revealBuild, setWindows, statusOf, tallyOf } from '../../src/contract/attestation-model.ts';
import { LEASE_STATES, abortingModule, depositOf, parseMarketScenarios, stakeOf } from './vectors/market-scenarios.ts';
import type { CommitmentSpec, MarketScenarioFile, MarketStep, SecretId } from './vectors/market-scenarios.ts';

const read = (source: string) => parseMarketScenarios(JSON.parse(readFileSync(new URL(`../../contracts/tests/${source}`, import.meta.url), 'utf8')), source);
const file = read('market_scenarios.json');
const leaseAccess = read('lease_access_scenarios.json');
const leaseSecrets = read('lease_secrets_scenarios.json');
const attestations = read('attestation_scenarios.json');

interface World {
  chain: MemoryChain;
  registry: RegistryValue;
  market: MarketValue;
  admin: AdminCapValue;
  repos: Map<string, RepositoryValue>;
  providers: Map<string, ProviderValue>;
  caps: Map<string, ProviderCapValue>;
  leases: Map<string, LeaseValue>;
}

/** A coin value handed to a call by value (as `splitCoins` makes one). */
function coin(ctx: MoveContext, value: bigint) {
  return { id: ctx.newId(), balance: { value } };
}

/** The bytes of a secrets key id the vector describes. */
function secretIdBytes(w: World, id: SecretId): Uint8Array {
  const lease = id.lease === null ? [] : [...ID.serialize(w.leases.get(id.lease)!.id).toBytes(), ...(id.domain ? SECRETS_DOMAIN : [])];
  const repo = id.repo === null ? [] : [...ID.serialize(w.repos.get(id.repo)!.id).toBytes()];
  return Uint8Array.from([...lease, ...repo, ...id.suffix]);
}

/** The commitment bytes the vector describes. */
function commitmentBytes(w: World, spec: CommitmentSpec): Uint8Array {
  return 'raw' in spec ? spec.raw : commitmentOf(spec.tar, spec.root, w.providers.get(spec.provider)!.id, spec.nonce);
}

function perform(ctx: MoveContext, w: World, step: MarketStep): void {
  const c = step.call;
  const now = step.clockMs;
  switch (c.call) {
    case 'set_params':
      return market.setParams(ctx, w.market, w.admin, c.min_stake, c.unbonding_ms, c.min_lease_ms);
    case 'create_repository':
      w.repos.set(c.repo, repository.create(ctx, w.registry, c.name, 'refs/heads/main'));
      return;
    case 'create_private_repository':
      w.repos.set(c.repo, repository.createPrivate(ctx, w.registry, c.name, 'refs/heads/main'));
      return;
    case 'push':
      return repository.push(ctx, w.repos.get(c.repo)!, [c.ref], [c.old], [c.new], [false], null, now);
    case 'add_writer':
      return repository.addWriter(ctx, w.repos.get(c.repo)!, c.address);
    case 'add_reader':
      return repository.addReader(ctx, w.repos.get(c.repo)!, c.address);
    case 'remove_reader':
      return repository.removeReader(ctx, w.repos.get(c.repo)!, c.address);
    case 'register': {
      const created = market.register(ctx, w.market, coin(ctx, c.stake), c.price_per_ms, c.endpoint, c.keys, c.values);
      w.providers.set(c.provider, created.provider);
      w.caps.set(c.provider, created.cap);
      return;
    }
    case 'add_stake':
      return market.addStake(ctx, w.providers.get(c.provider)!, w.caps.get(c.cap)!, coin(ctx, c.amount));
    case 'request_unbond':
      return market.requestUnbond(ctx, w.market, w.providers.get(c.provider)!, w.caps.get(c.cap)!, now);
    case 'withdraw_stake':
      return market.withdrawStake(ctx, w.providers.get(c.provider)!, w.caps.get(c.cap)!, now);
    case 'slash':
      return market.slash(ctx, w.admin, w.providers.get(c.provider)!, w.leases.get(c.lease)!, c.amount);
    case 'open_lease':
      w.leases.set(c.lease, market.openLease(ctx, w.market, w.providers.get(c.provider)!, w.repos.get(c.repo)!, c.ref, coin(ctx, c.deposit), now));
      return;
    case 'top_up':
      return market.topUp(ctx, w.leases.get(c.lease)!, coin(ctx, c.amount), now);
    case 'settle':
      return market.settle(ctx, w.leases.get(c.lease)!, now);
    case 'claim':
      return market.claim(ctx, w.leases.get(c.lease)!, w.providers.get(c.provider)!, w.caps.get(c.cap)!, now);
    case 'close':
      return market.close(ctx, w.leases.get(c.lease)!, w.providers.get(c.provider)!, now);
    case 'provider_close':
      return market.providerClose(ctx, w.leases.get(c.lease)!, w.providers.get(c.provider)!, w.caps.get(c.cap)!, now);
    case 'record_deploy':
      return market.recordDeploy(ctx, w.leases.get(c.lease)!, w.caps.get(c.cap)!, w.repos.get(c.repo)!, c.commit, c.artifact, c.sha256, now);
    case 'seal_approve_lease': {
      const prefix = c.id.repo === null ? [] : [...ID.serialize(w.repos.get(c.id.repo)!.id).toBytes()];
      return sealApproveLease(Uint8Array.from([...prefix, ...c.id.suffix]), w.repos.get(c.repo)!, w.leases.get(c.lease)!, w.caps.get(c.cap)!, now);
    }
    case 'state_url':
      return market.stateUrl(ctx, w.leases.get(c.lease)!, w.providers.get(c.provider)!, w.caps.get(c.cap)!, c.url, now);
    case 'withdraw_url':
      return market.withdrawUrl(ctx, w.leases.get(c.lease)!, w.providers.get(c.provider)!, w.caps.get(c.cap)!, now);
    case 'set_secrets':
      return setSecrets(ctx, w.leases.get(c.lease)!, c.blob_id, c.version, now);
    case 'seal_approve_lease_secrets':
      return sealApproveLeaseSecrets(secretIdBytes(w, c.id), w.repos.get(c.repo)!, w.leases.get(c.lease)!, w.caps.get(c.cap)!, now);
    case 'seal_approve_lease_secrets_as_tenant':
      return sealApproveLeaseSecretsAsTenant(ctx, secretIdBytes(w, c.id), w.leases.get(c.lease)!);
    case 'set_windows':
      return setWindows(ctx, w.market, w.admin, c.commit_ms, c.reveal_ms);
    case 'commit_build': {
      const attester = [w.market, w.providers.get(c.provider)!, w.caps.get(c.cap)!, w.repos.get(c.repo)!] as const;
      return commitBuild(ctx, ...attester, c.commit, c.build_key, commitmentBytes(w, c.commitment), now);
    }
    case 'reveal_build': {
      const attester = [w.market, w.providers.get(c.provider)!, w.caps.get(c.cap)!, w.repos.get(c.repo)!] as const;
      return revealBuild(ctx, ...attester, c.commit, c.build_key, c.tar, c.root, c.nonce, now);
    }
    case 'require_reproduced':
      return requireReproduced(ctx, w.leases.get(c.lease)!, c.required, now);
  }
}

function snapshot(w: World): string {
  return [
    toHex(Market.serialize(w.market).toBytes()),
    ...[...w.repos.values()].map((r) => toHex(Repository.serialize(r).toBytes())),
    ...[...w.providers.values()].map((p) => toHex(Provider.serialize(p).toBytes())),
    ...[...w.leases.values()].map((l) => toHex(Lease.serialize(l).toBytes())),
    w.chain.tables.snapshot(),
    String(w.chain.events.length),
    String(w.chain.transfers.length),
  ].join('|');
}

/** The money the market moved, from the events of successful calls. */
class Books {
  deposits = 0n;
  paid = 0n;
  refunded = 0n;
  staked = 0n;
  withdrawn = 0n;
  slashed = 0n;

  /** Books one successful step from its events; returns the total its events say it paid out. */
  book(step: MarketStep, events: { type: string; bcs: Uint8Array }[]): bigint {
    this.deposits += depositOf(step);
    this.staked += stakeOf(step);
    let out = 0n;
    for (const event of events) {
      const name = event.type.replace(/^market_events::/, '');
      if (name === 'Claimed') {
        const { amount } = MarketEvents.Claimed.parse(event.bcs);
        this.paid += amount;
        out += amount;
      } else if (name === 'LeaseClosed') {
        const { refund, payout } = MarketEvents.LeaseClosed.parse(event.bcs);
        this.paid += payout;
        this.refunded += refund;
        out += payout + refund;
      } else if (name === 'StakeWithdrawn') {
        const { amount } = MarketEvents.StakeWithdrawn.parse(event.bcs);
        this.withdrawn += amount;
        out += amount;
      } else if (name === 'Slashed') {
        const { amount } = MarketEvents.Slashed.parse(event.bcs);
        this.slashed += amount;
        out += amount;
      }
    }
    return out;
  }
}

function checkState(where: string, w: World, step: MarketStep): void {
  for (const [label, want] of step.providers) {
    const p = w.providers.get(label)!;
    if (want.stake !== undefined) assert.is(p.stake.value, want.stake, `${where}: ${label}.stake`);
    if (want.active_leases !== undefined) assert.is(p.active_leases, want.active_leases, `${where}: ${label}.active_leases`);
    if (want.completed_leases !== undefined) assert.is(p.completed_leases, want.completed_leases, `${where}: ${label}.completed_leases`);
    if (want.provider_closed_leases !== undefined) assert.is(p.provider_closed_leases, want.provider_closed_leases, `${where}: ${label}.provider_closed_leases`);
    if (want.slashed !== undefined) assert.is(p.slashed, want.slashed, `${where}: ${label}.slashed`);
    if (want.unbonds_at_ms !== undefined) assert.is(p.unbonds_at_ms, want.unbonds_at_ms, `${where}: ${label}.unbonds_at_ms`);
  }
  for (const [label, want] of step.leases) {
    const l = w.leases.get(label)!;
    if (want.state !== undefined) assert.is(LEASE_STATES[l.state], want.state, `${where}: ${label}.state`);
    if (want.escrow !== undefined) assert.is(l.escrow.value, want.escrow, `${where}: ${label}.escrow`);
    if (want.earned !== undefined) assert.is(l.earned.value, want.earned, `${where}: ${label}.earned`);
    if (want.settled_until_ms !== undefined) assert.is(l.settled_until_ms, want.settled_until_ms, `${where}: ${label}.settled_until_ms`);
    if (want.last_commit !== undefined) assert.equal(l.last_deploy?.commit ?? null, want.last_commit, `${where}: ${label}.last_commit`);
    if (want.url !== undefined) assert.is(l.url, want.url, `${where}: ${label}.url`);
    if (want.secrets_version !== undefined) {
      assert.is(secretsOf(w.chain.tables, w.chain.packageId, l)?.version ?? 0n, want.secrets_version, `${where}: ${label}.secrets_version`);
    }
    if (want.required !== undefined) assert.is(requiredOf(w.chain.tables, w.chain.packageId, l), want.required, `${where}: ${label}.required`);
    if (want.end !== undefined) {
      const end = market.leaseEndOf(w.chain.tables, w.chain.packageId, l);
      assert.equal(end, want.end && { reason: LeaseEndReason[want.end.reason], by: want.end.byAddress, at_ms: want.end.at_ms }, `${where}: ${label}.end`);
    }
  }
  for (const want of step.tallies) {
    const tally = tallyOf(w.chain.tables, w.chain.packageId, w.market, { repository: w.repos.get(want.repo)!.id, commit: want.commit, build_key: want.build_key });
    assert.is(tally === null ? 'pending' : statusOf(tally), want.status, `${where}: tally status`);
    assert.is(BigInt(tally?.commitments.length ?? 0), want.commitments, `${where}: tally commitments`);
    assert.is(BigInt(tally?.reveals.length ?? 0), want.reveals, `${where}: tally reveals`);
  }
}

const scenarios = suite('market_scenarios.json on the twin');

scenarios('lease_access_scenarios.json covers the grant and every refusal of the policy', () => {
  const outcomes = new Set(leaseAccess.scenarios.flatMap((s) => s.steps.filter((st) => st.call.call === 'seal_approve_lease').map((st) => st.expect)));
  assert.equal([...outcomes].sort(), ['ELeaseClosed', 'ELeaseExhausted', 'ENotProvider', 'ETenantNotReader', 'EWrongKeyId', 'EWrongRepository', 'ok']);
});

scenarios('lease_secrets_scenarios.json covers every refusal of set_secrets and of both policies, and their grants', () => {
  const outcomes = (calls: string[]) =>
    [...new Set(leaseSecrets.scenarios.flatMap((s) => [...s.steps].filter((st) => calls.includes(st.call.call)).map((st) => st.expect)))].sort();
  assert.equal(outcomes(['set_secrets']), ['ELeaseClosed', 'ENotTenant', 'EVersionNotNext', 'ok']);
  assert.equal(outcomes(['seal_approve_lease_secrets']), ['ELeaseClosed', 'ELeaseExhausted', 'ENotProvider', 'ETenantNotReader', 'EWrongKeyId', 'EWrongRepository', 'ok']);
  assert.equal(outcomes(['seal_approve_lease_secrets_as_tenant']), ['ENotTenant', 'EWrongKeyId', 'ok']);
});

scenarios('attestation_scenarios.json covers every abort of the attestation module, and agreed and disputed tallies', () => {
  const outcomes = new Set(attestations.scenarios.flatMap((s) => s.steps.map((st) => st.expect)));
  assert.equal([...outcomes].filter((o) => o !== 'ok').sort(), Object.keys(AttestationAbortCode).sort());
  const statuses = new Set(attestations.scenarios.flatMap((s) => s.steps.flatMap((st) => st.tallies.map((t) => t.status))));
  assert.equal([...statuses].sort(), ['agreed', 'disputed', 'pending']);
});

scenarios('cover every failure mode the issue names', () => {
  const expected = new Set(file.scenarios.map((s) => s.steps.at(-1)!.expect));
  for (const name of ['ELeaseClosed', 'ELeaseExhausted', 'EActiveLeases', 'ETooEarly', 'ENotAccepting', 'ESlashExceedsStake', 'ENotHead', 'ENotProvider', 'EDepositTooSmall', 'ENotTenant', 'ECannotRead']) {
    assert.ok(expected.has(name as never), name);
  }
});

for (const [source, f] of [['market_scenarios.json', file], ['lease_access_scenarios.json', leaseAccess], ['lease_secrets_scenarios.json', leaseSecrets], ['attestation_scenarios.json', attestations]] as [string, MarketScenarioFile][]) for (const [index, scenario] of f.scenarios.entries()) {
  scenarios(`${source} ${index + 1}. ${scenario.name}`, () => {
    const chain = new MemoryChain();
    const boot = chain.context(f.actors.get(f.admin)!);
    const { market: m, admin } = market.init(boot);
    const w: World = { chain, registry: repository.init(boot), market: m, admin, repos: new Map(), providers: new Map(), caps: new Map(), leases: new Map() };
    const books = new Books();
    const names = new Map([...f.actors].map(([name, address]) => [address, name]));

    for (const [i, step] of scenario.steps.entries()) {
      const where = `step ${i + 1} (${step.call.call} by ${step.sender} at ${step.clockMs})`;
      const before = snapshot(w);
      const events = chain.events.length;
      const transfers = chain.transfers.length;
      let aborted: MoveAbort<string> | undefined;
      try {
        perform(chain.context(step.senderAddress), w, step);
      } catch (error) {
        if (!(error instanceof MoveAbort)) throw error;
        aborted = error;
      }
      if (step.expect !== 'ok') {
        assert.ok(aborted, `${where}: expected ${step.expect}, the call succeeded`);
        assert.is(aborted.module, abortingModule(step.call.call), where);
        assert.is(aborted.abortName, step.expect, where);
        assert.is(snapshot(w), before, `${where}: an abort changed state`);
        continue;
      }
      assert.is(aborted, undefined, `${where}: unexpected ${aborted?.abortName}`);

      // Exactly the expected coins, at most one per actor, and what the events say was paid.
      const sent = chain.transfers.slice(transfers).filter((t) => t.type === SUI_COIN_TYPE);
      const paid = new Map<string, bigint>();
      for (const t of sent) {
        const name = names.get(t.recipient) ?? t.recipient;
        assert.not.ok(paid.has(name), `${where}: two coins to ${name}`);
        paid.set(name, Coin.parse(t.bcs).balance.value);
      }
      assert.equal(paid, step.pays, `${where}: payments`);
      const out = books.book(step, chain.events.slice(events));
      assert.is([...paid.values()].reduce((a, b) => a + b, 0n), out, `${where}: coins paid = amounts in the events`);

      // The invariants, after every step.
      const held = [...w.leases.values()].reduce((sum, l) => sum + l.escrow.value + l.earned.value, 0n);
      assert.is(books.deposits, books.paid + books.refunded + held, `${where}: deposits = paid + refunded + held in leases`);
      const staked = [...w.providers.values()].reduce((sum, p) => sum + p.stake.value, 0n);
      assert.is(books.staked, books.withdrawn + books.slashed + staked, `${where}: stakes = withdrawn + slashed + held`);
      for (const l of w.leases.values()) if (l.state === LeaseState.closed) assert.is(l.escrow.value + l.earned.value, 0n, `${where}: a closed lease holds nothing`);

      checkState(where, w, step);
    }
  });
}

scenarios.run();

const parse = suite('parseMarketScenarios');

parse('refuses an abort before the last step, a clock going back and unknown labels', () => {
  const base = { actors: { admin: '0xad', pat: '0x9a7' }, admin: 'admin' };
  const unbond = { sender: 'pat', call: 'request_unbond', args: { provider: 'p1' } };
  assert.throws(() => parseMarketScenarios({ ...base, scenarios: [{ name: 'x', steps: [{ ...unbond, expect: 'ok' }] }] }), /unknown provider/);
  const register = { sender: 'pat', call: 'register', args: { provider: 'p1', stake: 1, price_per_ms: 1, endpoint: 'e' }, expect: 'ok' };
  assert.throws(() => parseMarketScenarios({ ...base, scenarios: [{ name: 'x', steps: [{ ...register, clock_ms: 5 }, { ...unbond, clock_ms: 4, expect: 'ok' }] }] }), /clock goes back/);
  assert.throws(() => parseMarketScenarios({ ...base, scenarios: [{ name: 'x', steps: [{ ...register, expect: 'EStakeTooLow' }, { ...unbond, expect: 'ok' }] }] }), /last step/);
});

parse.run();
