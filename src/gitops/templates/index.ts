import type { V1NetworkPolicyPeer } from '@kubernetes/client-node';
import type { WalrusApp } from '../../ports/walrus-app.ts';
import type { Templates } from '../../ports/templates.ts';
import { appNetworkPolicy } from './network-policy.ts';
import { buildJob } from './build-job.ts';
import { buildJobName } from './names.ts';
import type { ToolConfig } from './pods.ts';
import { appService, runDeployment } from './run.ts';

/**
 * The pod, Job and Service templates of the GitOps controller (pure: a WalrusApp in, Kubernetes objects out, the same
 * objects for the same input). `createTemplates` binds the controller's network configuration (and, in provider mode,
 * where the ingress controller's traffic comes from); the functions alone
 * give the tool containers no network settings (the tools then use their own default).
 */
export function createTemplates(config: ToolConfig, ingress?: { from: readonly V1NetworkPolicyPeer[] }): Templates {
  return {
    buildJob: (app, build) => buildJob(app, build, config),
    runDeployment: (app, release) => runDeployment(app, release, config),
    appService,
    ...(ingress ? { appNetworkPolicy: (app: WalrusApp) => appNetworkPolicy(app, ingress.from) } : {}),
    buildJobName,
  };
}

export { buildJob, TERMINATION_MESSAGE_PATH, WORKSPACE } from './build-job.ts';
export { appNetworkPolicy } from './network-policy.ts';
export { appService, runDeployment, APP_DIR, PORT_NAME, SERVICE_PORT } from './run.ts';
export { ANNOTATIONS, LABELS, MANAGED_BY, PROJECT_IMAGE, PROJECT_VERSION, appResourceName, buildJobName, dnsLabel, labelsOf, selectorLabels } from './names.ts';
export { forwardingShell, RUN_AS } from './pods.ts';
export type { ToolConfig } from './pods.ts';
