/**
 * How an app is reached follows the provider's offer (docs/architecture.md, The GitOps controller): its Service
 * (ClusterIP, or LoadBalancer), its ingress allowance in a tenant namespace, its Ingress at `<name>-<hash>.<domain>`
 * and the URL in the status. The rollout applies what the offer wants (release.ts); this brings what an app already
 * has in line when the offer changed (the controller restarted with another), whatever else its pass does.
 */
import { createHash } from 'node:crypto';
import type { KubernetesObject } from '@kubernetes/client-node';
import type { WalrusApp } from '../../ports/walrus-app.ts';
import type { Templates } from '../../ports/templates.ts';
import { canonical } from '../api/build-config.ts';
import { appResourceName } from '../templates/names.ts';
import type { Pass } from './pass.ts';
import { lastGoodRelease, runningApp } from './release.ts';

/**
 * A digest of how the offer exposes `app` (the Ingress and URL, the Service's type, the allowance the templates
 * make now): the status records the one the app's objects were brought in line with, so a pass reads them back
 * only when it differs (once after an offer or controller change), not every pass.
 */
export function exposureDigest(templates: Templates, app: WalrusApp): string {
  const exposure = {
    ingress: templates.appIngress(app),
    serviceType: templates.appService(app).spec?.type,
    allowance: templates.appNetworkPolicy?.(app).spec ?? null,
  };
  return createHash('sha256').update(JSON.stringify(canonical(exposure))).digest('hex').slice(0, 16);
}

/** Whether the app is `object`'s controller owner: what the controller made for it, not a user's object of the name. */
export function ownedBy(object: KubernetesObject | null, app: WalrusApp): boolean {
  return object?.metadata?.ownerReferences?.some((reference) => reference.controller === true && reference.uid === app.metadata.uid) === true;
}

/**
 * Brings the app's objects in line with the offer: an Ingress the offer no longer wants is deleted and the URL goes
 * from the status; one it wants elsewhere (a new domain) is applied at the new host, and the status gets the new
 * URL; the Service takes the offer's type (a LoadBalancer the offer dropped becomes ClusterIP, releasing its
 * address); an allowance no longer wanted is deleted, one still wanted is applied as the offer now says. Only objects
 * the app owns are touched. Returns what changed, in the user's words, for the event.
 */
export async function alignExposure(pass: Pass): Promise<string[]> {
  const { app, status } = pass;
  const { cluster, templates } = pass.deps;
  const name = appResourceName(app);
  const ref = pass.ref(name);
  const changes: string[] = [];

  const wanted = templates.appIngress(app);
  const ingress = await cluster.readObject('Ingress', ref);
  const ours = ownedBy(ingress, app);
  // What changed is told from the objects read, not from the status: the informer's copy of the app may not show yet
  // what the previous pass wrote, and a second pass must not announce the same change again.
  if (!wanted) {
    if (ours) {
      await cluster.deleteObject(ingress!);
      changes.push(`Ingress ${name} removed${status.url ? `; ${status.url} is no longer served` : ''}`);
    } else if (ingress) {
      pass.deps.log(`${pass.key}: Ingress ${name} is not this app's (no owner reference to it): left as it is`);
    }
    delete status.url;
  } else if (ours) {
    const host = ingress!.spec?.rules?.[0]?.host;
    await cluster.apply(wanted.ingress);
    if (host !== wanted.ingress.spec?.rules?.[0]?.host) changes.push(`the app answers at ${wanted.url}${status.url && status.url !== wanted.url ? ` (no longer at ${status.url})` : ''}`);
    status.url = wanted.url;
  }

  const service = await cluster.readObject('Service', ref);
  const type = templates.appService(app).spec?.type;
  if (ownedBy(service, app) && service!.spec?.type !== type) {
    await cluster.apply(templates.appService(app));
    changes.push(`Service ${name} is ${type} now (was ${service!.spec?.type})`);
  }

  const allowance = await cluster.readObject('NetworkPolicy', ref);
  if (ownedBy(allowance, app)) {
    if (!templates.appNetworkPolicy) {
      await cluster.deleteObject(allowance!);
      changes.push(`its ingress allowance (NetworkPolicy ${name}) removed`);
    } else {
      // The allowance names the port the running release listens on (its manifest may set it).
      const release = lastGoodRelease(status);
      await cluster.apply(templates.appNetworkPolicy(release ? runningApp(pass, release) : app));
    }
  }
  return changes;
}
