/**
 * What image a pod's container runs, by digest, as its kubelet reports it (the controller's attester mode names its
 * builds by it). Listed by name rather than read: the controller's role may list pods, not get them.
 */
import { CoreV1Api, type KubeConfig } from '@kubernetes/client-node';
import { imageByDigest } from '../core/image-reference.ts';

/** The digest reference of container `container` (else the pod's first) of pod `name`, or null when none is known. */
export async function runningImage(kc: KubeConfig, pod: { namespace: string; name: string }, container?: string): Promise<string | null> {
  const { items } = await kc.makeApiClient(CoreV1Api).listNamespacedPod({ namespace: pod.namespace, fieldSelector: `metadata.name=${pod.name}` });
  const statuses = items[0]?.status?.containerStatuses ?? [];
  const status = container === undefined ? statuses[0] : statuses.find((candidate) => candidate.name === container);
  return imageByDigest(status?.imageID);
}
