/**
 * Who decides how an app runs, pure (docs/architecture.md, The GitOps controller):
 *   1. a field the operator wrote in the WalrusApp spec wins, unchecked against the offer (the provider's own choice);
 *   2. else the app's manifest, bounded by the provider's offer (replicas at most `maxReplicas`; the manifest names no
 *      image or resources, so those stay the offer's and the operator's);
 *   3. else the npm defaults (types.ts DEFAULTS).
 * A manifest beyond the offer is refused as a whole, naming the field: the release fails and the running one serves.
 */
import type { EnvVar, WalrusApp } from '../../ports/walrus-app.ts';
import type { ProviderOffer } from '../api/offer.ts';
import type { AppManifest } from '../../ports/walrus-app.ts';

export type ManifestDecision = { ok: true; app: WalrusApp } | { ok: false; field: string; reason: string };

/** The app as it runs this manifest: its spec with the manifest's settings wherever the operator wrote none. */
export function applyManifest(app: WalrusApp, manifest: AppManifest, offer: Pick<ProviderOffer, 'maxReplicas'>): ManifestDecision {
  const spec = app.spec;
  if (spec.replicas === undefined && manifest.replicas !== undefined && manifest.replicas > offer.maxReplicas) {
    return { ok: false, field: 'walrus.replicas', reason: `asks for ${manifest.replicas} replicas; the provider's offer allows at most ${offer.maxReplicas}` };
  }
  const operatorEnv = spec.env ?? [];
  const manifestEnv: EnvVar[] = Object.entries(manifest.env ?? {})
    .filter(([name]) => !operatorEnv.some((variable) => variable.name === name))
    .map(([name, value]) => ({ name, value }));
  const health = { ...manifest.health, ...spec.health };
  const run = { ...(manifest.start !== undefined ? { command: manifest.start } : {}), ...spec.run };
  return {
    ok: true,
    app: {
      ...app,
      spec: {
        ...spec,
        ...(spec.port === undefined && manifest.port !== undefined ? { port: manifest.port } : {}),
        ...(spec.replicas === undefined && manifest.replicas !== undefined ? { replicas: manifest.replicas } : {}),
        ...(operatorEnv.length + manifestEnv.length > 0 ? { env: [...operatorEnv, ...manifestEnv] } : {}),
        ...(Object.keys(health).length > 0 ? { health } : {}),
        ...(Object.keys(run).length > 0 ? { run } : {}),
      },
    },
  };
}
