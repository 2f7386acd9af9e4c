/**
 * A provider's gateway for the web tests: the real gateway (src/gitops/gateway/server.ts: each request's Sui signature,
 * time and nonce checked, the lease and the provider's cap read from the chain) in front of a cluster window that
 * holds one lease's app as a controller leaves it once it serves: a WalrusApp released at a commit after one refused
 * build, its Deployment and one ready replica, the kept build output of both, events and log lines. What the app and
 * its build printed carries the lease's secret values, as an app that echoes its environment would.
 * It listens before the provider registers (its URL is the endpoint on chain) and answers once `serve` names the
 * provider.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { CoreV1Event, V1Deployment, V1Pod } from '@kubernetes/client-node';
import type { Ed25519Keypair } from '@mysten/sui/keypairs/ed25519';
import { openLocalNetwork } from '../../src/devnet/local-network.ts';
import { Gateway } from '../../src/gitops/gateway/server.ts';
import { leaseAppName, tenantNamespace } from '../../src/gitops/provider/plan.ts';
import { releaseOutputConfigMap } from '../../src/gitops/templates/release-output.ts';
import { ANNOTATIONS, LABELS } from '../../src/gitops/templates/names.ts';
import type { AppWindow } from '../../src/ports/app-window.ts';
import { API_VERSION, KIND, type WalrusApp } from '../../src/ports/walrus-app.ts';
import { SuiLedger } from '../../src/sui/ledger.ts';
import { SuiMarket } from '../../src/sui/market.ts';
import { verifyPersonalMessage } from '../../src/sui/personal-message.ts';

export interface LeaseApp {
  lease: string;
  tenant: string;
  repository: string;
  /** The commit that serves. */
  released: string;
  /** A commit whose tests failed. */
  refused: string;
  /** Secret values the app and its build print. */
  secrets: Record<string, string>;
}

export interface LeaseGatewayServer {
  /** The URL to register as the provider's endpoint. */
  endpoint: string;
  /** From now on, answer as provider `providerId`'s gateway (its cap held by `providerKey`) for `app`. */
  serve(options: { stateDir: string; providerId: string; providerKey: Ed25519Keypair; app: LeaseApp }): Promise<void>;
  close(): Promise<void>;
}

export async function listenLeaseGateway(): Promise<LeaseGatewayServer> {
  let gateway: Gateway | null = null;
  let closeNetwork = async () => {};
  const server = createServer((request, response) => {
    if (gateway === null) response.writeHead(503).end();
    else gateway.handle(request, response);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    endpoint: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    async serve({ stateDir, providerId, providerKey, app }) {
      const network = await openLocalNetwork(stateDir);
      closeNetwork = () => network.close();
      const ledger = new SuiLedger({ client: network.client, signer: providerKey, packageId: network.packageId, registryId: network.registryId });
      const market = new SuiMarket({ client: network.client, ledger, packageId: network.packageId, marketId: network.marketId });
      gateway = new Gateway({ providerId, market, window: appWindow(app), verify: verifyPersonalMessage, now: () => Date.now(), log: () => {} });
    },
    async close() {
      gateway?.stop();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await closeNetwork();
    },
  };
}

/** The cluster as the lease's app leaves it: read only, as the gateway reads it. */
function appWindow(lease: LeaseApp): AppWindow {
  const namespace = tenantNamespace(lease.tenant);
  const name = leaseAppName(lease.lease);
  const at = (minutesAgo: number) => new Date(Date.now() - minutesAgo * 60_000).toISOString();
  const app: WalrusApp = {
    apiVersion: API_VERSION, kind: KIND,
    metadata: { name, namespace, uid: '5b6f1c9e-0000-4000-8000-000000000001' },
    spec: { repository: lease.repository, ref: 'refs/heads/main' },
    status: {
      head: { ref: 'refs/heads/main', commit: lease.released, seq: 4, pusher: lease.tenant, transaction: 'tx' },
      lastAppliedRevision: lease.released,
      url: `http://${name}.apps.provider.test/`,
      conditions: [{ type: 'Ready', status: 'True', reason: 'Serving', message: 'every replica is ready', lastTransitionTime: at(5) }],
      history: [
        { commit: lease.released, result: 'Released', time: at(5), message: 'rolled out' },
        { commit: lease.refused, result: 'BuildFailed', time: at(20), message: 'the tests failed' },
      ],
    },
  };
  const step = (name: string, exitCode: number, output: string) => ({ name, exitCode, reason: exitCode === 0 ? 'Completed' : 'Error', output });
  const outputs = [
    releaseOutputConfigMap(app, { commit: lease.released, configHash: 'c1', attempt: 1, result: 'Built', time: at(6), steps: [step('build', 0, `npm ci\nadded 3 packages\ntoken in use: ${lease.secrets.API_TOKEN}\n`), step('test', 0, '# pass 4\n')] }),
    releaseOutputConfigMap(app, { commit: lease.refused, configHash: 'c1', attempt: 1, result: 'TestsFailed', time: at(21), steps: [step('build', 0, 'npm ci\n'), step('test', 1, 'not ok 1 - adds two numbers\n')] }),
  ];
  const pod: V1Pod = {
    metadata: { name: `${name}-7d9f-x2k4q`, namespace, labels: { [LABELS.component]: 'run' }, annotations: { [ANNOTATIONS.commit]: lease.released } },
    status: {
      phase: 'Running',
      conditions: [{ type: 'Ready', status: 'True' }],
      containerStatuses: [{ name: 'app', image: 'node:22', imageID: '', ready: true, restartCount: 0, state: { running: { startedAt: new Date(at(5)) } } }],
    },
  };
  const deployment: V1Deployment = { metadata: { name, namespace }, spec: { replicas: 1, selector: {}, template: {} }, status: { readyReplicas: 1, updatedReplicas: 1 } };
  const event = (minutesAgo: number, reason: string, message: string, object: string): CoreV1Event => ({
    metadata: { name: `${object}.${minutesAgo}`, namespace }, involvedObject: { kind: 'Pod', name: object }, reason, message, type: 'Normal', count: 1, lastTimestamp: new Date(at(minutesAgo)),
  });
  const events = [event(6, 'Pulled', 'Container image "node:22" already present on machine', pod.metadata!.name!), event(5, 'Started', 'Started container app', pod.metadata!.name!), event(1, 'Other', 'not this app', 'someone-else')];
  return {
    readApp: async (ref) => (ref.namespace === namespace && ref.name === name ? app : null),
    readDeployment: async (ref) => (ref.namespace === namespace ? deployment : null),
    listPods: async (ns, selector) => (ns === namespace && selector.includes(`${LABELS.component}=run`) ? [pod] : []),
    listEvents: async (ns) => (ns === namespace ? events : []),
    listConfigMaps: async (ns) => (ns === namespace ? outputs : []),
    readLog: async () => `listening on port 3000\nconnected to ${lease.secrets.DATABASE_URL}\nrequest /health\n`,
    followLog: async function* () {},
  };
}
