import type { V1Job, V1Pod } from '@kubernetes/client-node';
import type { Artifact } from '../../ports/walrus-app.ts';
import { imageByDigest } from '../../core/image-reference.ts';
import { BUILD_STEP } from '../templates/build-job.ts';
import { BuildResultError } from './errors.ts';

export function jobOutcome(job: V1Job): 'running' | 'succeeded' | 'failed' {
  const conditions = job.status?.conditions ?? [];
  if (conditions.some((condition) => condition.type === 'Complete' && condition.status === 'True') || (job.status?.succeeded ?? 0) > 0) return 'succeeded';
  if (conditions.some((condition) => condition.type === 'Failed' && condition.status === 'True')) return 'failed';
  return 'running';
}

/** The JSON object the build pod's pack container wrote as its termination message. */
function packReport(jobName: string, pods: readonly V1Pod[]): { message: string; report: Record<string, unknown> } {
  const succeeded = pods.find((pod) => pod.status?.phase === 'Succeeded') ?? pods[0];
  if (!succeeded) throw new BuildResultError(jobName, 'its pod is gone');
  const statuses = succeeded.status?.containerStatuses ?? [];
  const message = statuses.map((container) => container.state?.terminated?.message).find((text) => text && text.trim().startsWith('{'));
  if (!message) throw new BuildResultError(jobName, 'the pack container wrote no termination message');
  let parsed: unknown;
  try {
    parsed = JSON.parse(message);
  } catch {
    throw new BuildResultError(jobName, `the termination message is not JSON: ${message.slice(0, 200)}`);
  }
  return { message, report: (parsed ?? {}) as Record<string, unknown> };
}

const isSha256 = (value: unknown): value is string => typeof value === 'string' && /^[0-9a-f]{64}$/.test(value);

/** `{blobId, sha256, size}` (and manifestRoot, buildKey, buildInfo when reported) from the termination message of the build pod's last (pack) container. */
export function parseArtifact(jobName: string, pods: readonly V1Pod[]): Artifact {
  const { message, report } = packReport(jobName, pods);
  const { blobId, sha256, size, manifestRoot, buildKey, buildInfo } = report;
  if (typeof blobId !== 'string' || !blobId || !isSha256(sha256) || typeof size !== 'number' || !Number.isInteger(size) || size < 0) {
    throw new BuildResultError(jobName, `the termination message lacks blobId, sha256 or size: ${message.slice(0, 200)}`);
  }
  // What a reproducible build adds, kept when well-formed (an older pack step reports none of it).
  return {
    blobId, sha256, size,
    ...(isSha256(manifestRoot) ? { manifestRoot } : {}),
    ...(isSha256(buildKey) ? { buildKey } : {}),
    ...(typeof buildInfo === 'string' && buildInfo !== '' ? { buildInfo } : {}),
  };
}

/** What an attester's pack step (`--no-store`) reports: the digests, and the build key (null when the build left no report). */
export function parseBuildDigests(jobName: string, pods: readonly V1Pod[]): { tarSha256: string; manifestRoot: string; buildKey: string | null } {
  const { message, report } = packReport(jobName, pods);
  const { sha256, manifestRoot, buildKey } = report;
  if (!isSha256(sha256) || !isSha256(manifestRoot)) throw new BuildResultError(jobName, `the termination message lacks sha256 or manifestRoot: ${message.slice(0, 200)}`);
  return { tarSha256: sha256, manifestRoot, buildKey: isSha256(buildKey) ? buildKey : null };
}

/** The image the build step ran, by the digest its kubelet reports (null when it reports none). */
export function buildStepImage(pods: readonly V1Pod[]): string | null {
  const succeeded = pods.find((pod) => pod.status?.phase === 'Succeeded') ?? pods[0];
  return imageByDigest(succeeded?.status?.initContainerStatuses?.find((container) => container.name === BUILD_STEP)?.imageID);
}
