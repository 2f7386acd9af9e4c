/**
 * Composes `git walrus controller`: the network (as every command opens it), a KubeConfig (a file, or the pod's
 * service account in a cluster), the Kubernetes adapter, and the templates configured with what the tool containers
 * need to reach the same network. The only place the controller's environment is read.
 */
import { readFileSync } from 'node:fs';
import { hostname } from 'node:os';
import type { AttestationLedger } from '../ports/attestations.ts';
import type { ControllerRun, ControllerRunOptions } from '../cli/app.ts';
import type { Log } from '../core/log.ts';
import { Controller } from '../gitops/controller.ts';
import { createTemplates } from '../gitops/templates/create-templates.ts';
import { type ToolConfig } from '../gitops/templates/pods.ts';
import { KubernetesCluster } from '../k8s/cluster.ts';
import { loadKubeConfig } from '../k8s/kubeconfig.ts';
import { KubernetesTenants } from '../k8s/tenants.ts';
import { ProviderReconciler } from '../gitops/provider/provider-reconciler.ts';
import { chainReadAccess } from '../gitops/reconcile/repository-access.ts';
import type { PlanInput } from '../gitops/provider/plan.ts';
import { DEFAULT_OFFER, OfferError, parseOffer, type ProviderOffer } from '../gitops/api/offer.ts';
import { normalizeSuiId } from '../core/walrus-url.ts';
import { UsageError, messageOf } from '../core/errors.ts';
import type { CertifiedReads } from '../ports/certified.ts';
import { openNetwork, type OpenedNetwork } from './context.ts';
import { reclaimArtifact as reclaimArtifactBlobs, type ReclaimResult } from '../remote/reclaim.ts';
import { serveOperations } from '../gitops/operate/operations-server.ts';
import type { Attester } from '../gitops/attester/attester.ts';
import { openAttester } from './attester.ts';
import { attesterNamespace } from '../gitops/attester/job-build.ts';
import { DEFAULTS } from '../gitops/api/types.ts';
import { pinnedDigest } from '../core/image-reference.ts';

/** What the tool containers inherit from the controller's environment to reach the same network. */
// GIT_WALRUS_DELETABLE_PACKS also makes the pack step's artifacts deletable, so retention can delete them.
const TOOL_ENV = ['GIT_WALRUS_NETWORK', 'GIT_WALRUS_DEVNET_URL', 'GIT_WALRUS_PACKAGE_ID', 'GIT_WALRUS_REGISTRY_ID', 'GIT_WALRUS_DELETABLE_PACKS'] as const;
const SERVICE_ACCOUNT_NAMESPACE = '/var/run/secrets/kubernetes.io/serviceaccount/namespace';

