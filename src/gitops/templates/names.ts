import { createHash } from 'node:crypto';
import type { V1OwnerReference } from '@kubernetes/client-node';
import { InternalError } from '../../core/errors.ts';
import { API_VERSION, GROUP, KIND } from '../../ports/walrus-app.ts';
import type { WalrusApp } from '../../ports/walrus-app.ts';

/**
 * Names, labels and annotations of what the controller creates for a WalrusApp. Names are pure functions of the
 * app's name (and for builds of the commit and build config), so every pass computes the same ones, and they are
 * valid where Kubernetes is strictest: a Service name is a DNS-1035 label (63 characters, a letter first), and a Job's
 * name becomes its pods' `job-name` label value (63 characters).
 */

/** The project's own image (the tools: checkout, artifact pack|fetch); kept equal to package.json's version by a test. */
export const PROJECT_VERSION = '0.1.0';
export const PROJECT_IMAGE = `git-remote-walrus:${PROJECT_VERSION}`;

export const LABELS = {
  /** The WalrusApp's name (shortened to a valid label value when longer than 63). */
  app: `${GROUP}/app`,
  /** `build` for build Jobs and their pods, `run` for the app's Deployment, pods and Service. */
  component: `${GROUP}/component`,
  name: 'app.kubernetes.io/name',
  managedBy: 'app.kubernetes.io/managed-by',
} as const;

export const ANNOTATIONS = {
  /** The commit a build Job builds, or a Deployment's pods run (full id: labels are too short for SHA-256). */
  commit: `${GROUP}/commit`,
  /** The build config hash a build Job uses (buildConfigHash). */
  buildConfig: `${GROUP}/build-config`,
  /** Which attempt at (commit, build config) a build Job is, from the second on (after an infrastructure failure). */
  buildAttempt: `${GROUP}/build-attempt`,
  repository: `${GROUP}/repository`,
  artifactBlobId: `${GROUP}/artifact-blob-id`,
  artifactSha256: `${GROUP}/artifact-sha256`,
  /** The version of the lease's secrets a Deployment's pods start with, and its blob (never a value). */
  secretsVersion: `${GROUP}/secrets-version`,
  secretsBlobId: `${GROUP}/secrets-blob-id`,
} as const;

export const MANAGED_BY = 'walrus-gitops';
export type Component = 'build' | 'run';

const MAX_LABEL = 63;
/** Room left for a Job's own suffix: `-b-<12 hex of commit>-<10 hex of config>`, and `-<attempt>` from the second on. */
const BUILD_SUFFIX = 1 + 1 + 1 + 12 + 1 + 10 + 2;

/**
 * `name` as a DNS-1035 label of at most `max` characters: kept as it is when already valid; otherwise lowercased,
 * with anything else than [a-z0-9-] turned into `-`, cut, and given a hash of the original so that two names that
 * read alike after the change never collide.
 */
export function dnsLabel(name: string, max = MAX_LABEL): string {
  if (name.length <= max && /^[a-z]([-a-z0-9]*[a-z0-9])?$/.test(name)) return name;
  const hash = createHash('sha256').update(name).digest('hex').slice(0, 8);
  let base = name.toLowerCase().replace(/[^a-z0-9-]+/g, '-').replace(/^[^a-z]+/, '');
  base = base.slice(0, max - hash.length - 1).replace(/-+$/, '');
  return base === '' ? `w${hash}` : `${base}-${hash}`;
}

/** The name of the app's Deployment and Service. */
export function appResourceName(app: Pick<WalrusApp, 'metadata'>): string {
  return dnsLabel(app.metadata.name);
}

/**
 * The build Job of (app, commit, build config, attempt): one per pair, so a rebuild with another config is another Job,
 * and each retry after an infrastructure failure is a Job of its own (the first attempt's name has no suffix).
 */
export function buildJobName(app: Pick<WalrusApp, 'metadata'>, commit: string, configHash: string, attempt = 1): string {
  if (!Number.isInteger(attempt) || attempt < 1 || attempt > 9) throw new InternalError(`build attempt ${attempt} is outside 1..9`);
  return `${dnsLabel(app.metadata.name, MAX_LABEL - BUILD_SUFFIX)}-b-${commit.slice(0, 12).toLowerCase()}-${configHash.slice(0, 10)}${attempt > 1 ? `-${attempt}` : ''}`;
}

/** The labels every object of `component` carries; `selectorLabels` are the stable subset a selector uses. */
export function labelsOf(app: Pick<WalrusApp, 'metadata'>, component: Component): Record<string, string> {
  return { ...selectorLabels(app, component), [LABELS.name]: dnsLabel(app.metadata.name), [LABELS.managedBy]: MANAGED_BY };
}

export function selectorLabels(app: Pick<WalrusApp, 'metadata'>, component: Component): Record<string, string> {
  return { [LABELS.app]: dnsLabel(app.metadata.name), [LABELS.component]: component };
}

/** The owner reference to the WalrusApp: deleting the app deletes what it owns, and events on them find it. */
export function ownerReference(app: Pick<WalrusApp, 'metadata'>): V1OwnerReference {
  const uid = app.metadata.uid;
  if (!uid) throw new InternalError(`WalrusApp ${app.metadata.namespace}/${app.metadata.name} has no uid: templates need the object as the API server returned it`);
  return { apiVersion: API_VERSION, kind: KIND, name: app.metadata.name, uid, controller: true, blockOwnerDeletion: true };
}
