/**
 * The WalrusApp CustomResourceDefinition (apiextensions.k8s.io/v1), generated from types.ts: a structural schema
 * whose defaults are DEFAULTS, validation the API server enforces, the status subresource and the printer columns
 * `kubectl get walrusapps` shows. deploy/crd.yaml is this object (scripts/gitops-crd.ts writes it; a unit test
 * checks they agree).
 */
import { DEFAULTS } from './types.ts';
import { GROUP, KIND, PLURAL, SHORT_NAMES, SINGULAR, VERSION } from '../../ports/walrus-app.ts';

type Schema = Record<string, unknown>;

const str = (extra: Schema = {}): Schema => ({ type: 'string', ...extra });
const int = (extra: Schema = {}): Schema => ({ type: 'integer', ...extra });
const obj = (properties: Record<string, Schema>, extra: Schema = {}): Schema => ({ type: 'object', properties, ...extra });
const intOrString = (extra: Schema = {}): Schema => ({ anyOf: [{ type: 'integer' }, { type: 'string' }], 'x-kubernetes-int-or-string': true, ...extra });
const freeForm: Schema = { type: 'object', 'x-kubernetes-preserve-unknown-fields': true };
const quantities: Schema = { type: 'object', additionalProperties: intOrString({ pattern: '^[0-9.]+[a-zA-Z]*$' }) };
const resources = (defaults?: Schema): Schema => obj({ limits: quantities, requests: quantities }, defaults ? { default: defaults } : {});
/** A Sui address: 0x and 64 hex digits (what the chain reports; shorter forms are refused rather than guessed). */
const address: Schema = str({ pattern: '^0x[0-9a-fA-F]{64}$' });
const commit: Schema = str({ pattern: '^[0-9a-f]{40}([0-9a-f]{24})?$' });
const artifact: Record<string, Schema> = {
  blobId: str(), sha256: str({ pattern: '^[0-9a-f]{64}$' }), size: int({ minimum: 0 }),
  manifestRoot: str({ pattern: '^[0-9a-f]{64}$' }), buildKey: str({ pattern: '^[0-9a-f]{64}$' }), buildInfo: str(),
};

/** The app's manifest as its build read it (manifest/manifest.ts). */
const manifest: Record<string, Schema> = {
  source: str(), lockfile: { type: 'boolean' }, port: int(), health: obj({ path: str(), periodSeconds: int(), failureThreshold: int() }),
  build: str(), test: str(), start: str(), replicas: int(), env: { type: 'object', additionalProperties: str() },
  allowScripts: { type: 'array', items: str() }, buildSecrets: { type: 'array', items: str() },
};

const spec: Schema = obj({
  repository: str({ pattern: '^walrus://.+', description: 'walrus://<object id> or walrus://<owner>/<name>' }),
  ref: str({ description: "The ref to deploy; unset = the ref the repository's HEAD points to" }),
  network: str({ description: "The network of the repository; unset = the controller's" }),
  // No defaults for what the app's manifest may set: a value here is the operator's, and wins over the manifest.
  replicas: int({ minimum: 0, description: `unset = the app's manifest (walrus.replicas), else ${DEFAULTS.replicas}` }),
  port: int({ minimum: 1, maximum: 65535, description: `unset = the app's manifest (walrus.port), else ${DEFAULTS.port}` }),
  env: { type: 'array', items: obj({ name: str({ minLength: 1 }), value: str(), valueFrom: freeForm }, { required: ['name'] }) },
  envFrom: { type: 'array', items: freeForm },
  resources: resources(),
  build: obj({
    command: str({ minLength: 1, description: `unset = the install and the manifest's walrus.build (${DEFAULTS.build.command})` }),
    image: str({ minLength: 1, default: DEFAULTS.build.image }),
    timeout: int({ minimum: 1, default: DEFAULTS.build.timeout, description: 'Seconds before the build is stopped' }),
    resources: resources(DEFAULTS.build.resources as Schema),
  }, { default: {} }),
  run: obj({
    command: str({ minLength: 1, description: `unset = the manifest's walrus.start, else ${DEFAULTS.run.command}` }),
    image: str({ minLength: 1, default: DEFAULTS.run.image }),
  }, { default: {} }),
  health: obj({
    path: str({ pattern: '^/', description: `unset = the manifest's walrus.health.path, else ${DEFAULTS.health.path}` }),
    periodSeconds: int({ minimum: 1 }),
    failureThreshold: int({ minimum: 1 }),
  }),
  rollout: obj({
    maxSurge: intOrString({ default: DEFAULTS.rollout.maxSurge }),
    maxUnavailable: intOrString({ default: DEFAULTS.rollout.maxUnavailable }),
    progressDeadlineSeconds: int({ minimum: 1, default: DEFAULTS.rollout.progressDeadlineSeconds }),
  }, { default: {} }),
  policy: obj({ allowedPushers: { type: 'array', items: address } }),
  suspend: { type: 'boolean', default: false },
}, { required: ['repository'] });

const condition: Schema = obj({
  type: str(), status: str({ enum: ['True', 'False', 'Unknown'] }), reason: str(), message: str(),
  lastTransitionTime: str({ format: 'date-time' }), observedGeneration: int(),
}, { required: ['type', 'status', 'lastTransitionTime'] });

const status: Schema = obj({
  observedGeneration: int(),
  conditions: { type: 'array', items: condition, 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': ['type'] },
  head: obj({ ref: str(), commit, seq: int(), pusher: str(), transaction: str() }),
  artifact: obj({ commit, configHash: str(), buildEnvCounted: { type: 'boolean' }, ...artifact }),
  lastAppliedRevision: str(),
  failedRevision: str(),
  history: {
    type: 'array', maxItems: 10,
    items: obj({ commit, artifact: obj(artifact), manifest: obj(manifest), result: str(), reclaimed: { type: 'boolean' }, time: str({ format: 'date-time' }), message: str() }),
  },
  build: obj({
    commit, configHash: str(), attempt: int(), retryAt: str({ format: 'date-time' }),
    lastFailure: obj({ reason: str(), message: str(), time: str({ format: 'date-time' }) }), secretsVersion: int(),
  }),
  manifest: obj({ commit, ...manifest }),
  url: str(),
  exposure: str(),
});

export const CRD_NAME = `${PLURAL}.${GROUP}`;

/** The CRD object (plain data: the adapter creates it, deploy/crd.yaml is its YAML). */
export function walrusAppCrd() {
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: CRD_NAME },
    spec: {
      group: GROUP,
      scope: 'Namespaced',
      names: { kind: KIND, listKind: `${KIND}List`, plural: PLURAL, singular: SINGULAR, shortNames: [...SHORT_NAMES], categories: ['all'] },
      versions: [{
        name: VERSION,
        served: true,
        storage: true,
        subresources: { status: {} },
        additionalPrinterColumns: [
          { name: 'Ready', type: 'string', jsonPath: '.status.conditions[?(@.type=="Ready")].status' },
          { name: 'Revision', type: 'string', jsonPath: '.status.lastAppliedRevision' },
          { name: 'URL', type: 'string', jsonPath: '.status.url' },
          { name: 'Status', type: 'string', jsonPath: '.status.conditions[?(@.type=="Ready")].message' },
          { name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp' },
        ],
        schema: { openAPIV3Schema: obj({ apiVersion: str(), kind: str(), metadata: { type: 'object' }, spec, status }, { required: ['spec'] }) },
      }],
    },
  };
}
