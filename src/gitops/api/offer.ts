/**
 * What a provider offers every lease, pure: the ceiling of a tenant's namespace (its ResourceQuota and LimitRange),
 * how many replicas and which images an app may ask for, the environment every build gets, how apps are exposed
 * (ingress) and what a tenant's pods may reach (egress). One JSON file (`--provider-offer`), read once at start;
 * every field has a default, so `{}` is a valid offer. The precedence it takes part in (offer bounds the app's own
 * manifest; an operator-written WalrusApp overrides both) is described in docs/architecture.md.
 */
import { WalrusGitError } from '../../core/errors.ts';
import type { EnvVar } from '../../ports/walrus-app.ts';

/** A `networking.k8s.io/v1` NetworkPolicyPeer, as written in a policy. */
export type NetworkPolicyPeer = Record<string, unknown>;

export interface ProviderOffer {
  /** The tenant namespace's ResourceQuota: what all its pods together may use (running release and builds). */
  quota: { cpu: string; memory: string; ephemeralStorage: string; pods: number };
  /** The tenant namespace's LimitRange: per container, the default when a container names none, and the maximum. */
  limits: {
    default: { cpu: string; memory: string; ephemeralStorage: string };
    max: { cpu: string; memory: string; ephemeralStorage: string };
  };
  /** The most replicas an app's manifest may ask for. */
  maxReplicas: number;
  /**
   * How long an app's pods stay bound to a node that is not ready or unreachable before they are evicted and made
   * again elsewhere (their NoExecute tolerations; Kubernetes' default is 300 s).
   */
  nodeLossTolerationSeconds: number;
  /**
   * Artifact retention: how many releases' artifacts each app keeps on Walrus, the serving one included (its rollback
   * target is the serving release). Older ones, once superseded, are reclaimed: the provider's deletable Blob objects
   * of their blobs are deleted, permanent ones are left to lapse at their end epoch.
   */
  keepArtifacts: number;
  /** Images an app may name for its build and run containers; empty: only the provider's defaults. */
  images: { build: string[]; run: string[] };
  /** Given to every build container (a registry mirror, a proxy's CA bundle), so apps need not carry it. */
  buildEnv: EnvVar[];
  /** How apps are exposed; absent: no Ingress is written (the app has a ClusterIP Service only). */
  ingress?: {
    /** Each app gets `<stable id>.<domain>`. */
    domain: string;
    className?: string;
    /** A TLS Secret (a wildcard certificate for the domain) every Ingress names. */
    tlsSecretName?: string;
    /** A cert-manager ClusterIssuer, written as the `cert-manager.io/cluster-issuer` annotation. */
    clusterIssuer?: string;
    /** URL scheme stated for the app: https when TLS is configured, else http. */
    scheme: 'http' | 'https';
    /** Where the ingress controller's traffic comes from, as NetworkPolicy peers (the app's ingress allowance). */
    from: NetworkPolicyPeer[];
    /** Also expose every app through a `LoadBalancer` Service. */
    loadBalancer: boolean;
  };
  /** What a tenant's pods may reach besides DNS. */
  egress: {
    /** CIDRs pods may reach (default: the internet). */
    allow: string[];
    /** CIDRs carved out of `allow` (the cluster's pod and Service ranges, the node, the API server). */
    except: string[];
    /** Extra CIDRs build pods may reach (a package registry mirror inside the cluster's ranges). */
    buildAllow: string[];
  };
  /**
   * Build only heads proved against the validators' certificates (a lying or stale node cannot make the controller
   * build a head no push set). Absent: on wherever the network has a trust anchor for certified reads.
   */
  requireCertifiedHeads?: boolean;
}

export const DEFAULT_OFFER: ProviderOffer = {
  quota: { cpu: '4', memory: '8Gi', ephemeralStorage: '20Gi', pods: 20 },
  limits: {
    default: { cpu: '500m', memory: '512Mi', ephemeralStorage: '1Gi' },
    max: { cpu: '2', memory: '4Gi', ephemeralStorage: '10Gi' },
  },
  maxReplicas: 5,
  nodeLossTolerationSeconds: 30,
  keepArtifacts: 3,
  images: { build: [], run: [] },
  buildEnv: [],
  egress: {
    allow: ['0.0.0.0/0'],
    except: ['10.0.0.0/8', '172.16.0.0/12', '192.168.0.0/16', '169.254.0.0/16', '100.64.0.0/10'],
    buildAllow: [],
  },
};

