/**
 * Shared by the GitOps tests on the real plane: the WalrusApp CRD installed once per run, kubectl on the shared plane,
 * a devnet relay that can cut the node off, and waiting for a release. What the demo and the benchmark use too lives
 * in scripts/harness/gitops.ts, re-exported here under the same names.
 */
import { writeFileSync } from 'node:fs';
import * as assert from 'uvu/assert';
import { fileURLToPath } from 'node:url';
import { ApiextensionsV1Api, CustomObjectsApi } from '@kubernetes/client-node';
import type { KubeConfig } from '@kubernetes/client-node';
import { CRD_NAME } from '../../../src/gitops/api/crd.ts';
import { GROUP, PLURAL, VERSION, type WalrusApp } from '../../../src/ports/walrus-app.ts';
import { kubectl as runKubectl, within } from '../../../scripts/harness/gitops.ts';
import type { World } from '../../../scripts/harness/world.ts';
import { startApiRelay } from '../../cluster/node/api-relay.ts';
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
export async function kubectl(args: string[], options: { kubeconfig?: string; cwd?: string; kubectlPath?: string } = {}): Promise<string> {
  const cluster = options.kubeconfig && options.kubectlPath ? undefined : await sharedCluster();
  return runKubectl(args, { kubeconfig: options.kubeconfig ?? cluster!.plane.kubeconfigPath, kubectlPath: options.kubectlPath ?? cluster!.kubectl, cwd: options.cwd });
}

export interface DevnetRelay {
  url: string;
  /** The env that reaches the devnet through the relay. */
  env: NodeJS.ProcessEnv;
  /** While true, every new connection from the node (its pods) is reset; the host (tests, controllers) still gets through. */
  cutPods(cut: boolean): void;
  /** How many connections from the node were reset so far. */
  refused(): number;
  close(): Promise<void>;
}

/**
 * A TCP relay on `host` in front of the devnet at `devnetUrl` (which answers with service URLs relative to the one it
 * was reached at, so everything a client does goes through here): the node losing the chain and Walrus, on demand.
 */
export async function startDevnetRelay(devnetUrl: string, host: string): Promise<DevnetRelay> {
  const target = new URL(devnetUrl);
  let cut = false;
  let refused = 0;
  const relay = await startApiRelay({ host, port: 0 }, { host: target.hostname, port: Number(target.port) }, {
    refuse: (address) => {
      // The host's own processes connect from `host` itself; anything else came through the node.
      const fromNode = address !== host && !address.startsWith('127.') && address !== '::1';
      if (cut && fromNode) refused++;
      return cut && fromNode;
    },
  });
  const url = `http://${host}:${relay.port}`;
  return {
    url, env: { GIT_WALRUS_NETWORK: 'devnet', GIT_WALRUS_DEVNET_URL: url },
    cutPods: (value) => { cut = value; },
    refused: () => refused,
    close: () => relay.close(),
  };
}

/**
 * Waits until the app is Ready at `commit`, and returns it. Fails at once, with the status's words, when the commit is
 * the app's failedRevision: it will not deploy (a build that failed, also after its retries, or a rolled-back rollout).
 */
export async function readyAt(readApp: () => Promise<WalrusApp>, commit: string, timeoutMs: number): Promise<WalrusApp> {
  const condition = (app: WalrusApp, type: string) => app.status?.conditions?.find((c) => c.type === type);
  const { app, failed } = await waitFor<{ app: WalrusApp; failed: boolean }>(`Ready at ${commit.slice(0, 12)}`, async () => {
    const current = await within(15_000, readApp());
    if (!current) return undefined;
    if (current.status?.failedRevision === commit) return { app: current, failed: true };
    return condition(current, 'Ready')?.status === 'True' && current.status?.lastAppliedRevision === commit && { app: current, failed: false };
  }, timeoutMs);
  if (failed) {
    throw new Error(`${commit.slice(0, 12)} failed and will not deploy: Ready=${condition(app, 'Ready')?.reason}: ${condition(app, 'Ready')?.message}; Built: ${condition(app, 'Built')?.message}`);
  }
  return app;
}

/**
 * A provider offer file for tests whose tenants build and run against the devnet: the devnet stands for the internet
 * and listens on the node's host address, in a private range the default offer keeps tenants out of; this offer keeps
 * them out of the cluster's pods and Services only. Returns the file's path (for `--provider-offer`).
 */
export function devnetOfferFile(world: World, network: { podCidr: string; serviceCidr: string }, extra: Record<string, unknown> = {}): string {
  const file = world.path('provider-offer.json');
  writeFileSync(file, JSON.stringify({ ...extra, egress: { except: [network.podCidr, network.serviceCidr] } }));
  return file;
}

/** `git walrus <args>` in the world's `app` repository with `env`: its trimmed output; a failure fails the test with its stderr. */
export function walrusIn(world: World): (args: string[], env: NodeJS.ProcessEnv) => Promise<string> {
  return async (args, env) => {
    const result = await world.run('app', ['walrus', ...args], { env });
    assert.is(result.code, 0, `git walrus ${args.join(' ')}: ${result.stderr}`);
    return result.stdout.trim();
  };
}
