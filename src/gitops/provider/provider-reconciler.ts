/**
 * The controller in provider mode (docs/architecture.md, The market), a second reconciler beside the WalrusApp one:
 * every pass reads the leases that name this provider from chain state and the lease apps from the cluster, plans
 * (plan.ts), and runs the plan. Each action stands alone: one that fails is logged and comes back in the next pass's
 * plan. The controller starts it only while it leads (its `companion`), so two replicas never both send a transaction.
 */
import type { V1Namespace } from '@kubernetes/client-node';
import type { Companion } from '../../ports/companion.ts';
import type { MarketLedger } from '../../ports/market.ts';
import type { TenantCluster } from '../../ports/tenant-cluster.ts';
import type { ObjectRef } from '../../ports/cluster.ts';
import type { ProviderOffer } from '../api/offer.ts';
import { plan, deployKey, type Action, type LeaseApp, type PlanInput } from './plan.ts';
import { runsOutBy } from '../../contract/lease-accrual.ts';
import { PROVIDER_ANNOTATIONS, PROVIDER_LABELS, PROVIDER_MANAGED_BY } from '../api/labels.ts';
import { messageOf } from '../../core/errors.ts';
import { PassLoop } from '../pass-loop.ts';

export interface ProviderReconcilerOptions {
  market: MarketLedger;
  tenants: TenantCluster;
  /** The provider served; the controller's key holds its ProviderCap. */
  providerId: string;
  /**
   * The Secret holding the provider's key (`--provider-key-secret`, in the controller's namespace): copied into each
   * tenant namespace before its app, for the build's checkout and pack steps and the run pods' fetch step.
   */
  keySecret?: ObjectRef;
  template: PlanInput['template'];
  offer: ProviderOffer;
  /** Time between passes. */
  intervalMs?: number;
  /** How often each lease's earnings are claimed. */
  claimEveryMs?: number;
  log(line: string): void;
}

const SELECTOR = `${PROVIDER_LABELS.managedBy}=${PROVIDER_MANAGED_BY}`;

export class ProviderReconciler implements Companion {
  readonly #options: ProviderReconcilerOptions;
  readonly #lastClaimMs = new Map<string, number>();
  readonly #recorded = new Map<string, string>();
  readonly #statedUrls = new Map<string, string>();
  readonly #loop: PassLoop;
  #served = 0;

  constructor(options: ProviderReconcilerOptions) {
    this.#options = options;
    this.#loop = new PassLoop(() => this.pass(), options.intervalMs ?? 5000, (line) => options.log(line), 'provider');
  }

  /** Passes until `stop()`, the first at once. */
  start(): void {
    this.#loop.start();
  }

  stop(): Promise<void> {
    return this.#loop.stop();
  }

  /** Open leases that have not run out, as of the last pass. */
  served(): number {
    return this.#served;
  }

  /** One pass: read both states, plan, act. Returns the plan it ran. */
  async pass(): Promise<Action[]> {
    const { market, tenants, providerId, log } = this.#options;
    const [leases, apps, namespaces, nowMs] = await Promise.all([
      market.listLeases(providerId),
      tenants.listApps(SELECTOR),
      tenants.listNamespaces(SELECTOR),
      market.clockMs(),
    ]);
    this.#served = leases.filter((lease) => lease.state === 'open' && !runsOutBy(lease, nowMs)).length;
    for (const lease of leases) {
      if (lease.state !== 'open' || runsOutBy(lease, nowMs)) {
        this.#lastClaimMs.delete(lease.id);
        this.#recorded.delete(lease.id);
        // Kept until the lease reads back without a URL: its withdrawal is sent once.
        if (!lease.url) this.#statedUrls.delete(lease.id);
      } else if (!this.#lastClaimMs.has(lease.id)) {
        this.#lastClaimMs.set(lease.id, nowMs);
      }
    }
    const actions = plan({
      providerId, leases, nowMs, template: this.#options.template, offer: this.#options.offer,
      apps: apps.flatMap((app): LeaseApp[] => {
        const lease = app.metadata.annotations?.[PROVIDER_ANNOTATIONS.lease];
        return lease ? [{ namespace: app.metadata.namespace!, name: app.metadata.name, lease, specHash: app.metadata.annotations?.[PROVIDER_ANNOTATIONS.specHash], status: app.status }] : [];
      }),
      // A terminating namespace is gone already: not deleted again, and applied again (refused until it is gone).
      namespaces: namespaces.filter((namespace) => !namespace.metadata?.deletionTimestamp).map((namespace) => namespace.metadata!.name!),
      isolated: new Map(namespaces.flatMap((namespace) => {
        const hash = namespace.metadata?.annotations?.[PROVIDER_ANNOTATIONS.isolationHash];
        return hash ? [[namespace.metadata!.name!, hash]] : [];
      })),
      lastClaimMs: this.#lastClaimMs,
      claimEveryMs: this.#options.claimEveryMs ?? 3_600_000,
      recorded: this.#recorded,
      statedUrls: this.#statedUrls,
    });
    for (const action of actions) {
      try {
        await this.#act(action, nowMs);
      } catch (error) {
        log(`provider: ${describe(action)} failed: ${messageOf(error)}; again next pass`);
      }
    }
    return actions;
  }

