import type { V1Container, V1Job, V1Pod } from '@kubernetes/client-node';
import { messageOf } from '../../core/errors.ts';
import { BUILD_STEP, TEST_STEP } from '../templates/build-job.ts';
import { withoutEnvValues } from '../../core/env-values.ts';
import { parseReleaseOutput, releaseOutputConfigMap, releaseOutputSelector, releaseOutputsToPrune, STEP_BYTES } from '../templates/release-output.ts';
import type { StepOutput } from '../../ports/gateway-api.ts';
import type { Pass } from './pass.ts';

/** Lines of each step's log read when a build ends: enough to fill the bytes a step keeps. */
const STEP_LINES = 1000;

/**
 * Keeps what a finished build Job printed, step by step, in the app's release-output ConfigMap (docs/architecture.md,
 * The provider's gateway, Build output), then deletes the oldest beyond the number kept. Called once the Job ended
 * and before it is deleted. Keeping the output is a courtesy to the tenant: a failure to keep it is logged and never
 * fails the pass.
 */
export async function keepReleaseOutput(pass: Pass, job: V1Job, pods: readonly V1Pod[], result: string): Promise<void> {
  const { deps, app } = pass;
  const planned = pass.fact('build');
  try {
    const pod = [...pods].sort((a, b) => time(b.metadata?.creationTimestamp) - time(a.metadata?.creationTimestamp))[0];
    const template = job.spec?.template.spec;
    const containers = [...(template?.initContainers ?? []), ...(template?.containers ?? [])];
    const steps = await Promise.all(containers.map((container) => stepOutput(pass, pod, container)));
    const configMap = releaseOutputConfigMap(app, {
      commit: planned.commit, configHash: planned.configHash, attempt: planned.attempt, result, time: pass.now.toISOString(), steps,
    });
    await deps.cluster.apply(configMap);
    const kept = await deps.cluster.listConfigMaps(app.metadata.namespace, releaseOutputSelector(app));
    for (const old of releaseOutputsToPrune(kept.filter((candidate) => parseReleaseOutput(candidate) !== null))) {
      await deps.cluster.deleteConfigMap(pass.ref(old.metadata!.name!));
    }
  } catch (error) {
    deps.log(`${pass.key}: the build output of ${planned.commit.slice(0, 12)} was not kept: ${messageOf(error)}`);
  }
}

/** One step's end and last output: its log tail, else what the kubelet kept as its termination message. */
async function stepOutput(pass: Pass, pod: V1Pod | undefined, container: V1Container): Promise<StepOutput> {
  const status = [...(pod?.status?.initContainerStatuses ?? []), ...(pod?.status?.containerStatuses ?? [])].find((candidate) => candidate.name === container.name);
  const terminated = status?.state?.terminated;
  if (!pod || !terminated) return { name: container.name, output: '' };
  const log = await pass.deps.cluster.podLogTail(pass.ref(pod.metadata!.name!), container.name, STEP_LINES).catch(() => null);
  // A succeeded tool step reports its result (the artifact, the manifest) as its termination message, not output.
  const fallback = terminated.exitCode !== 0 ? terminated.message ?? '' : '';
  const text = (log ?? fallback).slice(-4 * STEP_BYTES);
  // The app's own steps run with the offer's buildEnv, which may hold a registry token that a script can print.
  const appStep = container.name === BUILD_STEP || container.name === TEST_STEP;
  const output = appStep ? withoutEnvValues(text, container.env ?? []) : text;
  return { name: container.name, exitCode: terminated.exitCode, ...(terminated.reason ? { reason: terminated.reason } : {}), output };
}

function time(value: Date | string | undefined): number {
  return value ? new Date(value).getTime() : 0;
}
