import { join } from 'node:path';
import { readFileSync } from 'node:fs';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { Ed25519Keypair } from '@mysten/sui/keypairs/ed25519';
import { normalizeStructTag } from '@mysten/sui/utils';
import { ChainEngine } from '../../src/devnet/chain/engine.ts';
import { SuiLedger } from '../../src/sui/ledger.ts';
import { SuiMarket } from '../../src/sui/market.ts';
import { MarketRefusedError, marketError } from '../../src/sui/market-errors.ts';
import { u256ToBlobId } from '../../src/core/blob-id-codec.ts';
import { MarketEvents, ProviderCap, marketEventType, providerCapType } from '../../src/contract/market-bcs.ts';
import { parseMarketScenarios, depositOf, stakeOf } from '../contract/vectors/market-scenarios.ts';
import type { MarketStep } from '../contract/vectors/market-scenarios.ts';
import { grpcWebServer, inProcess, simulateAs, type Front } from './fronts.ts';
import { leaseAccessAbortName } from '../../src/contract/lease-access-model.ts';
import { SECRETS_DOMAIN, leaseSecretsAbortName } from '../../src/contract/lease-secrets-model.ts';
import { SuiLeaseSecrets } from '../../src/sui/lease-secrets.ts';
import { LeaseSecretsRefusedError } from '../../src/core/lease-secrets.ts';
import type { CommitmentSpec, SecretId } from '../contract/vectors/market-scenarios.ts';
import { SuiAttestations } from '../../src/sui/attestations.ts';
import { AttestationRefusedError } from '../../src/core/attestation.ts';
import { commitmentOf } from '../../src/contract/attestation-model.ts';

/**
 * The market's scenario vectors (contracts/tests/market_scenarios.json, and lease_access_scenarios.json, whose
 * `seal_approve_lease` steps are dry-run with the requester as sender, as the key servers do) as signed transactions
 * through SuiMarket and SuiLedger against each devnet front, with the devnet Clock set to each step's time: every abort must come
 * back as MarketRefusedError naming its constant, every coin paid must be the one the vector says, and after every
 * step deposits = paid + refunded + held in leases (read from chain), and stakes = withdrawn + slashed + held.
 */
const read = (source: string) => parseMarketScenarios(JSON.parse(readFileSync(new URL(`../../contracts/tests/${source}`, import.meta.url), 'utf8')), source);
const file = read('market_scenarios.json');
/** The lease's Seal policy, in the same format: its `seal_approve_lease` steps are dry-run as the key servers do. */
const leaseAccess = read('lease_access_scenarios.json');
/** A lease's secrets: `set_secrets` through SuiLeaseSecrets, both policies dry-run like `seal_approve_lease`. */
const leaseSecrets = read('lease_secrets_scenarios.json');
/** Build attestations: every call through SuiAttestations, with the cap the step names. */
const attestations = read('attestation_scenarios.json');
const hex = (b: Uint8Array) => Buffer.from(b).toString('hex');
const SUI_COIN = normalizeStructTag('0x2::coin::Coin<0x2::sui::SUI>');

class Actors {
  readonly #front: Front;
  readonly #keys = new Map<string, Ed25519Keypair>();
  readonly #funded = new Set<string>();
  readonly #admin: Ed25519Keypair;
  constructor(front: Front, admin: Ed25519Keypair) {
    this.#front = front;
    this.#admin = admin;
  }
  key(actor: string): Ed25519Keypair {
    if (actor === file.admin) return this.#admin;
    let key = this.#keys.get(actor);
    if (!key) this.#keys.set(actor, (key = Ed25519Keypair.generate()));
    return key;
  }
  address(actor: string): string {
    return this.key(actor).toSuiAddress();
  }
  async as(actor: string): Promise<{ ledger: SuiLedger; market: SuiMarket }> {
    const front = this.#front;
    const signer = this.key(actor);
    if (actor !== file.admin && !this.#funded.has(actor)) {
      await front.faucet(signer.toSuiAddress());
      this.#funded.add(actor);
    }
    const ledger = new SuiLedger({ client: front.client, signer, packageId: front.packageId, registryId: front.registryId });
    return { ledger, market: new SuiMarket({ client: front.client, ledger, packageId: front.packageId, marketId: front.marketId }) };
  }
}

