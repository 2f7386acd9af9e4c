/**
 * Provider mode's decisions (docs/architecture.md, The market), pure: from the leases that name this provider (their
 * state on chain now) and the WalrusApps and namespaces the controller made for them, what to do this pass. The
 * reconciler (provider-reconciler.ts) does the I/O and runs the plan; every pass recomputes it from both states, so a
 * missed event or a crash between two steps only delays a step to the next pass (the Akash support#515 lesson: never
 * from events alone).
 */
import { createHash } from 'node:crypto';
import { formatWalrusUrl } from '../../core/walrus-url.ts';
import { leaseAccrualAt, runsOutBy } from '../../contract/lease-accrual.ts';
import type { LeaseInfo } from '../../ports/market.ts';
import type { ProviderOffer } from '../api/offer.ts';
import { canonical } from '../api/build-config.ts';
import { API_VERSION, KIND, type WalrusApp, type WalrusAppSpec } from '../../ports/walrus-app.ts';

import { PROVIDER_ANNOTATIONS, PROVIDER_LABELS, PROVIDER_MANAGED_BY } from '../api/labels.ts';
import { tenantIsolation, type TenantObject } from './isolation.ts';


/** What the controller made for a lease, as read back from the cluster. */
export interface LeaseApp {
  namespace: string;
  name: string;
  /** The lease id from the app's annotation. */
  lease: string;
  specHash: string | undefined;
  status: WalrusApp['status'];
}

export interface PlanInput {
  providerId: string;
  /** Every lease that names the provider, as on chain now. */
  leases: LeaseInfo[];
  apps: LeaseApp[];
  /** Namespaces the controller made (label managed-by). */
  namespaces: string[];
  /** The isolation hash recorded on each of those namespaces (annotation isolationHash), where there is one. */
  isolated: ReadonlyMap<string, string>;
  /** The chain's Clock now (ms): whether a lease has run out is decided on its time, as settlement would. */
  nowMs: number;
  /** The spec every lease's app starts from (replicas, port, build and run settings of this provider). */
  template: Omit<WalrusAppSpec, 'repository' | 'ref'>;
  /** What every lease gets from this provider: its namespace's ceiling, replica cap, images, ingress, egress. */
  offer: ProviderOffer;
  /** When each lease was last claimed, or first seen (ms, chain time); a lease missing here is claimed after `claimEveryMs` from now. */
  lastClaimMs: ReadonlyMap<string, number>;
  claimEveryMs: number;
  /** Deploys recorded by this process whose transaction succeeded but may not show in `leases` yet: lease → deployKey. */
  recorded: ReadonlyMap<string, string>;
  /** What this process last put on chain as a lease's URL (its transaction succeeded, but may not show in `leases`
   *  yet): lease → the URL stated, or '' once withdrawn. */
  statedUrls: ReadonlyMap<string, string>;
}

export type Action =
  | { kind: 'apply-namespace'; namespace: string; tenant: string }
  /** Write the namespace's policies, quota and limits from the offer, then record their hash on it. */
  | { kind: 'isolate-namespace'; namespace: string; tenant: string; objects: TenantObject[]; hash: string }
  | { kind: 'apply-app'; app: WalrusApp; lease: string }
  | { kind: 'delete-app'; namespace: string; name: string; lease: string; reason: string }
  | { kind: 'delete-namespace'; namespace: string }
  /** The lease ran out of funds (or will have once settled now): close it as provider, which pays what it earned and frees the slot. */
  | { kind: 'close-lease'; lease: string }
  | { kind: 'record-deploy'; lease: string; commit: string; artifact: string; sha256: string }
  /** The app serves at a URL the lease does not state yet: state it on chain (once per change). */
  | { kind: 'state-url'; lease: string; url: string }
  /** The app serves at no URL (the offer stopped exposing apps, or the lease ended) but the lease still states one: withdraw it (once per change). */
  | { kind: 'withdraw-url'; lease: string; url: string; reason: string }
  | { kind: 'claim'; lease: string };

