import type { V1NetworkPolicyPeer } from '@kubernetes/client-node';
import type { WalrusApp } from '../../ports/walrus-app.ts';
import type { Templates } from '../../ports/templates.ts';
import { appNetworkPolicy } from './network-policy.ts';
import { buildJob } from './build-job.ts';
import { buildJobName } from './names.ts';
import type { EnvVar } from '../../ports/walrus-app.ts';
import type { ProviderOffer } from '../api/offer.ts';
import { appIngress, appUrl } from './ingress.ts';
import type { ToolConfig } from './pods.ts';
import { appService, runDeployment } from './run.ts';
import { appDisruptionBudget } from './placement.ts';
import { resolveSpec } from '../api/types.ts';

/**
 * The pod, Job and Service templates of the GitOps controller (pure: a WalrusApp in, Kubernetes objects out, the same
 * objects for the same input). `createTemplates` binds the controller's network configuration (and, in provider mode,
 * where the ingress controller's traffic comes from); the functions alone
 * give the tool containers no network settings (the tools then use their own default).
 */
export function createTemplates(config: ToolConfig, offer: { buildEnv?: EnvVar[]; ingress?: ProviderOffer['ingress']; egress?: Pick<ProviderOffer['egress'], 'except'>; nodeLossTolerationSeconds?: number } = {}): Templates {
  const ingress = offer.ingress;
  // A LoadBalancer Service's clients come from outside the cluster: anything but the cluster's own ranges (the
  // egress carve-outs) may reach the app's port then, as well as the ingress controller.
  const allowed = ingress && [
    ...(ingress.from as V1NetworkPolicyPeer[]),
    ...(ingress.loadBalancer ? [{ ipBlock: { cidr: '0.0.0.0/0', except: [...(offer.egress?.except ?? [])] } }] : []),
  ];
  return {
    buildJob: (app, build) => buildJob(app, build, config, offer.buildEnv),
    runDeployment: (app, release) => runDeployment(app, release, config, offer.nodeLossTolerationSeconds),
    appDisruptionBudget: (app) => appDisruptionBudget(app, resolveSpec(app.spec).replicas),
    appService: (app) => appService(app, { loadBalancer: ingress?.loadBalancer === true }),
    appIngress: (app) => (ingress ? { ingress: appIngress(app, ingress), url: appUrl(app, ingress) } : null),
    ...(allowed ? { appNetworkPolicy: (app: WalrusApp) => appNetworkPolicy(app, allowed) } : {}),
    buildJobName,
  };
}
