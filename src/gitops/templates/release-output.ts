import type { V1ConfigMap } from '@kubernetes/client-node';
import type { ReleaseOutput, StepOutput } from '../../ports/gateway-api.ts';
import type { WalrusApp } from '../../ports/walrus-app.ts';
import { ANNOTATIONS, dnsLabel, LABELS, labelsOf, ownerReference } from './names.ts';

/**
 * What a release printed while it was built and tested, kept after its build Job is gone (docs/architecture.md, The
 * provider's gateway, Build output): one ConfigMap per built commit in the app's namespace, owned by the app (so it
 * goes with it), holding each step's last output and how the step ended. Bounded three ways: each step keeps its last
 * STEP_BYTES, a release at most RELEASE_BYTES, an app the RELEASES_KEPT newest. A ConfigMap rather than the app's
 * status: the status is rewritten whole by every reconcile pass and carried by every watch event and informer
 * cache of the controller, while the output is read only when someone asks; and rather than Walrus: it is the tenant's
 * business, and stored there it would be public and paid for.
 */

/** The last bytes of each step's output that are kept (a failing test's report fits; a whole npm install does not). */
export const STEP_BYTES = 32 * 1024;
/** A release's output in all, well under a ConfigMap's 1 MiB. */
export const RELEASE_BYTES = 128 * 1024;
/** How many releases' output an app keeps, newest first. */
export const RELEASES_KEPT = 10;
/** The label that marks a release-output ConfigMap (beside the app's own labels). */
export const RELEASE_OUTPUT_LABEL = 'gitops.walrus-git.dev/release-output';
const RELEASE_KEY = 'release.json';

/** The ConfigMap of a commit's output (one per commit and build settings: a rebuild of both replaces it). */
export function releaseOutputName(app: Pick<WalrusApp, 'metadata'>, commit: string, configHash: string): string {
  return `${dnsLabel(app.metadata.name, 63 - 24)}-out-${commit.slice(0, 12).toLowerCase()}-${configHash.slice(0, 8)}`;
}

/** The label selector of an app's release-output ConfigMaps. */
export function releaseOutputSelector(app: Pick<WalrusApp, 'metadata'>): string {
  return `${LABELS.app}=${dnsLabel(app.metadata.name)},${RELEASE_OUTPUT_LABEL}=true`;
}

export function releaseOutputConfigMap(app: WalrusApp, release: ReleaseOutput): V1ConfigMap {
  const bounded = boundRelease(release);
  return {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: {
      name: releaseOutputName(app, release.commit, release.configHash),
      namespace: app.metadata.namespace,
      labels: { ...labelsOf(app, 'build'), [RELEASE_OUTPUT_LABEL]: 'true' },
      annotations: { [ANNOTATIONS.commit]: release.commit, [ANNOTATIONS.buildConfig]: release.configHash },
      ownerReferences: [ownerReference(app)],
    },
    data: { [RELEASE_KEY]: JSON.stringify(bounded) },
  };
}

/** The release a ConfigMap holds; null for one that is not a release output of this controller (or was damaged). */
export function parseReleaseOutput(configMap: V1ConfigMap): ReleaseOutput | null {
  const text = configMap.data?.[RELEASE_KEY];
  if (!text) return null;
  try {
    const value = JSON.parse(text) as ReleaseOutput;
    if (typeof value.commit !== 'string' || typeof value.result !== 'string' || !Array.isArray(value.steps)) return null;
    return value;
  } catch {
    return null;
  }
}

/**
 * The release-output ConfigMaps beyond the RELEASES_KEPT newest (by the time each release ended), which the writer
 * deletes after writing a new one.
 */
export function releaseOutputsToPrune(configMaps: readonly V1ConfigMap[], kept = RELEASES_KEPT): V1ConfigMap[] {
  const timed = configMaps.map((configMap) => ({ configMap, time: Date.parse(parseReleaseOutput(configMap)?.time ?? '') || 0 }));
  return timed.sort((a, b) => b.time - a.time).slice(kept).map(({ configMap }) => configMap);
}

/** Each step's output cut to its last STEP_BYTES, then the earliest steps' cut further until the release fits. */
export function boundRelease(release: ReleaseOutput, stepBytes = STEP_BYTES, releaseBytes = RELEASE_BYTES): ReleaseOutput {
  const steps = release.steps.map((step) => tail(step, stepBytes));
  let total = steps.reduce((sum, step) => sum + Buffer.byteLength(step.output), 0);
  // The last steps explain a failure; the first ones (the checkout, the install) give way first.
  for (let i = 0; i < steps.length && total > releaseBytes; i++) {
    const size = Buffer.byteLength(steps[i]!.output);
    const keep = Math.max(0, size - (total - releaseBytes));
    steps[i] = tail(steps[i]!, keep);
    total -= size - Buffer.byteLength(steps[i]!.output);
  }
  return { ...release, steps };
}

/** The step with its output cut to the last `bytes` bytes, at a line's start when there is one. */
function tail(step: StepOutput, bytes: number): StepOutput {
  const buffer = Buffer.from(step.output);
  if (buffer.length <= bytes) return step;
  let text = buffer.subarray(buffer.length - bytes).toString('utf8').replace(/^\uFFFD+/, '');
  const newline = text.indexOf('\n');
  if (newline >= 0 && newline < text.length - 1) text = text.slice(newline + 1);
  const cut = buffer.length - Buffer.byteLength(text);
  return { ...step, output: text, cutBytes: (step.cutBytes ?? 0) + cut };
}
