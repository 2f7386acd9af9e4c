/**
 * The compute market on chain (contracts/sources/market.move): what the market commands need. Amounts are MIST as
 * bigint (1 SUI = 10^9 MIST), times are Clock milliseconds, ids and addresses 0x + 64 hex, git commits lowercase hex,
 * Walrus blob ids URL-safe base64. Implemented over `client.core` by src/sui/market.ts.
 */
import type { TxReceipt } from './ledger.ts';
import type { AttestationLedger } from './attestations.ts';

export interface MarketParams {
  minStake: bigint;
  unbondingMs: number;
  minLeaseMs: number;
}

export interface ProviderInfo {
  id: string;
  owner: string;
  stake: bigint;
  pricePerMs: bigint;
  endpoint: string;
  attributes: Record<string, string>;
  activeLeases: number;
  /** When the stake becomes withdrawable; null while bonded. */
  unbondsAtMs: number | null;
  completedLeases: number;
  providerClosedLeases: number;
  slashed: bigint;
}

export type LeaseState = 'open' | 'exhausted' | 'closed';

export interface Deployment {
  commit: string;
  /** Walrus blob id of the built artifact. */
  artifact: string;
  sha256: string;
  atMs: number;
}

/** Why a lease ended (market.move's `END_*`). */
export type LeaseEndReason = 'closed_by_tenant' | 'closed_by_provider' | 'funds_ran_out' | 'provider_unbonding';

/** How a lease ended, as its close recorded it on chain. */
export interface LeaseEnd {
  reason: LeaseEndReason;
  /** Who closed it: the tenant, or the holder of the provider's cap. */
  by: string;
  /** Whether `by` is the lease's tenant. */
  byTenant: boolean;
  /** When, by the chain's Clock. */
  atMs: number;
}

export interface LeaseInfo {
  id: string;
  tenant: string;
  provider: string;
  repository: string;
  ref: string;
  pricePerMs: bigint;
  escrow: bigint;
  earned: bigint;
  settledUntilMs: number;
  state: LeaseState;
  lastDeploy: Deployment | null;
  /** Where the provider serves the app (stated with `stateUrl`); empty until stated and once withdrawn (`withdrawUrl`). */
  url: string;
  /** How it ended; null while it is not closed. */
  end: LeaseEnd | null;
}

/** Where a lease's current secrets are (`lease_secrets`): the Walrus blob of their sealed set, its version, when set. */
export interface SecretsPointer {
  blobId: string;
  version: bigint;
  setAtMs: bigint;
}

/** A `Deployed` event. */
export interface DeployedRecord extends Deployment {
  lease: string;
  provider: string;
  repository: string;
  ref: string;
  txDigest: string;
  /** The URL the lease's provider states now (the lease's, not the record's: it may have moved since). */
  url?: string;
  /** How the lease ended, once it has (the lease's, as its close recorded it). */
  leaseEnd?: LeaseEnd;
}

/** What a settlement paid out, from the transaction's events. */
export interface Payout extends TxReceipt {
  /** To the provider's owner. */
  paid: bigint;
  /** Back to the tenant. */
  refunded: bigint;
}

export interface MarketLedger {
  signerAddress(): Promise<string>;
  params(): Promise<MarketParams>;
  /** The chain's Clock (ms): what settlement would use now. */
  clockMs(): Promise<number>;
  getProvider(id: string): Promise<ProviderInfo>;
  /** Every registered provider (from `ProviderRegistered` events, each read from its object). */
  listProviders(): Promise<ProviderInfo[]>;
  /** Providers whose ProviderCap the signer holds. */
  ownProviders(): Promise<string[]>;
  /**
   * Who holds the provider's ProviderCap now (the one its registration made): the address the provider's operations
   * answer to, which changes when the cap is sent to a new key. Null when no address holds it (wrapped or deleted).
   */
  providerCapHolder(providerId: string): Promise<string | null>;
  /** The id of the signer's ProviderCap of `providerId`; throws MissingCapError when the signer holds none. */
  providerCapId(providerId: string): Promise<string>;
  getLease(id: string): Promise<LeaseInfo>;
  /** Every lease ever opened with a provider (from `LeaseOpened` events), each read from its object: its state now. */
  listLeases(providerId: string): Promise<LeaseInfo[]>;
  /** Every lease ever opened on a repository (from `LeaseOpened` events), each read from its object: its state now. */
  leasesOfRepository(repositoryId: string): Promise<LeaseInfo[]>;
  /** Every `Deployed` record of a repository, oldest first. */
  listDeployments(repositoryId: string): Promise<DeployedRecord[]>;

  register(stake: bigint, pricePerMs: bigint, endpoint: string, attributes: Record<string, string>): Promise<TxReceipt & { providerId: string }>;
  addStake(providerId: string, amount: bigint): Promise<TxReceipt>;
  requestUnbond(providerId: string): Promise<TxReceipt & { withdrawableAtMs: number }>;
  withdrawStake(providerId: string): Promise<TxReceipt & { amount: bigint }>;
  openLease(providerId: string, repositoryId: string, ref: string, deposit: bigint): Promise<TxReceipt & { leaseId: string }>;
  topUp(leaseId: string, amount: bigint): Promise<TxReceipt>;
  settle(leaseId: string): Promise<TxReceipt>;
  /** The provider (the signer holds its cap) takes what the lease has earned. */
  claim(leaseId: string): Promise<Payout>;
  /** Closes as the tenant, or as the provider when the signer is not the tenant and holds the provider's cap. */
  close(leaseId: string): Promise<Payout>;
  recordDeploy(leaseId: string, commit: string, artifact: string, sha256: string): Promise<TxReceipt>;
  /** The provider (the signer holds its cap) states where the lease's app answers. */
  stateUrl(leaseId: string, url: string): Promise<TxReceipt>;
  /** The provider (the signer holds its cap) withdraws the URL it stated: the app no longer answers there. Allowed in
   *  any state of the lease; withdrawing when none is held changes nothing. */
  withdrawUrl(leaseId: string): Promise<TxReceipt>;
  /** Admin (AdminCap holder): take `amount` of the provider's stake for the tenant of `leaseId`. */
  slash(providerId: string, leaseId: string, amount: bigint): Promise<TxReceipt>;
  /** Admin (AdminCap holder). */
  setParams(params: MarketParams): Promise<TxReceipt>;
  /** Where lease `leaseId`'s sealed secrets are now, or null before any. */
  leaseSecrets(leaseId: string): Promise<SecretsPointer | null>;
  /** Where each lease's sealed secrets are now (keyed by normalized lease id; null before any), read together. */
  leaseSecretsOf(leaseIds: readonly string[]): Promise<Map<string, SecretsPointer | null>>;
  /** The tenant points the lease at `version` of its secrets (the current one plus one), sealed in Walrus blob `blobId`. */
  setLeaseSecrets(leaseId: string, blobId: string, version: bigint): Promise<TxReceipt>;
  /** Build attestations and leases' requirements of them, signed like the market's transactions. */
  attestations(): AttestationLedger;
}
