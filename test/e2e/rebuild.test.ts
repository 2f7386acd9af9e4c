/**
 * `git walrus artifact rebuild` and `deployments --verify --rebuild` on the embedded network: a provider builds a
 * commit with the build Job's own steps (checkout, manifest plan, build script, pack) and records the deploy; anyone
 * rebuilds it and gets the same digest. A provider that recorded another tree is caught, with the file named.
 */
import { join } from 'node:path';
import { appendFileSync, writeFileSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
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
import { createWorld, initWorkRepo, walrusInit } from '../../scripts/harness/world.ts';

const test = suite('git walrus artifact rebuild');
const world = createWorld('walrus-rebuild-');
const repo = 'app';
/** An npm app without dependencies (no registry needed) whose build writes a file from SOURCE_DATE_EPOCH. */
const BUILD = "node -e \"require('fs').writeFileSync('built-at.txt', String(process.env.SOURCE_DATE_EPOCH))\"";
const ok = async (cwd: string, args: string[]) => {
  const result = await world.run(cwd, ['walrus', ...args]);
  assert.is(result.code, 0, `git walrus ${args.join(' ')}: ${result.stderr}`);
  return result.stdout;
};

test.after(() => world.remove());

test('a recorded build is reproduced here; a record of another tree names the differing file', async () => {
  await initWorkRepo(world, repo);
  writeFileSync(world.path(repo, 'package.json'), `${JSON.stringify({ name: 'app', version: '1.0.0', private: true, walrus: { build: BUILD } })}\n`);
  writeFileSync(world.path(repo, 'package-lock.json'), `${JSON.stringify({ name: 'app', version: '1.0.0', lockfileVersion: 3, requires: true, packages: { '': { name: 'app', version: '1.0.0' } } })}\n`);
  writeFileSync(world.path(repo, 'server.js'), 'console.log("hello")\n');
  await world.ok(repo, ['add', '.']);
  await world.ok(repo, ['commit', '-q', '-m', 'app']);
  const head = await world.ok(repo, ['rev-parse', 'HEAD']);
  await walrusInit(world, repo, 'app');
  await world.ok(repo, ['push', '-q', 'walrus', 'main']);

  // The provider: the build Job's steps by hand, then the deploy record.
  const providerKey = Ed25519Keypair.generate();
  const network = await openLocalNetwork(join(world.path('walrus-home'), 'local'));
  await network.faucet(providerKey.toSuiAddress());
  const ledger = new SuiLedger({ client: network.client, signer: providerKey, packageId: network.packageId, registryId: network.registryId });
  const market = new SuiMarket({ client: network.client, ledger, packageId: network.packageId, marketId: network.marketId });
  const blobs = new HttpBlobStore({ publisherUrl: network.walrusUrl, aggregatorUrl: network.walrusUrl, numShards: network.numShards, fetch: network.walrusFetch });
  const { providerId } = await market.register(20n * 1_000_000_000n, 1n, 'https://compute.example', {});
  const lease = (await ok(repo, ['lease', 'open', 'walrus', '--provider', providerId, '--deposit', '5'])).trim();
  const url = (await world.ok(repo, ['config', 'remote.walrus.url'])).trim();
  await ok('.', ['checkout', url, 'built', '--commit', head]);
  await ok('.', ['manifest', 'built', '--plan', world.path('plan')]);
  execFileSync('sh', [world.path('plan', 'build.sh')], { cwd: world.path('built'), env: { PATH: process.env.PATH, HOME: world.path('build-home') }, stdio: 'ignore' });
  const packed = JSON.parse(await ok('.', ['artifact', 'pack', 'built'])) as { blobId: string; sha256: string; manifestRoot: string; buildKey: string; buildInfo: string };
  assert.match(packed.buildKey, /^[0-9a-f]{64}$/);
  await market.recordDeploy(lease, head, packed.blobId, packed.sha256);

  const reproduced = await ok(repo, ['artifact', 'rebuild', lease]);
  assert.is(reproduced, `${head.slice(0, 12)} artifact ${packed.blobId}: reproduced (tar sha256 ${packed.sha256}, manifest root ${packed.manifestRoot})\n`);

  // A provider that serves another tree under a record of this commit.
  appendFileSync(world.path('built', 'server.js'), 'console.log("something else")\n');
  const other = await publishArtifact({ blobStore: blobs, archive: tarballArchive, log: silentLog }, world.path('built'), false);
  await market.recordDeploy(lease, head, other.blobId, other.sha256);
  const caught = await world.run(repo, ['walrus', 'artifact', 'rebuild', lease]);
  assert.is(caught.code, 1);
  assert.match(caught.stdout, new RegExp(`NOT reproduced: the provider recorded tar sha256 ${other.sha256}, this machine built ${packed.sha256}\\n  server\\.js\\n    here:     [0-9a-f]{64} \\(644\\)\\n    provider: [0-9a-f]{64} \\(644\\)\\n$`));
  const verified = await world.run(repo, ['walrus', 'deployments', 'walrus', '--verify', '--rebuild']);
  assert.is(verified.code, 1);
  assert.is(verified.stdout.match(/PROBLEM: .*NOT reproduced/g)?.length, 1, verified.stdout);
  assert.match(verified.stdout, /PROBLEM: [\s\S]*server\.js/);
});

test.run();