/**
 * A field of the offer file the controller cannot use: `data.field` names it.
 * What to do: fix the field the message names in the offer file (`--provider-offer`) and start the controller again.
 */
export class OfferError extends WalrusGitError {
  constructor(field: string, reason: string) {
    super('OFFER_INVALID', `provider offer: ${field}: ${reason}`, { field });
  }
}

/** Reads an offer from its JSON form (`--provider-offer`): unknown fields are refused, missing ones take the default. */
export function parseOffer(json: unknown): ProviderOffer {
  const root = object(json, '(the file)');
  known(root, '(the file)', ['quota', 'limits', 'maxReplicas', 'nodeLossTolerationSeconds', 'keepArtifacts', 'images', 'buildEnv', 'ingress', 'egress', 'requireCertifiedHeads']);
  const quota = object(root.quota ?? {}, 'quota');
  known(quota, 'quota', ['cpu', 'memory', 'ephemeralStorage', 'pods']);
  const limits = object(root.limits ?? {}, 'limits');
  known(limits, 'limits', ['default', 'max']);
  const images = object(root.images ?? {}, 'images');
  known(images, 'images', ['build', 'run']);
  const egress = object(root.egress ?? {}, 'egress');
  known(egress, 'egress', ['allow', 'except', 'buildAllow']);
  const d = DEFAULT_OFFER;
  return {
    quota: {
      cpu: quantity(quota.cpu, 'quota.cpu', d.quota.cpu),
      memory: quantity(quota.memory, 'quota.memory', d.quota.memory),
      ephemeralStorage: quantity(quota.ephemeralStorage, 'quota.ephemeralStorage', d.quota.ephemeralStorage),
      pods: count(quota.pods, 'quota.pods', d.quota.pods),
    },
    limits: { default: triple(limits.default, 'limits.default', d.limits.default), max: triple(limits.max, 'limits.max', d.limits.max) },
    maxReplicas: count(root.maxReplicas, 'maxReplicas', d.maxReplicas),
    nodeLossTolerationSeconds: count(root.nodeLossTolerationSeconds, 'nodeLossTolerationSeconds', d.nodeLossTolerationSeconds),
    keepArtifacts: count(root.keepArtifacts, 'keepArtifacts', d.keepArtifacts),
    images: { build: strings(images.build, 'images.build', d.images.build), run: strings(images.run, 'images.run', d.images.run) },
    buildEnv: envVars(root.buildEnv, 'buildEnv'),
    ...(root.ingress === undefined ? {} : { ingress: ingressOf(root.ingress) }),
    egress: {
      allow: cidrs(egress.allow, 'egress.allow', d.egress.allow),
      except: cidrs(egress.except, 'egress.except', d.egress.except),
      buildAllow: cidrs(egress.buildAllow, 'egress.buildAllow', d.egress.buildAllow),
    },
    ...(root.requireCertifiedHeads === undefined ? {} : { requireCertifiedHeads: flag(root.requireCertifiedHeads, 'requireCertifiedHeads') }),
  };
}

function ingressOf(value: unknown): NonNullable<ProviderOffer['ingress']> {
  const ingress = object(value, 'ingress');
  known(ingress, 'ingress', ['domain', 'className', 'tlsSecretName', 'clusterIssuer', 'from', 'loadBalancer']);
  const domain = ingress.domain;
  if (typeof domain !== 'string' || !/^(?=.{1,200}$)([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)(\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)*$/.test(domain)) {
    throw new OfferError('ingress.domain', 'expected a lower-case DNS name such as ingress.example.com');
  }
  const optional = (field: 'className' | 'tlsSecretName' | 'clusterIssuer') => {
    const v = ingress[field];
    if (v === undefined) return {};
    if (typeof v !== 'string' || v === '') throw new OfferError(`ingress.${field}`, 'expected a non-empty string');
    return { [field]: v };
  };
  const from = ingress.from ?? [{ namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'ingress-nginx' } } }];
  if (!Array.isArray(from) || from.some((peer) => !peer || typeof peer !== 'object' || Array.isArray(peer))) {
    throw new OfferError('ingress.from', 'expected a list of NetworkPolicy peers (podSelector / namespaceSelector / ipBlock objects)');
  }
  if (ingress.loadBalancer !== undefined && typeof ingress.loadBalancer !== 'boolean') throw new OfferError('ingress.loadBalancer', 'expected true or false');
  const tls = ingress.tlsSecretName !== undefined || ingress.clusterIssuer !== undefined;
  return {
    domain,
    ...optional('className'),
    ...optional('tlsSecretName'),
    ...optional('clusterIssuer'),
    scheme: tls ? 'https' : 'http',
    from: from as NetworkPolicyPeer[],
    loadBalancer: ingress.loadBalancer === true,
  };
}

