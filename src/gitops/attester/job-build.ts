/**
 * The attester's builds in Kubernetes (docs/architecture.md, Reproduced builds): a stranger's commit runs its npm
 * install scripts, so it is built where a serving provider builds its tenants' commits, never in the controller's
 * process. The Job is the serving build's own template (templates/build-job.ts, `attest`): no service-account token,
 * non-root on a read-only root, cpu/memory/storage limits, in a namespace of the attester's own that gets a tenant
 * namespace's isolation from the offer (default-deny network policies, the build egress allowance, quota and limits).
 * Its pack step stores nothing and reports the tar sha256, the manifest root and the build key, read back from the
 * termination message as the serving reconcile reads an artifact's. The image is named by digest (the build key
 * names it so): a build whose kubelet reports another digest for the build step is not taken.
 *
 * A build is stepped, never waited for: each call creates the Job if there is none, else reads it, and answers null
 * while it runs. The Job's name is a function of (repository, commit, build config), so a restarted attester finds
 * the Job its predecessor started. Once read, the Job is deleted.
 */
import type { V1Namespace } from '@kubernetes/client-node';
import { messageOf } from '../../core/errors.ts';
import type { Cluster } from '../../ports/cluster.ts';
import type { TenantCluster } from '../../ports/tenant-cluster.ts';
import { API_VERSION, KIND, type WalrusApp, type WalrusAppSpec } from '../../ports/walrus-app.ts';
import { formatWalrusUrl } from '../../core/walrus-url.ts';
import { pinnedDigest } from '../../core/image-reference.ts';
import { buildConfigHash } from '../api/build-config.ts';
import type { ProviderOffer } from '../api/offer.ts';
import { PROVIDER_LABELS } from '../api/labels.ts';
import { resolveSpec } from '../api/types.ts';
import { tenantIsolation } from '../provider/isolation.ts';
import { classifyBuildFailure } from '../reconcile/build-failure.ts';
import { buildStepImage, jobOutcome, parseBuildDigests } from '../reconcile/build-result.ts';
import { buildRefusal } from '../reconcile/isolation.ts';
import { buildJob } from '../templates/build-job.ts';
import { buildJobName, dnsLabel } from '../templates/names.ts';
import type { ToolConfig } from '../templates/pods.ts';
import type { AttesterBuild } from './attester.ts';
import { AttesterBuildFailedError, AttesterBuildInterruptedError } from './errors.ts';

/** The label that tells an attester's namespace from a serving provider's tenant namespaces. */
export const ATTESTER_MANAGED_BY = 'walrus-attester';

export interface JobBuildOptions {
  cluster: Pick<Cluster, 'createJob' | 'readJob' | 'deleteJob' | 'jobPods' | 'admitPod'>;
  tenants: Pick<TenantCluster, 'applyNamespace' | 'applyObject'>;
  offer: ProviderOffer;
  tools: ToolConfig;
  /** The attesting provider: its namespace is named after it. */
  providerId: string;
  /** The build settings (image, command, timeout, resources) every attested commit is built with. */
  template: Pick<WalrusAppSpec, 'build'>;
  log(line: string): void;
}

/** The namespace an attester's builds run in. */
export function attesterNamespace(providerId: string): string {
  return dnsLabel(`walrus-attest-${providerId.replace(/^0x/, '').toLowerCase().slice(0, 16)}`);
}

/** Steps the build of `commit` of `repositoryId` in its Job: its digests once done, null while it runs. */
export type StepBuild = (repositoryId: string, commit: string) => Promise<AttesterBuild | null>;

export function jobBuilder(options: JobBuildOptions): StepBuild {
  const { cluster, tenants, offer, tools, providerId, template, log } = options;
  const namespace = attesterNamespace(providerId);
  let isolated: Promise<void> | undefined;
  const isolate = () => {
    isolated ??= isolateNamespace(tenants, namespace, providerId, offer).catch((error) => {
      isolated = undefined;
      throw error;
    });
    return isolated;
  };
  return async (repositoryId, commit) => {
    await isolate();
    const app = standIn(namespace, repositoryId, template);
    const configHash = buildConfigHash(resolveSpec(app.spec), offer.buildEnv);
    const ref = { namespace, name: buildJobName(app, commit, configHash) };
    const job = await cluster.readJob(ref);
    if (!job) {
      const wanted = buildJob(app, { commit, configHash, attest: true }, tools, offer.buildEnv);
      const refusal = await buildRefusal(cluster, wanted);
      if (refusal) throw new AttesterBuildInterruptedError(commit, `its pod was refused: ${refusal.message}`);
      await cluster.createJob(wanted);
      log(`attester: build job ${namespace}/${ref.name} created for ${commit}`);
      return null;
    }
    const outcome = jobOutcome(job);
    if (outcome === 'running') return null;
    const pods = await cluster.jobPods(ref);
    try {
      if (outcome === 'succeeded') {
        // The key names the image by digest; the kubelet says what ran. Anything else is not this build.
        const image = resolveSpec(app.spec).build.image;
        const ran = buildStepImage(pods);
        if (ran !== null && pinnedDigest(ran) !== pinnedDigest(image)) throw new AttesterBuildInterruptedError(commit, `its build step ran ${ran}, not ${image}`);
        return parseBuildDigests(ref.name, pods);
      }
      const failure = classifyBuildFailure(job, pods);
      // The app's own failure is an answer (its commit does not build); the infrastructure's is tried in a new Job.
      if (failure.kind === 'app') throw new AttesterBuildFailedError(commit, failure.summary);
      throw new AttesterBuildInterruptedError(commit, `job ${ref.name} failed (${failure.reason}): ${failure.summary}`);
    } finally {
      await cluster.deleteJob(ref).catch((error) => log(`attester: build job ${ref.name} was not deleted: ${messageOf(error)}`));
    }
  };
}

/** The app an attester's build Job is made from: never stored, it names the repository and the build settings. */
function standIn(namespace: string, repositoryId: string, template: Pick<WalrusAppSpec, 'build'>): WalrusApp {
  return {
    apiVersion: API_VERSION, kind: KIND,
    metadata: { name: dnsLabel(`attest-${repositoryId.replace(/^0x/, '').toLowerCase().slice(0, 16)}`), namespace },
    spec: { repository: formatWalrusUrl({ id: repositoryId }), ...(template.build ? { build: template.build } : {}) },
  };
}

/** The attester's namespace, with a tenant namespace's isolation from the offer (written again on each start). */
async function isolateNamespace(tenants: JobBuildOptions['tenants'], namespace: string, providerId: string, offer: ProviderOffer): Promise<void> {
  const metadata: V1Namespace['metadata'] = { name: namespace, labels: { [PROVIDER_LABELS.managedBy]: ATTESTER_MANAGED_BY } };
  await tenants.applyNamespace({ metadata });
  for (const object of tenantIsolation(namespace, providerId, offer).objects) await tenants.applyObject(object);
}