interface Labels {
  repos: Map<string, string>;
  providers: Map<string, string>;
  /** Provider label → its ProviderCap's id. */
  caps: Map<string, string>;
  leases: Map<string, string>;
  /** Lease label → its tenant, repository and provider labels. */
  leaseOf: Map<string, { tenant: string; repo: string; provider: string }>;
}

/**
 * Whether the adapter cannot express the call (it always uses the signer's own cap, the lease's repository and the
 * tenant's or provider's side): a foreign cap, another repository, a close by someone who is neither. Those go to
 * the chain as hand-built calls through the ledger, so their aborts still come from the chain.
 */
function needsRawCall(step: MarketStep, labels: Labels, owners: Map<string, string>): boolean {
  const c = step.call;
  const lease = 'lease' in c ? labels.leaseOf.get(c.lease) : undefined;
  if ('cap' in c) {
    const own = 'provider' in c ? c.provider : lease!.provider;
    if (c.cap !== own || owners.get(c.cap) !== step.sender) return true;
  }
  if (c.call === 'record_deploy') return c.repo !== lease!.repo;
  if (c.call === 'state_url' || c.call === 'withdraw_url') return c.provider !== lease!.provider;
  if (c.call === 'close') return step.sender !== lease!.tenant;
  return false;
}

async function rawCall(front: Front, ledger: SuiLedger, step: MarketStep, labels: Labels): Promise<{ outcome: string; digest: string | null }> {
  const c = step.call;
  const target = (fn: string) => `${front.packageId}::market::${fn}` as const;
  try {
    const result = await ledger.submit((tx) => {
      const lease = 'lease' in c ? tx.object(labels.leases.get(c.lease)!) : null;
      const provider = 'provider' in c ? tx.object(labels.providers.get(c.provider)!) : null;
      const cap = 'cap' in c ? tx.object(labels.caps.get(c.cap)!) : null;
      switch (c.call) {
        case 'claim':
          tx.moveCall({ target: target('claim'), arguments: [lease!, provider!, cap!, tx.object.clock()] });
          break;
        case 'provider_close':
          tx.moveCall({ target: target('provider_close'), arguments: [lease!, provider!, cap!, tx.object.clock()] });
          break;
        case 'close':
          tx.moveCall({ target: target('close'), arguments: [lease!, provider!, tx.object.clock()] });
          break;
        case 'withdraw_stake':
          tx.moveCall({ target: target('withdraw_stake'), arguments: [provider!, cap!, tx.object.clock()] });
          break;
        case 'record_deploy':
          tx.moveCall({
            target: target('record_deploy'),
            arguments: [lease!, cap!, tx.object(labels.repos.get(c.repo)!), tx.pure.vector('u8', [...c.commit]), tx.pure.u256(c.artifact), tx.pure.vector('u8', [...c.sha256]), tx.object.clock()],
          });
          break;
        case 'state_url':
          tx.moveCall({ target: target('state_url'), arguments: [lease!, provider!, cap!, tx.pure.string(c.url), tx.object.clock()] });
          break;
        case 'withdraw_url':
          tx.moveCall({ target: target('withdraw_url'), arguments: [lease!, provider!, cap!, tx.object.clock()] });
          break;
        default:
          throw new Error(`no hand-built form of ${c.call}`);
      }
    }, c.call, (abort) => marketError(c.call, abort));
    return { outcome: 'ok', digest: result.digest };
  } catch (error) {
    if (error instanceof MarketRefusedError) return { outcome: error.abortName, digest: null };
    throw error;
  }
}

/** The bytes of a secrets key id the vector describes, from the labels' object ids. */
function secretIdBytes(labels: Labels, id: SecretId): number[] {
  const bytes = (objectId: string) => [...Buffer.from(objectId.slice(2), 'hex')];
  const lease = id.lease === null ? [] : [...bytes(labels.leases.get(id.lease)!), ...(id.domain ? SECRETS_DOMAIN : [])];
  const repo = id.repo === null ? [] : bytes(labels.repos.get(id.repo)!);
  return [...lease, ...repo, ...id.suffix];
}