/** Names of what serves a lease: a namespace per tenant, an app per lease (DNS labels, a letter first). */
export function tenantNamespace(tenant: string): string {
  return `tenant-${hex(tenant).slice(0, 56)}`;
}

export function leaseAppName(lease: string): string {
  return `lease-${hex(lease).slice(0, 16)}`;
}

/** `record_deploy` is recorded once per (lease, commit, artifact). */
export function deployKey(commit: string, artifact: string): string {
  return `${commit}:${artifact}`;
}

/** The WalrusApp that serves `lease`: the provider's template with the lease's repository and ref. */
export function leaseApp(providerId: string, lease: LeaseInfo, template: PlanInput['template']): WalrusApp {
  const spec: WalrusAppSpec = { ...template, repository: formatWalrusUrl({ id: lease.repository }), ref: lease.ref };
  return {
    apiVersion: API_VERSION,
    kind: KIND,
    metadata: {
      name: leaseAppName(lease.id),
      namespace: tenantNamespace(lease.tenant),
      labels: { [PROVIDER_LABELS.managedBy]: PROVIDER_MANAGED_BY, [PROVIDER_LABELS.lease]: hex(lease.id).slice(0, 62) },
      annotations: {
        [PROVIDER_ANNOTATIONS.lease]: lease.id,
        [PROVIDER_ANNOTATIONS.tenant]: lease.tenant,
        [PROVIDER_ANNOTATIONS.provider]: providerId,
        [PROVIDER_ANNOTATIONS.specHash]: specHash(spec),
      },
    },
    spec,
  };
}

/** What the provider could claim at `nowMs`. */
export function claimable(lease: LeaseInfo, nowMs: number): bigint {
  return lease.earned + leaseAccrualAt(lease, nowMs).accrued;
}

/**
 * The release an app has rolled out that the lease does not record yet, if it may be recorded now: the app is Ready
 * at a released commit with its artifact, that commit is still the head the app follows (`record_deploy` refuses
 * any other), and neither the lease nor this process has recorded that (commit, artifact).
 */
export function releaseToRecord(lease: LeaseInfo, app: LeaseApp, recorded: ReadonlyMap<string, string>): { commit: string; artifact: string; sha256: string } | null {
  const status = app.status;
  const commit = status?.lastAppliedRevision;
  const artifact = status?.artifact;
  if (!commit || !artifact || artifact.commit !== commit) return null;
  if (status.conditions?.find((condition) => condition.type === 'Ready')?.status !== 'True') return null;
  if (status.head?.commit !== commit) return null;
  const key = deployKey(commit, artifact.blobId);
  if (lease.lastDeploy && deployKey(lease.lastDeploy.commit, lease.lastDeploy.artifact) === key) return null;
  if (recorded.get(lease.id) === key) return null;
  return { commit, artifact: artifact.blobId, sha256: artifact.sha256 };
}

/** The app's URL, once it serves (Ready) at one the lease does not state and this process has not stated yet. */
export function urlToState(lease: LeaseInfo, app: LeaseApp, stated: ReadonlyMap<string, string>): string | null {
  const url = app.status?.url;
  if (!url || app.status?.conditions?.find((condition) => condition.type === 'Ready')?.status !== 'True') return null;
  return url === lease.url || stated.get(lease.id) === url ? null : url;
}

/**
 * The URL the lease states where its app no longer serves: the app serves at none (`servedAt` empty: its Ingress was
 * removed, or the lease ended) while the lease still holds one, which this process has not withdrawn already.
 */
export function urlToWithdraw(lease: LeaseInfo, servedAt: string | undefined, stated: ReadonlyMap<string, string>): string | null {
  return lease.url && !servedAt && stated.get(lease.id) !== '' ? lease.url : null;
}

