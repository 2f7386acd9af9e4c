/**
 * Composes `git walrus gateway`: the network (its market, for leases and the provider's record), a KubeConfig (a
 * file, or the pod's service account in a cluster), the Kubernetes reads of the gateway, and the signature check.
 */
import type { GatewayRun, GatewayRunOptions } from '../cli/app.ts';
import type { Log } from '../core/log.ts';
import { UsageError } from '../core/errors.ts';
import { normalizeSuiId } from '../core/walrus-url.ts';
import { Gateway, serveGateway } from '../gitops/gateway/server.ts';
import { KubernetesAppWindow } from '../k8s/app-window.ts';
import { loadKubeConfig } from '../k8s/kubeconfig.ts';
import { verifyPersonalMessage } from '../sui/personal-message.ts';
import { openNetwork } from './context.ts';

export async function startGateway(options: GatewayRunOptions, env: NodeJS.ProcessEnv, log: Log): Promise<GatewayRun> {
  const kc = loadKubeConfig(options.kubeconfig ? { file: options.kubeconfig } : env.KUBERNETES_SERVICE_HOST ? 'in-cluster' : 'default');
  const network = await openNetwork({ env, log, network: options.network, role: 'gateway' });
  try {
    const providerId = normalizeSuiId(options.providerId);
    const market = await network.market();
    const provider = await market.getProvider(providerId).catch((error) => {
      throw new UsageError(`provider ${providerId} cannot be read on ${network.name}: ${error instanceof Error ? error.message : error}`);
    });
    const gateway = new Gateway({
      providerId: provider.id, market, window: new KubernetesAppWindow(kc), verify: verifyPersonalMessage, now: () => Date.now(),
      log: (line) => log.info(line),
    });
    const served = await serveGateway(gateway, options.host, options.port);
    log.info(`gateway: serving the leases of provider ${provider.id} (registered endpoint ${provider.endpoint || '(none)'}) at ${served.url}`);
    return {
      url: served.url,
      close: async () => {
        await served.close();
        await network.close();
      },
    };
  } catch (error) {
    await network.close();
    throw error;
  }
}