  async #act(action: Action, nowMs: number): Promise<void> {
    const { market, tenants, log } = this.#options;
    switch (action.kind) {
      case 'apply-namespace':
        await tenants.applyNamespace(namespaceObject(action.namespace, action.tenant));
        log(`provider: namespace ${action.namespace} for tenant ${action.tenant}`);
        return;
      case 'isolate-namespace':
        for (const object of action.objects) await tenants.applyObject(object);
        // Recorded last: a pass interrupted before this writes them all again.
        await tenants.applyNamespace(namespaceObject(action.namespace, action.tenant, action.hash));
        log(`provider: namespace ${action.namespace} isolated (${action.objects.map((object) => `${object.kind} ${object.metadata!.name}`).join(', ')}; offer ${action.hash})`);
        return;
      case 'apply-app':
        if (this.#options.keySecret) await tenants.copySecret(this.#options.keySecret, action.app.metadata.namespace!);
        await tenants.applyApp(action.app);
        log(`provider: lease ${action.lease} served by WalrusApp ${action.app.metadata.namespace}/${action.app.metadata.name} (${action.app.spec.repository} ${action.app.spec.ref})`);
        return;
      case 'delete-app':
        await tenants.deleteApp({ namespace: action.namespace, name: action.name });
        log(`provider: WalrusApp ${action.namespace}/${action.name} removed: ${action.reason} (lease ${action.lease})`);
        return;
      case 'delete-namespace':
        await tenants.deleteNamespace(action.namespace);
        log(`provider: namespace ${action.namespace} removed: no open lease of its tenant`);
        return;
      case 'close-lease': {
        const payout = await market.close(action.lease);
        log(`provider: lease ${action.lease} ran out of funds; closed: ${payout.paid} MIST paid to the provider, ${payout.refunded} MIST refunded (${payout.digest})`);
        return;
      }
      case 'record-deploy': {
        const receipt = await market.recordDeploy(action.lease, action.commit, action.artifact, action.sha256);
        this.#recorded.set(action.lease, deployKey(action.commit, action.artifact));
        log(`provider: lease ${action.lease}: recorded the deploy of ${action.commit} (artifact ${action.artifact}) (${receipt.digest})`);
        return;
      }
      case 'state-url': {
        const receipt = await market.stateUrl(action.lease, action.url);
        this.#statedUrls.set(action.lease, action.url);
        log(`provider: lease ${action.lease}: stated its URL ${action.url} (${receipt.digest})`);
        return;
      }
      case 'withdraw-url': {
        const receipt = await market.withdrawUrl(action.lease);
        this.#statedUrls.set(action.lease, '');
        log(`provider: lease ${action.lease}: withdrew its URL ${action.url}: ${action.reason} (${receipt.digest})`);
        return;
      }
      case 'claim': {
        const payout = await market.claim(action.lease);
        this.#lastClaimMs.set(action.lease, nowMs);
        log(`provider: lease ${action.lease}: claimed ${payout.paid} MIST (${payout.digest})`);
        return;
      }
    }
  }
}

/** A tenant namespace's metadata, with the hash of its isolation objects once they are all written. */
function namespaceObject(name: string, tenant: string, isolationHash?: string): V1Namespace {
  return {
    metadata: {
      name,
      labels: { [PROVIDER_LABELS.managedBy]: PROVIDER_MANAGED_BY, [PROVIDER_LABELS.tenant]: tenant.replace(/^0x/, '').toLowerCase().slice(0, 62) },
      annotations: { [PROVIDER_ANNOTATIONS.tenant]: tenant, ...(isolationHash ? { [PROVIDER_ANNOTATIONS.isolationHash]: isolationHash } : {}) },
    },
  };
}

function describe(action: Action): string {
  switch (action.kind) {
    case 'apply-namespace': case 'isolate-namespace': case 'delete-namespace': return `${action.kind} ${action.namespace}`;
    case 'apply-app': return `apply-app ${action.app.metadata.namespace}/${action.app.metadata.name}`;
    case 'delete-app': return `delete-app ${action.namespace}/${action.name}`;
    default: return `${action.kind} ${action.lease}`;
  }
}
