/**
 * `git walrus artifact rebuild` and `deployments --verify --rebuild` on the embedded network: a provider builds a
 * commit with the build Job's own steps (checkout, manifest plan, build script, pack) and records the deploy; anyone
 * rebuilds it and gets the same digest. A provider that recorded another tree is caught, with the file named.
 */
import { join } from 'node:path';
import { appendFileSync } from 'node:fs';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { Ed25519Keypair } from '@mysten/sui/keypairs/ed25519';
import { silentLog } from '../../src/core/log.ts';
import { tarballArchive } from '../../src/fs/tarball.ts';
import { publishArtifact } from '../../src/remote/artifacts.ts';
import { openLocalNetwork } from '../../src/devnet/local-network.ts';
import { SuiLedger } from '../../src/sui/ledger.ts';
import { SuiMarket } from '../../src/sui/market.ts';
import { HttpBlobStore } from '../../src/walrus/http-blob-store.ts';
import { createWorld } from '../../scripts/harness/world.ts';
import { buildLikeTheJob, pushTimestampApp } from '../support/recorded-build.ts';

const test = suite('git walrus artifact rebuild');
const world = createWorld('walrus-rebuild-');
const repo = 'app';
const ok = async (cwd: string, args: string[]) => {
  const result = await world.run(cwd, ['walrus', ...args]);
  assert.is(result.code, 0, `git walrus ${args.join(' ')}: ${result.stderr}`);
  return result.stdout;
};

test.after(() => world.remove());

test('a recorded build is reproduced here; a record of another tree names the differing file', async () => {
  const head = await pushTimestampApp(world, repo);

  // The provider: the build Job's steps by hand, then the deploy record.
  const providerKey = Ed25519Keypair.generate();
  const network = await openLocalNetwork(join(world.path('walrus-home'), 'local'));
  await network.faucet(providerKey.toSuiAddress());
  const ledger = new SuiLedger({ client: network.client, signer: providerKey, packageId: network.packageId, registryId: network.registryId });
  const market = new SuiMarket({ client: network.client, ledger, packageId: network.packageId, marketId: network.marketId });
  const blobs = new HttpBlobStore({ publisherUrl: network.walrusUrl, aggregatorUrl: network.walrusUrl, numShards: network.numShards, fetch: network.walrusFetch });
  const { providerId } = await market.register(20n * 1_000_000_000n, 1n, 'https://compute.example', {});
  const lease = (await ok(repo, ['lease', 'open', 'walrus', '--provider', providerId, '--deposit', '5'])).trim();
  const packed = await buildLikeTheJob(world, repo, head);
  assert.match(packed.buildKey, /^[0-9a-f]{64}$/);
  await market.recordDeploy(lease, head, packed.blobId, packed.sha256);

  const reproduced = await ok(repo, ['artifact', 'rebuild', lease]);
  assert.match(reproduced, new RegExp(`^${head.slice(0, 12)} artifact ${packed.blobId}: reproduced \\(tar sha256 ${packed.sha256}, manifest root ${packed.manifestRoot}\\), built here under build key [0-9a-f]{64} \\(image local\\)\n$`));

  // A provider that serves another tree under a record of this commit.
  appendFileSync(world.path('built', 'server.js'), 'console.log("something else")\n');
  const other = await publishArtifact({ blobStore: blobs, archive: tarballArchive, log: silentLog }, world.path('built'), false);
  await market.recordDeploy(lease, head, other.blobId, other.sha256);
  const caught = await world.run(repo, ['walrus', 'artifact', 'rebuild', lease]);
  assert.is(caught.code, 1);
  // This machine's own tools (image local): other bytes under another key, said as such.
  const files = '\\n  server\\.js\\n    here:     [0-9a-f]{64} \\(644\\)\\n    provider: [0-9a-f]{64} \\(644\\)\\n$';
  assert.match(caught.stdout, new RegExp(`different bytes under a different build key, not a dispute: the provider recorded tar sha256 ${other.sha256}, this machine built ${packed.sha256} under build key [0-9a-f]{64} \\(image local\\)`));
  assert.match(caught.stdout, new RegExp(`\\n  to compare under one key, rebuild inside the provider's build image, naming it with --image <image>@sha256:…${files}`));
  // Naming the image it builds in, the rebuild compares under that image's key: other bytes are a disagreement.
  const pinned = `node@sha256:${'d1'.repeat(32)}`;
  const named = await world.run(repo, ['walrus', 'artifact', 'rebuild', lease, '--image', pinned]);
  assert.is(named.code, 1);
  assert.match(named.stdout, new RegExp(`NOT reproduced: the provider recorded tar sha256 ${other.sha256}, this machine built ${packed.sha256} under build key [0-9a-f]{64} \\(image ${pinned}\\)${files}`));
  const verified = await world.run(repo, ['walrus', 'deployments', 'walrus', '--verify', '--rebuild']);
  assert.is(verified.code, 1);
  assert.is(verified.stdout.match(/PROBLEM: .*different bytes under a different build key/g)?.length, 1, verified.stdout);
  assert.match(verified.stdout, /PROBLEM: [\s\S]*server\.js/);
});

test.run();
