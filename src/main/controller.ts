/**
 * Composes `git walrus controller`: the network (as every command opens it), a KubeConfig (a file, or the pod's
 * service account in a cluster), the Kubernetes adapter, and the templates configured with what the tool containers
 * need to reach the same network. The only place the controller's environment is read.
 */
import { readFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { KubeConfig } from '@kubernetes/client-node';
import type { ControllerRun, ControllerRunOptions } from '../cli/app.ts';
import type { Log } from '../core/log.ts';
import { Controller } from '../gitops/controller.ts';
import { createTemplates, type ToolConfig } from '../gitops/templates/index.ts';
import { KubernetesCluster } from '../k8s/cluster.ts';
import { openNetwork } from './context.ts';

/** What the tool containers inherit from the controller's environment to reach the same network. */
const TOOL_ENV = ['GIT_WALRUS_NETWORK', 'GIT_WALRUS_DEVNET_URL', 'GIT_WALRUS_PACKAGE_ID', 'GIT_WALRUS_REGISTRY_ID'] as const;
const SERVICE_ACCOUNT_NAMESPACE = '/var/run/secrets/kubernetes.io/serviceaccount/namespace';

export async function startController(options: ControllerRunOptions, env: NodeJS.ProcessEnv, log: Log): Promise<ControllerRun> {
  const network = await openNetwork({ env, log, network: options.network, role: 'controller' });
  const kc = new KubeConfig();
  if (options.kubeconfig) kc.loadFromFile(options.kubeconfig);
  else if (env.KUBERNETES_SERVICE_HOST) kc.loadFromCluster();
  else kc.loadFromDefault();
  const toolEnv = Object.fromEntries(TOOL_ENV.flatMap((name) => (env[name] ? [[name, env[name]!]] : [])));
  if (options.network) toolEnv.GIT_WALRUS_NETWORK = options.network;
  const tools: ToolConfig = {
    env: toolEnv,
    ...(options.providerKeySecret ? { providerKey: { secretName: options.providerKeySecret, key: 'key' } } : {}),
    ...(env.GIT_WALRUS_TOOL_IMAGE ? { image: env.GIT_WALRUS_TOOL_IMAGE } : {}),
  };
  const controllerNamespace = options.controllerNamespace ?? env.POD_NAMESPACE ?? inClusterNamespace() ?? options.namespace ?? 'walrus-gitops';
  const line = (text: string) => log.info(text);
  const controller = new Controller({
    cluster: new KubernetesCluster(kc),
    ledger: network.ledger,
    templates: createTemplates(tools),
    network: network.name,
    packageId: network.packageId,
    namespace: options.namespace ?? null,
    controllerNamespace,
    identity: env.POD_NAME ?? `${hostname()}-${process.pid}`,
    leaderElection: options.leaderElection,
    pollMs: options.pollMs,
    log: line,
  });
  line(`controller: ${kc.getCurrentCluster()?.server ?? 'in-cluster'}, network ${network.name}, lease and cursor in namespace ${controllerNamespace}`);
  return {
    run: () => controller.run(),
    stop: async () => {
      await controller.stop();
      await network.close();
    },
  };
}

function inClusterNamespace(): string | undefined {
  try {
    return readFileSync(SERVICE_ACCOUNT_NAMESPACE, 'utf8').trim() || undefined;
  } catch {
    return undefined;
  }
}
