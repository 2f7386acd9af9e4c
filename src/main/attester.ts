/**
 * Composes the controller's attester mode (`git walrus controller --provider … --attest`) over an opened network and
 * a cluster: the provider's cap, the market's attestations, the key's signature for the nonce, builds in isolated
 * build Jobs in the attester's own namespace (gitops/attester/job-build.ts), never in this process, and its state in a
 * ConfigMap in the controller's namespace (gitops/attester/configmap-state.ts).
 */
import type { KubeConfig } from '@kubernetes/client-node';
import { Attester } from '../gitops/attester/attester.ts';
import { jobBuilder } from '../gitops/attester/job-build.ts';
import { configMapAttesterState } from '../gitops/attester/configmap-state.ts';
import type { ProviderOffer } from '../gitops/api/offer.ts';
import type { ToolConfig } from '../gitops/templates/pods.ts';
import { KubernetesCluster } from '../k8s/cluster.ts';
import { KubernetesTenants } from '../k8s/tenants.ts';
import type { WalrusAppSpec } from '../ports/walrus-app.ts';
import type { OpenedNetwork } from './context.ts';

export interface AttesterSettings {
  providerId: string;
  kc: KubeConfig;
  offer: ProviderOffer;
  tools: ToolConfig;
  /** The build settings every attested commit is built with (the provider's app template, its image overridden). */
  template: { build: NonNullable<WalrusAppSpec['build']> & { image: string } };
  /** The controller's own namespace: the attester's state is a ConfigMap there (the controller's Role may read it). */
  stateNamespace: string;
  intervalMs: number;
  /** Where the attester's lines go. */
  line(text: string): void;
}

export async function openAttester(network: OpenedNetwork, settings: AttesterSettings): Promise<Attester> {
  const { providerId, kc, offer, tools, template, stateNamespace, intervalMs, line } = settings;
  const market = await network.market();
  const cluster = new KubernetesCluster(kc, { log: (text) => line(`attester: ${text}`) });
  return new Attester({
    attester: { providerId, capId: await market.providerCapId(providerId) },
    market, attestations: market.attestations(), ledger: network.ledger,
    signPersonalMessage: (message) => network.signPersonalMessage(message),
    build: jobBuilder({ cluster, tenants: new KubernetesTenants(kc), offer, tools, providerId, template, log: line }),
    image: template.build.image, state: configMapAttesterState(cluster, stateNamespace),
    intervalMs, log: line,
  });
}
