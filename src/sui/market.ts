import type { ClientWithCoreApi, SuiClientTypes } from '@mysten/sui/client';
import type { Transaction } from '@mysten/sui/transactions';
import { deriveDynamicFieldID, normalizeStructTag, normalizeSuiAddress } from '@mysten/sui/utils';
import { blobIdToU256, u256ToBlobId } from '../core/blob-id-codec.ts';
import { Clock } from '../contract/bcs.ts';
import {
  AdminCap, END_KEY_BCS, Lease, LeaseEnd as LeaseEndLayout, LeaseEndReason, Market, MarketEvents, Provider, ProviderCap, adminCapType,
  endKeyType, leaseEndType, leaseType, marketEventType, marketType, providerCapType, providerType,
} from '../contract/market-bcs.ts';
import type { LeaseValue, MarketEventName, ProviderValue } from '../contract/market-bcs.ts';
import type { TxReceipt } from '../ports/ledger.ts';
import type { DeployedRecord, LeaseEnd, LeaseEndReason as EndReason, LeaseInfo, MarketLedger, MarketParams, Payout, ProviderInfo, SecretsPointer } from '../ports/market.ts';
import { SuiLeaseSecrets } from './lease-secrets.ts';
import { SuiAttestations } from './attestations.ts';
import type { AttestationLedger } from '../ports/attestations.ts';
import type { TransactionSubmitter } from './transactions.ts';
import { MarketObjectNotFoundError, MissingCapError, NotLeasePartyError, marketError } from './market-errors.ts';
import { TransactionFailedError } from './errors.ts';

export interface SuiMarketOptions {
  client: ClientWithCoreApi;
  /** Signs and submits (its signer, gas lock and retries): the market's transactions are the ledger's. */
  ledger: TransactionSubmitter;
  packageId: string;
  marketId: string;
  /** Runs before each write (the local networks' faucet tops the signer up). */
  beforeWrite?: () => Promise<void>;
}

const PAGE = 50;
const CLOCK = '0x6';
const STATES = ['open', 'exhausted', 'closed'] as const;
/** `LeaseEnd.reason` codes in words. */
const END_REASONS = new Map(Object.entries(LeaseEndReason).map(([name, code]) => [code as number, name as EndReason]));
const hex = (bytes: Uint8Array) => Buffer.from(bytes).toString('hex');

/**
 * The compute market over `client.core`: reads decode the market's objects with the contract's BCS layouts; writes
 * are one programmable transaction each, submitted through the ledger (same signer, same gas lock), and a market
 * abort comes back as MarketRefusedError in words. Coins for stakes and deposits are split from the gas coin.
 */
export class SuiMarket implements MarketLedger {
  readonly #client: ClientWithCoreApi;
  readonly #ledger: TransactionSubmitter;
  readonly #pkg: string;
  readonly #marketId: string;
  readonly #beforeWrite: () => Promise<void>;
  readonly #secrets: SuiLeaseSecrets;
  readonly #attestations: SuiAttestations;

  constructor(options: SuiMarketOptions) {
    this.#client = options.client;
    this.#ledger = options.ledger;
    this.#pkg = normalizeSuiAddress(options.packageId);
    this.#marketId = normalizeSuiAddress(options.marketId);
    this.#beforeWrite = options.beforeWrite ?? (async () => {});
    this.#secrets = new SuiLeaseSecrets({ client: options.client, ledger: options.ledger, packageId: options.packageId });
    this.#attestations = new SuiAttestations({ ...options, beforeWrite: this.#beforeWrite });
  }

  signerAddress(): Promise<string> {
    return this.#ledger.signerAddress();
  }