export async function startController(options: ControllerRunOptions, env: NodeJS.ProcessEnv, log: Log): Promise<ControllerRun> {
  // Before the network opens: a kubeconfig or offer that cannot be used stops the command with nothing to close.
  const kc = loadKubeConfig(options.kubeconfig ? { file: options.kubeconfig } : env.KUBERNETES_SERVICE_HOST ? 'in-cluster' : 'default');
  const offer = providerOffer(options.offerFile);
  const attesterBuild = options.provider?.attest ? attesterBuildSettings(options.provider.appSpecFile, options.provider.attest.image) : undefined;
  const network = await openNetwork({ env, log, network: options.network, role: 'controller' });
  const toolEnv = Object.fromEntries(TOOL_ENV.flatMap((name) => (env[name] ? [[name, env[name]!]] : [])));
  if (options.network) toolEnv.GIT_WALRUS_NETWORK = options.network;
  const tools: ToolConfig = {
    env: toolEnv,
    ...(options.providerKeySecret ? { providerKey: { secretName: options.providerKeySecret, key: 'key' } } : {}),
    ...(env.GIT_WALRUS_TOOL_IMAGE ? { image: env.GIT_WALRUS_TOOL_IMAGE } : {}),
  };
  const controllerNamespace = options.controllerNamespace ?? env.POD_NAMESPACE ?? inClusterNamespace() ?? options.namespace ?? 'walrus-gitops';
  const line = (text: string) => log.info(text);
  let provider: ProviderReconciler | undefined;
  const providerLines: string[] = [];
  let leaseSecrets: ((leaseIds: readonly string[]) => Promise<Map<string, { blobId: string; version: number } | null>>) | undefined;
  let reclaimArtifact: ((blobId: string) => Promise<ReclaimResult>) | undefined;
  let reproduction: { providerId: string; attestations: AttestationLedger } | undefined;
  let attester: Attester | undefined;
  if (options.provider) {
    const { providerId: given, appSpecFile, intervalMs, claimEveryMs, serve, attest } = options.provider;
    const providerId = normalizeSuiId(given);
    const market = await network.market();
    const own = await market.ownProviders();
    if (!own.includes(providerId)) {
      await network.close();
      throw new UsageError(`${await market.signerAddress()} does not hold the ProviderCap of provider ${providerId}: run the controller with the provider's key (GIT_WALRUS_KEY, or the key Secret in deploy/provider/)`);
    }
    if (serve) {
      provider = new ProviderReconciler({
        market, tenants: new KubernetesTenants(kc), providerId, template: appTemplate(appSpecFile), offer, intervalMs, claimEveryMs,
        ...(options.providerKeySecret ? { keySecret: { namespace: controllerNamespace, name: options.providerKeySecret } } : {}),
        log: line,
      });
      leaseSecrets = async (leaseIds) => {
        const pointers = await market.leaseSecretsOf(leaseIds);
        // Keyed as asked: the chain's reply is keyed by normalized id.
        return new Map(leaseIds.map((lease) => {
          const pointer = pointers.get(normalizeSuiId(lease));
          return [lease, pointer ? { blobId: pointer.blobId, version: Number(pointer.version) } : null];
        }));
      };
      // The pack step stores artifacts with the provider's key, so its Blob objects are the provider's to delete.
      const { blobObjects } = network;
      if (blobObjects) reclaimArtifact = async (blobId) => reclaimArtifactBlobs({ blobStore: network.blobStore, blobObjects: await blobObjects(), log }, blobId);
      reproduction = { providerId, attestations: market.attestations() };
      providerLines.push(`controller: provider mode for ${providerId}: leases read every ${intervalMs / 1000}s, earnings claimed every ${claimEveryMs / 1000}s`);
    }
    if (attest && attesterBuild) {
      attester = await openAttester(network, { providerId, kc, offer, tools, template: { build: attesterBuild }, stateNamespace: controllerNamespace, intervalMs, line });
      const image = attesterBuild.image;
      const role = serve ? '' : ' (serving nothing)';
      providerLines.push(`controller: attester mode for ${providerId}${role}: rebuilds other providers' leases that require reproduction, builds in Jobs in namespace ${attesterNamespace(providerId)} with image ${image}`);
    }
  }
  let certified: CertifiedReads | undefined;
  try {
    certified = await certifiedHeads(offer, network);
  } catch (error) {
    await network.close();
    throw error;
  }
  const controller = new Controller({
    cluster: new KubernetesCluster(kc, { log: (text) => line(`controller: ${text}`) }),
    ledger: network.ledger,
    readAccess: chainReadAccess(network.ledger, options.provider ? network.market : null),
    ...(certified ? { certified } : {}),
    ...(leaseSecrets ? { leaseSecrets } : {}),
    ...(reclaimArtifact ? { reclaimArtifact } : {}),
    ...(reproduction ? { reproduction } : {}),
    templates: createTemplates(tools, offer),
    offer,
    network: network.name,
    packageId: network.packageId,
    namespace: options.namespace ?? null,
    controllerNamespace,
    identity: env.POD_NAME ?? `${hostname()}-${process.pid}`,
    leaderElection: options.leaderElection,
    pollMs: options.pollMs,
    companions: [...(provider ? [provider] : []), ...(attester ? [attester] : [])],
    reconcileApps: options.provider?.serve !== false,
    log: line,
  });
  line(`controller: ${kc.getCurrentCluster()?.server ?? 'in-cluster'}, network ${network.name}, lease and cursor in namespace ${controllerNamespace}`);
  for (const text of providerLines) line(text);
  line(certified
    ? 'controller: builds only heads proved against the validators\' certificates (requireCertifiedHeads)'
    : 'controller: takes heads on the node\'s word (requireCertifiedHeads is off)');
  let operations: Awaited<ReturnType<typeof serveOperations>> | undefined;
  if (options.operations) {
    const { host, port, wedgedAfterMs } = options.operations;
    // Readiness wants a chain read within ten polls (a minute at least): the watcher reads every poll.
    const limits = { wedgedAfterMs, chainStaleAfterMs: Math.max(60_000, 10 * options.pollMs) };
    try {
      operations = await serveOperations(controller, limits, { host, port });
    } catch (error) {
      await network.close();
      throw new UsageError(`--health-address ${host}:${port}: ${messageOf(error)}`);
    }
    line(`controller: /healthz, /readyz and /metrics on ${host}:${operations.port}`);
  }
  return {
    run: () => controller.run(),
    stop: async () => {
      await controller.stop();
      await operations?.close();
      await network.close();
    },
  };
}

