/**
 * Composes the controller's attester mode (`git walrus controller --provider … --attest`) over an opened network:
 * the provider's cap, the market's attestations, the key's signature for the nonce, and builds on this machine with
 * the steps `git walrus artifact rebuild` runs (git and npm from `env`'s PATH).
 */
import type { Log } from '../core/log.ts';
import { Attester } from '../gitops/attester/attester.ts';
import { buildHere } from '../gitops/build/rebuild.ts';
import { toolEnvironment } from '../gitops/build/tool-environment.ts';
import { NativeNewClone } from '../git/new-clone.ts';
import { localBuildSteps } from '../cli/artifact.ts';
import type { OpenedNetwork } from './context.ts';

export interface AttesterSettings {
  providerId: string;
  /** What the build key names the build's image by (default `local`). */
  image?: string;
  intervalMs: number;
  /** Where the attester's lines go. */
  line(text: string): void;
}

export async function openAttester(network: OpenedNetwork, env: NodeJS.ProcessEnv, log: Log, settings: AttesterSettings): Promise<Attester> {
  const market = await network.market();
  const steps = await localBuildSteps(network, {
    createClone: (dir, options) => NativeNewClone.create(dir, options, env), toolPath: env.PATH ?? '/usr/bin:/bin', toolEnv: toolEnvironment(env), log,
  }, settings.image);
  return new Attester({
    attester: { providerId: settings.providerId, capId: await market.providerCapId(settings.providerId) },
    market, attestations: market.attestations(), ledger: network.ledger,
    signPersonalMessage: (message) => network.signPersonalMessage(message),
    build: async (repositoryId, commit) => {
      const built = await buildHere(steps, repositoryId, commit);
      return { tarSha256: built.sha256, manifestRoot: built.manifestRoot, buildKey: built.buildInfo?.buildKey ?? null };
    },
    intervalMs: settings.intervalMs, log: settings.line,
  });
}