/** The commitment bytes the vector describes, with the labels' provider ids. */
function commitmentBytes(labels: Labels, spec: CommitmentSpec): Uint8Array {
  return 'raw' in spec ? spec.raw : commitmentOf(spec.tar, spec.root, labels.providers.get(spec.provider)!, spec.nonce);
}

/** Runs one step; returns its outcome and, when it landed, its digest. */
async function perform(front: Front, actors: Actors, step: MarketStep, labels: Labels, owners: Map<string, string>): Promise<{ outcome: string; digest: string | null }> {
  const { ledger, market } = await actors.as(step.sender);
  const c = step.call;
  if (c.call === 'seal_approve_lease') {
    // The lease's Seal policy is no transaction anyone sends: dry-run as the key servers do, with the requester as sender.
    const prefix = c.id.repo === null ? [] : [...Buffer.from(labels.repos.get(c.id.repo)!.slice(2), 'hex')];
    const outcome = await simulateAs(front, actors.address(step.sender), leaseAccessAbortName, (tx) => {
      tx.moveCall({
        target: `${front.packageId}::lease_access::seal_approve_lease`,
        arguments: [tx.pure.vector('u8', [...prefix, ...c.id.suffix]), tx.object(labels.repos.get(c.repo)!), tx.object(labels.leases.get(c.lease)!), tx.object(labels.caps.get(c.cap)!), tx.object.clock()],
      });
    });
    return { outcome, digest: null };
  }
  if (c.call === 'seal_approve_lease_secrets' || c.call === 'seal_approve_lease_secrets_as_tenant') {
    const outcome = await simulateAs(front, actors.address(step.sender), leaseSecretsAbortName, (tx) => {
      const id = tx.pure.vector('u8', secretIdBytes(labels, c.id));
      const lease = tx.object(labels.leases.get(c.lease)!);
      tx.moveCall({
        target: `${front.packageId}::lease_secrets::${c.call}`,
        arguments: c.call === 'seal_approve_lease_secrets' ? [id, tx.object(labels.repos.get(c.repo)!), lease, tx.object(labels.caps.get(c.cap)!), tx.object.clock()] : [id, lease],
      });
    });
    return { outcome, digest: null };
  }
  if (c.call === 'set_secrets') {
    try {
      const secrets = new SuiLeaseSecrets({ client: front.client, ledger, packageId: front.packageId });
      return { outcome: 'ok', digest: (await secrets.set(labels.leases.get(c.lease)!, u256ToBlobId(c.blob_id), c.version)).digest };
    } catch (error) {
      if (error instanceof LeaseSecretsRefusedError) return { outcome: error.abortName, digest: null };
      throw error;
    }
  }
  if (c.call === 'set_windows' || c.call === 'commit_build' || c.call === 'reveal_build' || c.call === 'require_reproduced') {
    const attest = new SuiAttestations({ client: front.client, ledger, packageId: front.packageId, marketId: front.marketId });
    try {
      if (c.call === 'set_windows') return { outcome: 'ok', digest: (await attest.setWindows(Number(c.commit_ms), Number(c.reveal_ms))).digest };
      if (c.call === 'require_reproduced') return { outcome: 'ok', digest: (await attest.requireReproduced(labels.leases.get(c.lease)!, Number(c.required))).digest };
      const attester = { providerId: labels.providers.get(c.provider)!, capId: labels.caps.get(c.cap)! };
      const at = { repositoryId: labels.repos.get(c.repo)!, commit: hex(c.commit), buildKey: hex(c.build_key) };
      if (c.call === 'commit_build') return { outcome: 'ok', digest: (await attest.commitBuild(attester, at, commitmentBytes(labels, c.commitment))).digest };
      return { outcome: 'ok', digest: (await attest.revealBuild(attester, at, { tarSha256: hex(c.tar), manifestRoot: hex(c.root) }, c.nonce)).digest };
    } catch (error) {
      if (error instanceof AttestationRefusedError) return { outcome: error.abortName, digest: null };
      throw error;
    }
  }
  if (needsRawCall(step, labels, owners)) return rawCall(front, ledger, step, labels);
  try {
    let digest: string;
    switch (c.call) {
      case 'set_params':
        digest = (await market.setParams({ minStake: c.min_stake, unbondingMs: Number(c.unbonding_ms), minLeaseMs: Number(c.min_lease_ms) })).digest;
        break;
      case 'create_repository':
      case 'create_private_repository': {
        const created = await ledger.createRepository(c.name, 'refs/heads/main', { private: c.call === 'create_private_repository' });
        labels.repos.set(c.repo, created.id);
        digest = created.digest;
        break;
      }
      case 'push':
        digest = (await ledger.push(labels.repos.get(c.repo)!, [{ name: c.ref, old: c.old && hex(c.old), new: hex(c.new), force: false }], null)).digest;
        break;
      case 'register': {
        const created = await market.register(c.stake, c.price_per_ms, c.endpoint, Object.fromEntries(c.keys.map((k, i) => [k, c.values[i]!])));
        if (new Set(c.keys).size !== c.keys.length) throw new Error('the scenario repeats an attribute key: the register call cannot pass it as a record');
        labels.providers.set(c.provider, created.providerId);
        const { objects } = await front.client.core.listOwnedObjects({ owner: actors.address(step.sender), type: providerCapType(front.packageId), include: { content: true } });
        labels.caps.set(c.provider, objects.find((o) => ProviderCap.parse(o.content).provider === created.providerId)!.objectId);
        digest = created.digest;
        break;
      }
      case 'add_stake':
        digest = (await market.addStake(labels.providers.get(c.provider)!, c.amount)).digest;
        break;
      case 'request_unbond':
        digest = (await market.requestUnbond(labels.providers.get(c.provider)!)).digest;
        break;
      case 'withdraw_stake':
        digest = (await market.withdrawStake(labels.providers.get(c.provider)!)).digest;
        break;
      case 'slash':
        digest = (await market.slash(labels.providers.get(c.provider)!, labels.leases.get(c.lease)!, c.amount)).digest;
        break;
      case 'open_lease': {
        const opened = await market.openLease(labels.providers.get(c.provider)!, labels.repos.get(c.repo)!, c.ref, c.deposit);
        labels.leases.set(c.lease, opened.leaseId);
        labels.leaseOf.set(c.lease, { tenant: step.sender, repo: c.repo, provider: c.provider });
        digest = opened.digest;
        break;
      }
      case 'top_up':
        digest = (await market.topUp(labels.leases.get(c.lease)!, c.amount)).digest;
        break;
      case 'settle':
        digest = (await market.settle(labels.leases.get(c.lease)!)).digest;
        break;
      case 'claim':
        digest = (await market.claim(labels.leases.get(c.lease)!)).digest;
        break;
      case 'close':
      case 'provider_close':
        digest = (await market.close(labels.leases.get(c.lease)!)).digest;
        break;
      case 'record_deploy':
        digest = (await market.recordDeploy(labels.leases.get(c.lease)!, hex(c.commit), u256ToBlobId(c.artifact), hex(c.sha256))).digest;
        break;
      case 'add_writer':
        digest = (await ledger.addWriter(labels.repos.get(c.repo)!, actors.address(c.member))).digest;
        break;
      case 'add_reader':
        digest = (await ledger.addReader(labels.repos.get(c.repo)!, actors.address(c.member))).digest;
        break;
      case 'remove_reader':
        digest = (await ledger.removeReader(labels.repos.get(c.repo)!, actors.address(c.member))).digest;
        break;
      case 'state_url':
        digest = (await market.stateUrl(labels.leases.get(c.lease)!, c.url)).digest;
        break;
      case 'withdraw_url':
        digest = (await market.withdrawUrl(labels.leases.get(c.lease)!)).digest;
        break;
    }
    return { outcome: 'ok', digest };
  } catch (error) {
    if (error instanceof MarketRefusedError) return { outcome: error.abortName, digest: null };
    throw error;
  }
}

