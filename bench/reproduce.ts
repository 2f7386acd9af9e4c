/**
 * What reproducing a build costs (README, Builds anyone can repeat; Providers attest each other's builds), on the
 * embedded network:
 * - `examples/express-app` built by a provider with the build Job's steps (checkout, plan, `npm ci` and build, pack to
 *   Walrus), then `git walrus artifact rebuild` of its deploy record on this machine: wall time of each, and the disk a
 *   build takes (the tree with node_modules, and npm's cache in the build's HOME);
 * - one attestation on chain: two other providers attest the provider's build (commit, then reveal, each with
 *   `attest`, as `git walrus attest` does), from the first commitment until the tally is Agreed, with the commit window
 *   the market's admin set: transactions, gas from each transaction's effects, and wall time.
 * The full run uses a 20 s commit window, the short one 5 s (the wall time is mostly that window).
 */
import { cpSync, readdirSync, lstatSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { Ed25519Keypair } from '@mysten/sui/keypairs/ed25519';
import { attest } from '../src/remote/market/attest.ts';
import { createWorld, initWorkRepo, walrusInit } from '../scripts/harness/world.ts';
import { buildLikeTheJob, worldMarkets } from '../test/support/recorded-build.ts';

const EXPRESS_APP = fileURLToPath(new URL('../examples/express-app', import.meta.url));
const MIST_PER_SUI = 1_000_000_000;

/** Bytes under `dir` (files and links as stored, directories not counted). */
function diskUse(dir: string): number {
  let total = 0;
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    const stat = lstatSync(path);
    total += stat.isDirectory() ? diskUse(path) : stat.blocks * 512;
  }
  return total;
}

const mib = (bytes: number) => `${(bytes / 2 ** 20).toFixed(1)} MiB`;
const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

/**
 * Not in the short run `npm test` makes: it installs express-app's dependencies from npm's registry twice (about a
 * minute here), and the short run stays off the registry where it can.
 */
export const fullOnly = "express-app's npm ci twice from the registry; run `npm run bench -- reproduce`";

export async function run(short: boolean): Promise<void> {
  const commitWindowMs = short ? 5_000 : 20_000;
  const world = createWorld('walrus-bench-reproduce-');
  try {
    await initWorkRepo(world, 'app');
    cpSync(EXPRESS_APP, world.path('app'), { recursive: true, filter: (path) => !path.includes('node_modules') });
    await world.ok('app', ['add', '.']);
    await world.ok('app', ['commit', '-q', '-m', 'express app']);
    const head = await world.ok('app', ['rev-parse', 'HEAD']);
    await walrusInit(world, 'app', 'express');
    await world.ok('app', ['push', '-q', 'walrus', 'main']);

    const { network, signed, admin } = await worldMarkets(world);
    try {
      const providers = await Promise.all([0, 1, 2].map(async () => {
        const key = Ed25519Keypair.generate();
        const market = await signed(key);
        const { providerId } = await market.register(20n * 1_000_000_000n, 1n, 'https://compute.example', {});
        return { key, market, providerId, capId: await market.providerCapId(providerId) };
      }));
      const [serving, ...attesters] = providers;
      const lease = (await world.ok('app', ['walrus', 'lease', 'open', 'walrus', '--provider', serving!.providerId, '--deposit', '5'])).trim();

      let started = performance.now();
      const packed = await buildLikeTheJob(world, 'app', head, ['--build-image', 'local']);
      const providerMs = performance.now() - started;
      const tree = diskUse(world.path('built'));
      const cache = diskUse(world.path('built-home'));
      await serving!.market.recordDeploy(lease, head, packed.blobId, packed.sha256);
      started = performance.now();
      const verdict = await world.ok('app', ['walrus', 'artifact', 'rebuild', lease]);
      const rebuildMs = performance.now() - started;
      if (!verdict.includes(': reproduced (')) throw new Error(`the rebuild did not reproduce express-app: ${verdict}`);
      console.log(`express-app, provider's build (Job steps by hand, pack stored on Walrus): ${seconds(providerMs)}`);
      console.log(`express-app, git walrus artifact rebuild (checkout from the chain, npm ci, build, pack, compare): ${seconds(rebuildMs)}, reproduced`);
      console.log(`express-app build on disk: tree with node_modules ${mib(tree)}, npm cache in the build's HOME ${mib(cache)}`);

      await admin.attestations().setWindows(commitWindowMs, 3_600_000);
      const at = { repositoryId: (await serving!.market.getLease(lease)).repository, commit: head, buildKey: packed.buildKey };
      const digests = { tarSha256: packed.sha256, manifestRoot: packed.manifestRoot };
      started = performance.now();
      const sent = await Promise.all(attesters.map((p) => attest({
        attestations: p.market.attestations(), clockMs: () => p.market.clockMs(),
        sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)), signPersonalMessage: (message) => p.key.signPersonalMessage(message),
      }, { providerId: p.providerId, capId: p.capId }, at, digests)));
      const agreedMs = performance.now() - started;
      const tally = await serving!.market.attestations().tally(at);
      if (tally?.status !== 'agreed') throw new Error(`the tally is ${tally?.status ?? 'absent'}, not agreed`);
      const gasOf = async (digest: string | undefined) => {
        if (digest === undefined) throw new Error('an attestation sent no transaction');
        const result = await network.client.core.getTransaction({ digest, include: { effects: true } });
        const gas = (result.Transaction ?? result.FailedTransaction)!.effects!.gasUsed;
        return Number(gas.computationCost) + Number(gas.storageCost) - Number(gas.storageRebate);
      };
      const commits = await Promise.all(sent.map((s) => gasOf(s.committed)));
      const reveals = await Promise.all(sent.map((s) => gasOf(s.revealed)));
      const sui = (mist: number) => `${mist} MIST (${(mist / MIST_PER_SUI).toFixed(6)} SUI)`;
      console.log(`attestation to Agreed by 2 providers: ${commits.length + reveals.length} transactions (a commit and a reveal each), ${seconds(agreedMs)} wall time from the first commitment with a ${seconds(commitWindowMs)} commit window`);
      console.log(`  gas, net of rebates, per provider: commit ${commits.map(sui).join(' / ')}, reveal ${reveals.map(sui).join(' / ')}`);
      console.log(`  gas, one attestation (commit + reveal): ${sui(commits[0]! + reveals[0]!)}`);
    } finally {
      await network.close();
    }
  } finally {
    world.remove();
  }
}
