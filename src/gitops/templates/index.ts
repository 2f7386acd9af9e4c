import type { Templates } from '../../ports/templates.ts';
import { buildJob } from './build-job.ts';
import { buildJobName } from './names.ts';
import type { ToolConfig } from './pods.ts';
import { appService, runDeployment } from './run.ts';

/**
 * The pod, Job and Service templates of the GitOps controller (pure: a WalrusApp in, Kubernetes objects out, the same
 * objects for the same input). `createTemplates` binds the controller's network configuration; the functions alone
 * give the tool containers no network settings (the tools then use their own default).
 */
export function createTemplates(config: ToolConfig): Templates {
  return {
    buildJob: (app, build) => buildJob(app, build, config),
    runDeployment: (app, release) => runDeployment(app, release, config),
    appService,
    buildJobName,
  };
}

export { buildJob, TERMINATION_MESSAGE_PATH, WORKSPACE } from './build-job.ts';
export { appService, runDeployment, APP_DIR, PORT_NAME, SERVICE_PORT } from './run.ts';
export { ANNOTATIONS, LABELS, MANAGED_BY, PROJECT_IMAGE, PROJECT_VERSION, appResourceName, buildJobName, dnsLabel, labelsOf, selectorLabels } from './names.ts';
export { forwardingShell, RUN_AS } from './pods.ts';
export type { ToolConfig } from './pods.ts';