// The in-process client and gRPC (the production transport); JSON-RPC is covered by the repository's vectors.
for (const factory of [inProcess, grpcWebServer]) {
  const test = suite<{ front: Front; engine: ChainEngine; admin: Ed25519Keypair }>(`market scenario vectors as signed transactions (${factory.name})`);
  test.before(async (context) => {
    context.front = await factory.open();
    // A second engine on the same state directory: the test's hand on the devnet Clock (and the AdminCap's key).
    context.engine = await ChainEngine.open(join(context.front.dir, 'chain'));
    context.admin = Ed25519Keypair.fromSecretKey(context.engine.genesis.faucetKey);
  });
  test.after(async ({ front }) => {
    await front.close();
  });

  for (const [source, f] of [['market_scenarios.json', file], ['lease_access_scenarios.json', leaseAccess], ['lease_secrets_scenarios.json', leaseSecrets], ['attestation_scenarios.json', attestations]] as const) for (const scenario of f.scenarios) {
    // Steps whose call cannot be expressed through the adapter (a register with a repeated key) run on the twin only.
    if (scenario.steps.some((s) => s.call.call === 'register' && new Set(s.call.keys).size !== s.call.keys.length)) continue;
    test(`${source}: ${scenario.name}`, async ({ front, engine, admin }) => {
      const actors = new Actors(front, admin);
      const labels: Labels = { repos: new Map(), providers: new Map(), caps: new Map(), leases: new Map(), leaseOf: new Map() };
      const owners = new Map<string, string>(scenario.steps.flatMap((s) => (s.call.call === 'register' ? [[s.call.provider, s.sender] as [string, string]] : [])));
      const names = new Map(['admin', ...f.actors.keys()].map((a) => [actors.address(a), a]));
      const books = { deposits: 0n, paid: 0n, refunded: 0n, staked: 0n, withdrawn: 0n, slashed: 0n };
      const base = (await engine.clockMs()) + 1000n;
      for (const [i, step] of scenario.steps.entries()) {
        const where = `step ${i + 1} (${step.call.call} by ${step.sender} at ${step.clockMs})`;
        await actors.as(step.sender); // the faucet's transaction runs before the clock is set for the step
        await engine.setClock(base + step.clockMs, { frozen: true });
        const { outcome, digest } = await perform(front, actors, step, labels, owners);
        assert.is(outcome, step.expect, where);
        if (digest === null) continue;

        const tx = await front.client.core.getTransaction({ digest, include: { effects: true, events: true, objectTypes: true } });
        const landed = tx.Transaction!;
        // The coins the call created, by owner.
        const created = landed.effects!.changedObjects.filter((o) => o.idOperation === 'Created' && normalizeStructTag(landed.objectTypes![o.objectId]!) === SUI_COIN);
        const { objects } = await front.client.core.getObjects({ objectIds: created.map((o) => o.objectId), include: { content: true } });
        const paid = new Map<string, bigint>();
        for (const coin of objects) {
          if (coin instanceof Error) throw coin;
          const owner = names.get((coin.owner as { AddressOwner: string }).AddressOwner)!;
          assert.not.ok(paid.has(owner), `${where}: two coins to ${owner}`);
          paid.set(owner, Buffer.from(coin.content).readBigUInt64LE(32));
        }
        assert.equal(paid, step.pays, `${where}: payments`);

        books.deposits += depositOf(step);
        books.staked += stakeOf(step);
        const events = (name: keyof typeof MarketEvents) =>
          landed.events!.filter((e) => normalizeStructTag(e.eventType) === normalizeStructTag(marketEventType(front.packageId, name))).map((e) => MarketEvents[name].parse(e.bcs) as any);
        for (const e of events('Claimed')) books.paid += e.amount;
        for (const e of events('LeaseClosed')) {
          books.paid += e.payout;
          books.refunded += e.refund;
        }
        for (const e of events('StakeWithdrawn')) books.withdrawn += e.amount;
        for (const e of events('Slashed')) books.slashed += e.amount;

        const { market } = await actors.as(step.sender);
        const leases = await Promise.all([...labels.leases.values()].map((id) => market.getLease(id)));
        const providers = await Promise.all([...labels.providers.values()].map((id) => market.getProvider(id)));
        const held = leases.reduce((sum, l) => sum + l.escrow + l.earned, 0n);
        assert.is(books.deposits, books.paid + books.refunded + held, `${where}: deposits = paid + refunded + held in leases`);
        assert.is(books.staked, books.withdrawn + books.slashed + providers.reduce((sum, p) => sum + p.stake, 0n), `${where}: stakes = withdrawn + slashed + held`);

        for (const [label, want] of step.providers) {
          const p = await market.getProvider(labels.providers.get(label)!);
          if (want.stake !== undefined) assert.is(p.stake, want.stake, `${where}: ${label}.stake`);
          if (want.active_leases !== undefined) assert.is(BigInt(p.activeLeases), want.active_leases, `${where}: ${label}.active_leases`);
          if (want.completed_leases !== undefined) assert.is(BigInt(p.completedLeases), want.completed_leases, `${where}: ${label}.completed_leases`);
          if (want.provider_closed_leases !== undefined) assert.is(BigInt(p.providerClosedLeases), want.provider_closed_leases, `${where}: ${label}.provider_closed_leases`);
          if (want.slashed !== undefined) assert.is(p.slashed, want.slashed, `${where}: ${label}.slashed`);
          if (want.unbonds_at_ms !== undefined) assert.is(p.unbondsAtMs, want.unbonds_at_ms === null ? null : Number(base + want.unbonds_at_ms), `${where}: ${label}.unbonds_at_ms`);
        }
        const reader = new SuiAttestations({ client: front.client, ledger: (await actors.as(step.sender)).ledger, packageId: front.packageId, marketId: front.marketId });
        for (const [label, want] of step.leases) {
          const l = await market.getLease(labels.leases.get(label)!);
          if (want.state !== undefined) assert.is(l.state, want.state, `${where}: ${label}.state`);
          if (want.escrow !== undefined) assert.is(l.escrow, want.escrow, `${where}: ${label}.escrow`);
          if (want.earned !== undefined) assert.is(l.earned, want.earned, `${where}: ${label}.earned`);
          if (want.settled_until_ms !== undefined) assert.is(l.settledUntilMs, Number(base + want.settled_until_ms), `${where}: ${label}.settled_until_ms`);
          if (want.last_commit !== undefined) assert.is(l.lastDeploy?.commit ?? null, want.last_commit === null ? null : hex(want.last_commit), `${where}: ${label}.last_commit`);
          if (want.url !== undefined) assert.is(l.url, want.url, `${where}: ${label}.url`);
          if (want.secrets_version !== undefined) {
            const secrets = new SuiLeaseSecrets({ client: front.client, ledger: (await actors.as(step.sender)).ledger, packageId: front.packageId });
            assert.is((await secrets.current(labels.leases.get(label)!))?.version ?? 0n, want.secrets_version, `${where}: ${label}.secrets_version`);
          }
          if (want.required !== undefined) assert.is(BigInt(await reader.requiredReproductions(labels.leases.get(label)!)), want.required, `${where}: ${label}.required`);
          if (want.end !== undefined) {
            const by = want.end && actors.address(want.end.by);
            const wanted = want.end && { reason: want.end.reason, by, byTenant: by === l.tenant, atMs: Number(base + want.end.at_ms) };
            assert.equal(l.end, wanted, `${where}: ${label}.end`);
          }
        }
        for (const want of step.tallies) {
          const tally = await reader.tally({ repositoryId: labels.repos.get(want.repo)!, commit: hex(want.commit), buildKey: hex(want.build_key) });
          assert.is(tally?.status ?? 'pending', want.status, `${where}: tally status`);
          assert.is(BigInt(tally?.committed.length ?? 0), want.commitments, `${where}: tally commitments`);
          assert.is(BigInt(tally?.revealed.length ?? 0), want.reveals, `${where}: tally reveals`);
        }
      }
    });
  }
  test.run();
}