  async params(): Promise<MarketParams> {
    const market = Market.parse(await this.#content(this.#marketId, 'market', marketType(this.#pkg)));
    return { minStake: market.min_stake, unbondingMs: Number(market.unbonding_ms), minLeaseMs: Number(market.min_lease_ms) };
  }

  async clockMs(): Promise<number> {
    const [clock] = (await this.#client.core.getObjects({ objectIds: [CLOCK], include: { content: true } })).objects;
    if (clock instanceof Error) throw clock;
    return Number(Clock.parse(clock.content).timestamp_ms);
  }

  async getProvider(id: string): Promise<ProviderInfo> {
    return providerInfo(Provider.parse(await this.#content(id, 'provider', providerType(this.#pkg))));
  }

  async listProviders(): Promise<ProviderInfo[]> {
    const ids = (await this.#events('ProviderRegistered')).map(({ bcs }) => MarketEvents.ProviderRegistered.parse(bcs).provider);
    const providers: ProviderInfo[] = [];
    for (let start = 0; start < ids.length; start += PAGE) {
      const { objects } = await this.#client.core.getObjects({ objectIds: ids.slice(start, start + PAGE), include: { content: true } });
      for (const object of objects) if (!(object instanceof Error)) providers.push(providerInfo(Provider.parse(object.content)));
    }
    return providers;
  }

  async ownProviders(): Promise<string[]> {
    return (await this.#caps()).map((cap) => cap.provider);
  }

  async providerCapHolder(providerId: string): Promise<string | null> {
    const provider = normalizeSuiAddress(providerId);
    const registered = (await this.#events('ProviderRegistered')).find(({ bcs }) => MarketEvents.ProviderRegistered.parse(bcs).provider === provider);
    if (!registered) throw new MarketObjectNotFoundError('provider', provider);
    // The cap's id is in no event: the registering transaction created it.
    const result = await this.#client.core.getTransaction({ digest: registered.digest, include: { effects: true, objectTypes: true } });
    const tx = result.Transaction ?? result.FailedTransaction;
    const capType = normalizeStructTag(providerCapType(this.#pkg));
    const capId = Object.entries(tx?.objectTypes ?? {}).find(([id, type]) => normalizeStructTag(type) === capType
      && tx?.effects?.changedObjects.some((change) => change.objectId === id && change.idOperation === 'Created'))?.[0];
    if (!capId) return null;
    const [cap] = (await this.#client.core.getObjects({ objectIds: [capId] })).objects;
    if (!cap || cap instanceof Error) return null;
    return cap.owner.$kind === 'AddressOwner' ? normalizeSuiAddress(cap.owner.AddressOwner) : null;
  }

  async getLease(id: string): Promise<LeaseInfo> {
    const lease = Lease.parse(await this.#content(id, 'lease', leaseType(this.#pkg)));
    return leaseInfo(lease, (await this.#ends([lease]))[0]!);
  }

  /**
   * How each lease ended, in order: a closed lease's `EndKey` field (its id derived as Sui does), read for the closed
   * ones only, in one read per PAGE of them; null for a lease that is not closed.
   */
  async #ends(leases: readonly LeaseValue[]): Promise<(LeaseEnd | null)[]> {
    const closed = leases.filter((lease) => lease.state === STATES.indexOf('closed'));
    const fieldType = normalizeStructTag(`0x2::dynamic_field::Field<${endKeyType(this.#pkg)}, ${leaseEndType(this.#pkg)}>`);
    const ends = new Map<string, LeaseEnd>();
    for (let start = 0; start < closed.length; start += PAGE) {
      const batch = closed.slice(start, start + PAGE);
      const objectIds = batch.map((lease) => deriveDynamicFieldID(lease.id, endKeyType(this.#pkg), END_KEY_BCS));
      const { objects } = await this.#client.core.getObjects({ objectIds, include: { content: true } });
      batch.forEach((lease, i) => {
        const field = objects[i]!;
        // A lease closed before the package recorded why has no field.
        if (field instanceof Error || normalizeStructTag(field.type) !== fieldType) return;
        const end = LeaseEndLayout.parse(field.content.slice(32 + END_KEY_BCS.length));
        const reason = END_REASONS.get(end.reason);
        if (reason) ends.set(lease.id, { reason, by: end.by, byTenant: end.by === lease.tenant, atMs: Number(end.at_ms) });
      });
    }
    return leases.map((lease) => ends.get(lease.id) ?? null);
  }

  async listLeases(providerId: string): Promise<LeaseInfo[]> {
    const provider = normalizeSuiAddress(providerId);
    return this.#leasesOpened((event) => event.provider === provider);
  }

  async leasesOfRepository(repositoryId: string): Promise<LeaseInfo[]> {
    const repository = normalizeSuiAddress(repositoryId);
    return this.#leasesOpened((event) => event.repository === repository);
  }

  /** The leases whose `LeaseOpened` event `wanted` picks, each read from its object: its state now. */
  async #leasesOpened(wanted: (event: ReturnType<typeof MarketEvents.LeaseOpened.parse>) => boolean): Promise<LeaseInfo[]> {
    const ids = (await this.#events('LeaseOpened')).map(({ bcs }) => MarketEvents.LeaseOpened.parse(bcs)).filter(wanted).map((e) => e.lease);
    const leases: LeaseValue[] = [];
    for (let start = 0; start < ids.length; start += PAGE) {
      const { objects } = await this.#client.core.getObjects({ objectIds: ids.slice(start, start + PAGE), include: { content: true } });
      for (const object of objects) if (!(object instanceof Error)) leases.push(Lease.parse(object.content));
    }
    const ends = await this.#ends(leases);
    return leases.map((lease, i) => leaseInfo(lease, ends[i]!));
  }

  async listDeployments(repositoryId: string): Promise<DeployedRecord[]> {
    const repository = normalizeSuiAddress(repositoryId);
    const records: DeployedRecord[] = (await this.#events('Deployed'))
      .map(({ bcs, digest }) => ({ event: MarketEvents.Deployed.parse(bcs), digest }))
      .filter(({ event }) => event.repository === repository)
      .map(({ event, digest }) => ({
        lease: event.lease,
        provider: event.provider,
        repository: event.repository,
        ref: event.ref_name,
        commit: hex(event.commit),
        artifact: u256ToBlobId(event.artifact),
        sha256: hex(event.sha256),
        atMs: Number(event.at_ms),
        txDigest: digest,
      }));
    const leases = new Map(await Promise.all([...new Set(records.map((record) => record.lease))].map(async (lease) => [lease, await this.getLease(lease)] as const)));
    return records.map((record) => {
      const { url, end } = leases.get(record.lease)!;
      return { ...record, ...(url ? { url } : {}), ...(end ? { leaseEnd: end } : {}) };
    });
  }

  async register(stake: bigint, pricePerMs: bigint, endpoint: string, attributes: Record<string, string>): Promise<TxReceipt & { providerId: string }> {
    const entries = Object.entries(attributes);
    const result = await this.#submit('registering as a provider', (tx) => {
      const [coin] = tx.splitCoins(tx.gas, [tx.pure.u64(stake)]);
      tx.moveCall({
        target: this.#target('register'),
        arguments: [tx.object(this.#marketId), coin!, tx.pure.u64(pricePerMs), tx.pure.string(endpoint), tx.pure.vector('string', entries.map(([k]) => k)), tx.pure.vector('string', entries.map(([, v]) => v))],
      });
    });
    return { digest: result.digest, providerId: this.#event(result, 'ProviderRegistered').provider };
  }

  async addStake(providerId: string, amount: bigint): Promise<TxReceipt> {
    const cap = await this.#capFor(providerId);
    const result = await this.#submit(`adding stake to provider ${providerId}`, (tx) => {
      const [coin] = tx.splitCoins(tx.gas, [tx.pure.u64(amount)]);
      tx.moveCall({ target: this.#target('add_stake'), arguments: [tx.object(providerId), tx.object(cap), coin!] });
    });
    return { digest: result.digest };
  }

  async requestUnbond(providerId: string): Promise<TxReceipt & { withdrawableAtMs: number }> {
    const cap = await this.#capFor(providerId);
    const result = await this.#submit(`unbonding provider ${providerId}`, (tx) => {
      tx.moveCall({ target: this.#target('request_unbond'), arguments: [tx.object(this.#marketId), tx.object(providerId), tx.object(cap), tx.object(CLOCK)] });
    });
    return { digest: result.digest, withdrawableAtMs: Number(this.#event(result, 'UnbondRequested').withdrawable_at_ms) };
  }

  async withdrawStake(providerId: string): Promise<TxReceipt & { amount: bigint }> {
    const cap = await this.#capFor(providerId);
    const result = await this.#submit(`withdrawing the stake of provider ${providerId}`, (tx) => {
      tx.moveCall({ target: this.#target('withdraw_stake'), arguments: [tx.object(providerId), tx.object(cap), tx.object(CLOCK)] });
    });
    return { digest: result.digest, amount: this.#event(result, 'StakeWithdrawn').amount };
  }

  async openLease(providerId: string, repositoryId: string, ref: string, deposit: bigint): Promise<TxReceipt & { leaseId: string }> {
    const result = await this.#submit(`opening a lease of provider ${providerId}`, (tx) => {
      const [coin] = tx.splitCoins(tx.gas, [tx.pure.u64(deposit)]);
      tx.moveCall({
        target: this.#target('open_lease'),
        arguments: [tx.object(this.#marketId), tx.object(providerId), tx.object(repositoryId), tx.pure.string(ref), coin!, tx.object(CLOCK)],
      });
    });
    return { digest: result.digest, leaseId: this.#event(result, 'LeaseOpened').lease };
  }

  async topUp(leaseId: string, amount: bigint): Promise<TxReceipt> {
    await this.getLease(leaseId); // one that does not exist is told as such, not as the transaction's refusal
    const result = await this.#submit(`topping up lease ${leaseId}`, (tx) => {
      const [coin] = tx.splitCoins(tx.gas, [tx.pure.u64(amount)]);
      tx.moveCall({ target: this.#target('top_up'), arguments: [tx.object(leaseId), coin!, tx.object(CLOCK)] });
    });
    return { digest: result.digest };
  }

  async settle(leaseId: string): Promise<TxReceipt> {
    const result = await this.#submit(`settling lease ${leaseId}`, (tx) => {
      tx.moveCall({ target: this.#target('settle'), arguments: [tx.object(leaseId), tx.object(CLOCK)] });
    });
    return { digest: result.digest };
  }

  async claim(leaseId: string): Promise<Payout> {
    const lease = await this.getLease(leaseId);
    const cap = await this.#capFor(lease.provider);
    const result = await this.#submit(`claiming lease ${leaseId}`, (tx) => {
      tx.moveCall({ target: this.#target('claim'), arguments: [tx.object(leaseId), tx.object(lease.provider), tx.object(cap), tx.object(CLOCK)] });
    });
    return this.#payout(result);
  }

  async close(leaseId: string): Promise<Payout> {
    const lease = await this.getLease(leaseId);
    const signer = normalizeSuiAddress(await this.signerAddress());
    const asTenant = lease.tenant === signer;
    const cap = asTenant ? null : (await this.#caps()).find((c) => c.provider === normalizeSuiAddress(lease.provider))?.id;
    if (!asTenant && cap === undefined) throw new NotLeasePartyError(leaseId, signer, lease.tenant, lease.provider);
    const result = await this.#submit(`closing lease ${leaseId}`, (tx) => {
      const args = [tx.object(leaseId), tx.object(lease.provider), ...(cap ? [tx.object(cap)] : []), tx.object(CLOCK)];
      tx.moveCall({ target: this.#target(cap ? 'provider_close' : 'close'), arguments: args });
    });
    return this.#payout(result);
  }

  async recordDeploy(leaseId: string, commit: string, artifact: string, sha256: string): Promise<TxReceipt> {
    const lease = await this.getLease(leaseId);
    const cap = await this.#capFor(lease.provider);
    const result = await this.#submit(`recording a deploy of ${commit} for lease ${leaseId}`, (tx) => {
      tx.moveCall({
        target: this.#target('record_deploy'),
        arguments: [
          tx.object(leaseId), tx.object(cap), tx.object(lease.repository), tx.pure.vector('u8', [...Buffer.from(commit, 'hex')]),
          tx.pure.u256(blobIdToU256(artifact)), tx.pure.vector('u8', [...Buffer.from(sha256, 'hex')]), tx.object(CLOCK),
        ],
      });
    });
    return { digest: result.digest };
  }

  async stateUrl(leaseId: string, url: string): Promise<TxReceipt> {
    const lease = await this.getLease(leaseId);
    const cap = await this.#capFor(lease.provider);
    const result = await this.#submit(`stating the URL ${url} of lease ${leaseId}`, (tx) => {
      tx.moveCall({ target: this.#target('state_url'), arguments: [tx.object(leaseId), tx.object(lease.provider), tx.object(cap), tx.pure.string(url), tx.object(CLOCK)] });
    });
    return { digest: result.digest };
  }

  async withdrawUrl(leaseId: string): Promise<TxReceipt> {
    const lease = await this.getLease(leaseId);
    const cap = await this.#capFor(lease.provider);
    const result = await this.#submit(`withdrawing the URL of lease ${leaseId}`, (tx) => {
      tx.moveCall({ target: this.#target('withdraw_url'), arguments: [tx.object(leaseId), tx.object(lease.provider), tx.object(cap), tx.object(CLOCK)] });
    });
    return { digest: result.digest };
  }

  async slash(providerId: string, leaseId: string, amount: bigint): Promise<TxReceipt> {
    const admin = await this.#adminCap();
    const result = await this.#submit(`slashing provider ${providerId}`, (tx) => {
      tx.moveCall({ target: this.#target('slash'), arguments: [tx.object(admin), tx.object(providerId), tx.object(leaseId), tx.pure.u64(amount)] });
    });
    return { digest: result.digest };
  }

  async setParams(params: MarketParams): Promise<TxReceipt> {
    const admin = await this.#adminCap();
    const result = await this.#submit('setting the market parameters', (tx) => {
      tx.moveCall({
        target: this.#target('set_params'),
        arguments: [tx.object(this.#marketId), tx.object(admin), tx.pure.u64(params.minStake), tx.pure.u64(params.unbondingMs), tx.pure.u64(params.minLeaseMs)],
      });
    });
    return { digest: result.digest };
  }

  leaseSecrets(leaseId: string): Promise<SecretsPointer | null> {
    return this.#secrets.current(leaseId);
  }

  leaseSecretsOf(leaseIds: readonly string[]): Promise<Map<string, SecretsPointer | null>> {
    return this.#secrets.currentOf(leaseIds);
  }

  async setLeaseSecrets(leaseId: string, blobId: string, version: bigint): Promise<TxReceipt> {
    await this.#beforeWrite();
    return this.#secrets.set(leaseId, blobId, version);
  }

  attestations(): AttestationLedger {
    return this.#attestations;
  }

  #target(fn: string): `${string}::${string}::${string}` {
    return `${this.#pkg}::market::${fn}`;
  }

  async #submit(what: string, compose: (tx: Transaction) => void) {
    await this.#beforeWrite();
    return this.#ledger.submit(compose, what, (abort) => marketError(what, abort));
  }

  #event<N extends MarketEventName>(result: SuiClientTypes.Transaction<{ events: true }>, name: N): ReturnType<(typeof MarketEvents)[N]['parse']> {
    const found = this.#eventsOf(result, name)[0];
    if (!found) throw new TransactionFailedError(name, `transaction ${result.digest} emitted no ${name} event`, { digest: result.digest });
    return found;
  }

  #eventsOf<N extends MarketEventName>(result: SuiClientTypes.Transaction<{ events: true }>, name: N): ReturnType<(typeof MarketEvents)[N]['parse']>[] {
    const type = normalizeStructTag(marketEventType(this.#pkg, name));
    return result.events.filter((e) => normalizeStructTag(e.eventType) === type).map((e) => MarketEvents[name].parse(e.bcs) as ReturnType<(typeof MarketEvents)[N]['parse']>);
  }

  #payout(result: SuiClientTypes.Transaction<{ events: true }>): Payout {
    const claimed = this.#eventsOf(result, 'Claimed').reduce((sum, e) => sum + e.amount, 0n);
    const closed = this.#eventsOf(result, 'LeaseClosed');
    return {
      digest: result.digest,
      paid: claimed + closed.reduce((sum, e) => sum + e.payout, 0n),
      refunded: closed.reduce((sum, e) => sum + e.refund, 0n),
    };
  }

  async #events(name: MarketEventName): Promise<{ bcs: Uint8Array; digest: string }[]> {
    const out: { bcs: Uint8Array; digest: string }[] = [];
    let after: string | null = null;
    do {
      const page: SuiClientTypes.ListEventsResponse = await this.#client.core.listEvents({ filter: { eventType: marketEventType(this.#pkg, name) }, after, limit: PAGE });
      for (const event of page.events) out.push({ bcs: event.bcs, digest: event.transactionDigest });
      after = page.hasNextPage ? page.endCursor : null;
    } while (after !== null);
    return out;
  }

  async #owned(type: string): Promise<{ id: string; content: Uint8Array }[]> {
    const owner = await this.signerAddress();
    const out: { id: string; content: Uint8Array }[] = [];
    let cursor: string | null = null;
    do {
      const page: SuiClientTypes.ListOwnedObjectsResponse<{ content: true }> = await this.#client.core.listOwnedObjects({ owner, type, cursor, limit: PAGE, include: { content: true } });
      for (const object of page.objects) out.push({ id: object.objectId, content: object.content });
      cursor = page.hasNextPage ? page.cursor : null;
    } while (cursor !== null);
    return out;
  }

  async #caps(): Promise<{ id: string; provider: string }[]> {
    return (await this.#owned(providerCapType(this.#pkg))).map(({ id, content }) => ({ id, provider: ProviderCap.parse(content).provider }));
  }

  providerCapId(providerId: string): Promise<string> {
    return this.#capFor(providerId);
  }

  async #capFor(providerId: string): Promise<string> {
    const provider = normalizeSuiAddress(providerId);
    const cap = (await this.#caps()).find((c) => c.provider === provider);
    if (!cap) throw new MissingCapError(await this.signerAddress(), `the ProviderCap of provider ${provider}`);
    return cap.id;
  }

  async #adminCap(): Promise<string> {
    const [admin] = await this.#owned(adminCapType(this.#pkg));
    if (!admin) throw new MissingCapError(await this.signerAddress(), "the market's AdminCap");
    return AdminCap.parse(admin.content).id;
  }

  async #content(id: string, kind: string, type: string): Promise<Uint8Array> {
    const [object] = (await this.#client.core.getObjects({ objectIds: [normalizeSuiAddress(id)], include: { content: true } })).objects;
    if (object instanceof Error || normalizeStructTag(object.type) !== normalizeStructTag(type)) throw new MarketObjectNotFoundError(kind, normalizeSuiAddress(id));
    return object.content;
  }
}

function providerInfo(p: ProviderValue): ProviderInfo {
  return {
    id: p.id,
    owner: p.owner,
    stake: p.stake.value,
    pricePerMs: p.price_per_ms,
    endpoint: p.endpoint,
    attributes: Object.fromEntries(p.attributes.contents.map(({ key, value }) => [key, value])),
    activeLeases: Number(p.active_leases),
    unbondsAtMs: p.unbonds_at_ms === null ? null : Number(p.unbonds_at_ms),
    completedLeases: Number(p.completed_leases),
    providerClosedLeases: Number(p.provider_closed_leases),
    slashed: p.slashed,
  };
}

function leaseInfo(l: LeaseValue, end: LeaseEnd | null): LeaseInfo {
  return {
    id: l.id,
    tenant: l.tenant,
    provider: l.provider,
    repository: l.repository,
    ref: l.ref_name,
    pricePerMs: l.price_per_ms,
    escrow: l.escrow.value,
    earned: l.earned.value,
    settledUntilMs: Number(l.settled_until_ms),
    state: STATES[l.state] ?? 'closed',
    lastDeploy: l.last_deploy && { commit: hex(l.last_deploy.commit), artifact: u256ToBlobId(l.last_deploy.artifact), sha256: hex(l.last_deploy.sha256), atMs: Number(l.last_deploy.at_ms) },
    url: l.url,
    end,
  };
}
