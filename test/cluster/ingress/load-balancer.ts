/**
 * LoadBalancer Services in the test cluster, as MetalLB gives them on bare metal: each Service of type LoadBalancer
 * gets an address from the run's pool (RunSubnets.loadBalancerPool, in the pod CIDR, routed from the host to the node)
 * written to its `status.loadBalancer.ingress`; kube-proxy then DNATs that address and port to the ready endpoints,
 * as for a ClusterIP. An address is freed when its Service goes or stops being a LoadBalancer (then its status is
 * cleared too).
 */
import { CoreV1Api, KubeConfig, PatchStrategy, makeInformer, setHeaderOptions } from '@kubernetes/client-node';
import type { V1Service } from '@kubernetes/client-node';

export interface LoadBalancers {
  stop(): Promise<void>;
}

export async function startLoadBalancers(options: { kubeconfigPath: string; pool: readonly string[]; log: (line: string) => void }): Promise<LoadBalancers> {
  const kc = new KubeConfig();
  kc.loadFromFile(options.kubeconfigPath);
  const core = kc.makeApiClient(CoreV1Api);
  const informer = makeInformer<V1Service>(kc, '/api/v1/services', () => core.listServiceForAllNamespaces());
  let stopped = false;
  const key = (service: V1Service) => `${service.metadata?.namespace}/${service.metadata?.name}`;
  const wanted = (service: V1Service) => service.spec?.type === 'LoadBalancer' && !service.metadata?.deletionTimestamp;
  const patchStatus = (service: V1Service, loadBalancer: object) => core.patchNamespacedServiceStatus(
    { namespace: service.metadata!.namespace!, name: service.metadata!.name!, body: { status: { loadBalancer } } },
    setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
  ).catch((error: Error) => options.log(`load balancers: ${key(service)}: ${error.message}`));
  const assign = async (service: V1Service) => {
    if (stopped) return;
    // No longer a LoadBalancer: its address is taken back (as MetalLB and the cloud service controllers do), so
    // kube-proxy stops answering on it.
    if (!wanted(service)) {
      if (service.status?.loadBalancer?.ingress?.length && !service.metadata?.deletionTimestamp) await patchStatus(service, { ingress: null });
      return;
    }
    if (service.status?.loadBalancer?.ingress?.length) return;
    const taken = new Set(informer.list().flatMap((other) => (wanted(other) ? (other.status?.loadBalancer?.ingress ?? []).map((entry) => entry.ip) : [])));
    const ip = options.pool.find((candidate) => !taken.has(candidate));
    if (!ip) {
      options.log(`load balancers: no address left for Service ${key(service)} (pool of ${options.pool.length})`);
      return;
    }
    await patchStatus(service, { ingress: [{ ip }] });
  };
  // One assignment at a time: two Services never get the same address.
  let queue: Promise<void> = Promise.resolve();
  const enqueue = (service: V1Service) => { queue = queue.then(() => assign(service)); };
  informer.on('add', enqueue);
  informer.on('update', enqueue);
  informer.on('error', () => {
    if (!stopped) setTimeout(() => { if (!stopped) informer.start().catch(() => undefined); }, 1000).unref();
  });
  await informer.start();
  return {
    async stop() {
      stopped = true;
      await informer.stop().catch(() => undefined);
      await queue;
    },
  };
}