/**
 * The certified reads heads must pass before a build: the offer's `requireCertifiedHeads`, on by default wherever the
 * network has a trust anchor; asked for on a network without one, the controller does not start.
 */
async function certifiedHeads(offer: ProviderOffer, network: OpenedNetwork): Promise<CertifiedReads | undefined> {
  const wanted = offer.requireCertifiedHeads ?? network.certified !== undefined;
  if (!wanted) return undefined;
  if (!network.certified) {
    throw new UsageError(`the offer sets requireCertifiedHeads, but network ${network.name} has no trust anchor for certified reads (GIT_WALRUS_CERTIFIED_ANCHOR), or its node no gRPC API`);
  }
  return network.certified();
}

function inClusterNamespace(): string | undefined {
  try {
    return readFileSync(SERVICE_ACCOUNT_NAMESPACE, 'utf8').trim() || undefined;
  } catch {
    return undefined;
  }
}

/** The provider's offer (`--offer`): the defaults when no file is given. */
function providerOffer(file: string | undefined): ProviderOffer {
  if (file === undefined) return DEFAULT_OFFER;
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(file, 'utf8'));
  } catch (error) {
    throw new UsageError(`--offer ${file}: ${messageOf(error)}`);
  }
  try {
    return parseOffer(parsed);
  } catch (error) {
    if (error instanceof OfferError) throw new UsageError(`--offer ${file}: ${error.message}`, error.data);
    throw error;
  }
}

/**
 * The build settings of the attester's Jobs: the app template's, in the image `--attest-image` names (else the
 * template's, else the default). By digest only: the build key names the image, and a tag names no particular bytes,
 * so an attestation under it could never meet another provider's.
 */
function attesterBuildSettings(appSpecFile: string | undefined, attestImage: string | undefined): NonNullable<PlanInput['template']['build']> & { image: string } {
  const build = appTemplate(appSpecFile).build ?? {};
  const image = attestImage ?? build.image ?? DEFAULTS.build.image;
  if (pinnedDigest(image) === null) {
    throw new UsageError(`attester mode builds in an image named by digest, as the build keys it attests under name it: ${image} is a tag; give --attest-image <image>@sha256:… (or build.image in --provider-app-spec)`, { image });
  }
  return { ...build, image };
}

/** The WalrusApp spec every lease starts from: a JSON object of WalrusApp spec fields (repository and ref come from the lease). */
function appTemplate(file: string | undefined): PlanInput['template'] {
  if (file === undefined) return {};
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(file, 'utf8'));
  } catch (error) {
    throw new UsageError(`--provider-app-spec ${file}: ${messageOf(error)}`);
  }
  if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) throw new UsageError(`--provider-app-spec ${file}: expected a JSON object of WalrusApp spec fields`);
  const { repository: _repository, ref: _ref, ...template } = parsed as Record<string, unknown>;
  return template as PlanInput['template'];
}
