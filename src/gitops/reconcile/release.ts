import type { V1Deployment } from '@kubernetes/client-node';
import type { Release } from '../../ports/templates.ts';
import type { WalrusAppStatus } from '../../ports/walrus-app.ts';
import { PROVIDER_ANNOTATIONS } from '../api/labels.ts';
import { applyManifest } from '../manifest/precedence.ts';
import type { Pass } from './pass.ts';
import { applyIngressAllowance } from './isolation.ts';
import { appResourceName } from '../templates/names.ts';

/** The last release that rolled out, with its artifact (from the history), to roll back to. */
export function lastGoodRelease(status: WalrusAppStatus): Release | null {
  const entry = status.history?.find((candidate) => candidate.result === 'Released' && candidate.artifact && candidate.commit === status.lastAppliedRevision);
  return entry ? { commit: entry.commit, artifact: entry.artifact!, ...(entry.manifest ? { manifest: entry.manifest } : {}) } : null;
}

/**
 * The current secrets of a leased app's lease (null: none set yet), or undefined for an app under no lease (or a
 * controller not in provider mode).
 */
export async function leaseSecretsOf(pass: Pass): Promise<{ blobId: string; version: number } | null | undefined> {
  const lease = pass.app.metadata.annotations?.[PROVIDER_ANNOTATIONS.lease];
  if (!lease || !pass.deps.leaseSecrets) return undefined;
  return pass.deps.leaseSecrets(lease);
}

/**
 * Applies the app's Deployment for `release`, its Service, in a tenant namespace its ingress allowance, and when the
 * provider exposes apps its Ingress (the URL goes to the status); returns the Deployment as the API server has it now.
 * The app runs as the release's manifest says wherever the operator's spec says nothing.
 */
export async function applyRelease(pass: Pass, release: Release): Promise<V1Deployment> {
  const { cluster, templates } = pass.deps;
  const app = runningApp(pass, release);
  // The pods start with the lease's current secrets: a new version changes the template, so the app rolls out.
  const secrets = await leaseSecretsOf(pass);
  const deployment = await cluster.apply(templates.runDeployment(app, secrets ? { ...release, secrets } : release));
  await cluster.apply(templates.appService(app));
  await applyDisruptionBudget(pass, app);
  await applyIngressAllowance(cluster, templates, app);
  const exposed = templates.appIngress(app);
  if (exposed) {
    await cluster.apply(exposed.ingress);
    pass.status.url = exposed.url;
  } else {
    delete pass.status.url;
  }
  return deployment;
}

/** The app's PodDisruptionBudget while it runs two replicas or more; the one it owns goes when it runs fewer. */
async function applyDisruptionBudget(pass: Pass, app: Pass['app']): Promise<void> {
  const { cluster, templates } = pass.deps;
  const budget = templates.appDisruptionBudget(app);
  if (budget) {
    await cluster.apply(budget);
    return;
  }
  const existing = await cluster.readObject('PodDisruptionBudget', pass.ref(appResourceName(app)));
  if (existing?.metadata?.ownerReferences?.some((owner) => owner.uid === app.metadata.uid)) await cluster.deleteObject(existing);
}

/** The app as `release` runs: its spec with the release's manifest where the operator wrote nothing. */
export function runningApp(pass: Pass, release: Release) {
  if (!release.manifest) return pass.app;
  const decision = applyManifest(pass.app, release.manifest, pass.deps.offer);
  // A release that ran once but is beyond today's offer (a rollback target): the spec alone.
  return decision.ok ? decision.app : pass.app;
}