function object(value: unknown, field: string): Record<string, unknown> {
  if (!value || typeof value !== 'object' || Array.isArray(value)) throw new OfferError(field, 'expected a JSON object');
  return value as Record<string, unknown>;
}

function known(value: Record<string, unknown>, field: string, fields: string[]): void {
  const unknown = Object.keys(value).filter((key) => !fields.includes(key));
  if (unknown.length > 0) throw new OfferError(field, `unknown field ${unknown.map((key) => JSON.stringify(key)).join(', ')} (known: ${fields.join(', ')})`);
}

/** A Kubernetes resource quantity (`500m`, `2`, `512Mi`, `1G`). */
function quantity(value: unknown, field: string, fallback: string): string {
  if (value === undefined) return fallback;
  if (typeof value !== 'string' || !/^\d+(\.\d+)?(m|k|M|G|T|Ki|Mi|Gi|Ti)?$/.test(value)) throw new OfferError(field, 'expected a Kubernetes quantity such as 500m, 2, 512Mi or 4Gi');
  return value;
}

function triple(value: unknown, field: string, fallback: ProviderOffer['limits']['max']): ProviderOffer['limits']['max'] {
  const given = object(value ?? {}, field);
  known(given, field, ['cpu', 'memory', 'ephemeralStorage']);
  return {
    cpu: quantity(given.cpu, `${field}.cpu`, fallback.cpu),
    memory: quantity(given.memory, `${field}.memory`, fallback.memory),
    ephemeralStorage: quantity(given.ephemeralStorage, `${field}.ephemeralStorage`, fallback.ephemeralStorage),
  };
}

function flag(value: unknown, field: string): boolean {
  if (typeof value !== 'boolean') throw new OfferError(field, 'expected true or false');
  return value;
}

function count(value: unknown, field: string, fallback: number): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 1) throw new OfferError(field, 'expected a whole number of at least 1');
  return value;
}

function strings(value: unknown, field: string, fallback: string[]): string[] {
  if (value === undefined) return fallback;
  if (!Array.isArray(value) || value.some((item) => typeof item !== 'string' || item === '')) throw new OfferError(field, 'expected a list of non-empty strings');
  return value as string[];
}

function cidrs(value: unknown, field: string, fallback: string[]): string[] {
  const list = strings(value, field, fallback);
  const bad = list.find((cidr) => !/^(\d{1,3})(\.\d{1,3}){3}\/(\d|[12]\d|3[0-2])$/.test(cidr) || cidr.split('/')[0]!.split('.').some((octet) => Number(octet) > 255));
  if (bad !== undefined) throw new OfferError(field, `${JSON.stringify(bad)} is not an IPv4 CIDR such as 10.0.0.0/8`);
  return list;
}

function envVars(value: unknown, field: string): EnvVar[] {
  if (value === undefined) return [];
  if (!Array.isArray(value)) throw new OfferError(field, 'expected a list of {name, value}');
  return value.map((item, index) => {
    const entry = object(item, `${field}[${index}]`);
    known(entry, `${field}[${index}]`, ['name', 'value']);
    if (typeof entry.name !== 'string' || !/^[A-Za-z_][A-Za-z0-9_]*$/.test(entry.name)) throw new OfferError(`${field}[${index}].name`, 'expected an environment variable name');
    if (typeof entry.value !== 'string') throw new OfferError(`${field}[${index}].value`, 'expected a string');
    return { name: entry.name, value: entry.value };
  });
}
