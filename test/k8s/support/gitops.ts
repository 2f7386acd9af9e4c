/** Shared by the GitOps tests on the real plane: the WalrusApp CRD installed once per run, and kubectl. */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { fileURLToPath } from 'node:url';
import { ApiextensionsV1Api, CustomObjectsApi } from '@kubernetes/client-node';
import type { KubeConfig } from '@kubernetes/client-node';
import { CRD_NAME } from '../../../src/gitops/api/crd.ts';
import { GROUP, PLURAL, VERSION } from '../../../src/gitops/api/types.ts';
import { sharedCluster, waitFor } from './control-plane.ts';

let installed: Promise<void> | undefined;

/** Installs the WalrusApp CRD (once per run; the plane is shared) and waits until the new kind is served. */
export function installWalrusAppCrd(kc: KubeConfig): Promise<void> {
  installed ??= (async () => {
    // Through kubectl and the file a provider applies (client-node's typed create would drop the x-kubernetes-* keys).
    await kubectl(['apply', '-f', fileURLToPath(new URL('../../../deploy/crd.yaml', import.meta.url))]);
    const extensions = kc.makeApiClient(ApiextensionsV1Api);
    await waitFor('WalrusApp CRD established', async () => {
      const crd = await extensions.readCustomResourceDefinition({ name: CRD_NAME });
      return crd.status?.conditions?.some((condition) => condition.type === 'Established' && condition.status === 'True');
    });
    const objects = kc.makeApiClient(CustomObjectsApi);
    await waitFor('walrusapps served', () => objects.listClusterCustomObject({ group: GROUP, version: VERSION, plural: PLURAL }).then(() => true));
  })();
  return installed;
}

/** Runs the plane's own kubectl with the admin kubeconfig (or `kubeconfig`); resolves with stdout, rejects with stderr. */
export async function kubectl(args: string[], options: { kubeconfig?: string; cwd?: string } = {}): Promise<string> {
  const cluster = await sharedCluster();
  const kubeconfig = options.kubeconfig ?? cluster.plane.kubeconfigPath;
  const { stdout } = await promisify(execFile)(cluster.kubectl, ['--kubeconfig', kubeconfig, ...args], { cwd: options.cwd, maxBuffer: 16 << 20 });
  return stdout;
}
