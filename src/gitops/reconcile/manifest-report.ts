import type { V1Pod } from '@kubernetes/client-node';
import { BuildResultError } from './errors.ts';
import { ManifestError, manifestFromReport } from '../manifest/manifest.ts';
import { type AppManifest } from '../../ports/walrus-app.ts';
import { MANIFEST_STEP } from '../templates/build-job.ts';

/** The app's manifest as the build's manifest step reported it (its termination message), from the succeeded pod. */
export function parseManifestReport(jobName: string, pods: readonly V1Pod[]): AppManifest {
  const pod = pods.find((candidate) => candidate.status?.phase === 'Succeeded') ?? pods[0];
  const step = pod?.status?.initContainerStatuses?.find((container) => container.name === MANIFEST_STEP);
  const message = step?.state?.terminated?.message;
  if (!message) throw new BuildResultError(jobName, 'the manifest step wrote no termination message');
  try {
    return manifestFromReport(JSON.parse(message));
  } catch (error) {
    if (error instanceof SyntaxError || error instanceof ManifestError) throw new BuildResultError(jobName, `the manifest step's report is unusable: ${error.message}`);
    throw error;
  }
}