export function plan(input: PlanInput): Action[] {
  const { providerId, nowMs } = input;
  const actions: Action[] = [];
  const serving = input.leases.filter((lease) => lease.provider === providerId && lease.state === 'open' && !runsOutBy(lease, nowMs));
  const servingById = new Map(serving.map((lease) => [lease.id, lease]));
  const ended = new Map(input.leases.filter((lease) => !servingById.has(lease.id)).map((lease) => [lease.id, lease]));

  // Tear down first: an app whose lease is not serving (closed, out of funds, unknown) goes, whatever else fails.
  for (const app of input.apps) {
    const lease = servingById.get(app.lease);
    const expected = lease && { namespace: tenantNamespace(lease.tenant), name: leaseAppName(lease.id) };
    if (expected && expected.namespace === app.namespace && expected.name === app.name) continue;
    const was = ended.get(app.lease);
    const reason = !was ? 'no lease of this provider' : was.state === 'closed' ? 'the lease is closed' : was.provider !== providerId ? 'the lease names another provider' : 'the lease ran out of funds';
    actions.push({ kind: 'delete-app', namespace: app.namespace, name: app.name, lease: app.lease, reason });
  }
  // A lease out of funds but not closed yet: close it (settles, pays the provider, frees the provider's slot).
  for (const lease of ended.values()) {
    if (lease.provider === providerId && lease.state !== 'closed' && runsOutBy(lease, nowMs)) actions.push({ kind: 'close-lease', lease: lease.id });
    // Its app is gone (or going): the URL it stated answers no more.
    const stale = lease.provider === providerId && urlToWithdraw(lease, undefined, input.statedUrls);
    if (stale) actions.push({ kind: 'withdraw-url', lease: lease.id, url: stale, reason: lease.state === 'closed' ? 'the lease is closed' : 'the lease ran out of funds' });
  }

  const wantedNamespaces = new Map(serving.map((lease) => [tenantNamespace(lease.tenant), lease.tenant]));
  const existing = new Set(input.namespaces);
  for (const [namespace, tenant] of wantedNamespaces) {
    if (!existing.has(namespace)) actions.push({ kind: 'apply-namespace', namespace, tenant });
    const isolation = tenantIsolation(namespace, tenant, input.offer);
    if (input.isolated.get(namespace) !== isolation.hash) actions.push({ kind: 'isolate-namespace', namespace, tenant, ...isolation });
  }
  for (const namespace of input.namespaces) {
    if (!wantedNamespaces.has(namespace)) actions.push({ kind: 'delete-namespace', namespace });
  }

  const appsByLease = new Map(input.apps.map((app) => [app.lease, app]));
  for (const lease of serving) {
    const wanted = leaseApp(providerId, lease, input.template);
    const app = appsByLease.get(lease.id);
    const current = app && app.namespace === wanted.metadata.namespace && app.name === wanted.metadata.name ? app : undefined;
    if (!current || current.specHash !== wanted.metadata.annotations![PROVIDER_ANNOTATIONS.specHash]) {
      actions.push({ kind: 'apply-app', app: wanted, lease: lease.id });
    }
    const release = current && releaseToRecord(lease, current, input.recorded);
    if (release) actions.push({ kind: 'record-deploy', lease: lease.id, ...release });
    const url = current && urlToState(lease, current, input.statedUrls);
    if (url) actions.push({ kind: 'state-url', lease: lease.id, url });
    const stale = current && urlToWithdraw(lease, current.status?.url, input.statedUrls);
    if (stale) actions.push({ kind: 'withdraw-url', lease: lease.id, url: stale, reason: 'the app is no longer exposed' });
    const last = input.lastClaimMs.get(lease.id);
    if (last !== undefined && nowMs - last >= input.claimEveryMs && claimable(lease, nowMs) > 0n) actions.push({ kind: 'claim', lease: lease.id });
  }
  return actions;
}

function hex(id: string): string {
  return id.replace(/^0x/, '').toLowerCase();
}

function specHash(spec: WalrusAppSpec): string {
  return createHash('sha256').update(JSON.stringify(canonical(spec))).digest('hex').slice(0, 16);
}
