/**
 * `git walrus attest`, `attestations` and `lease … --require-reproduced` on the embedded network: the serving provider
 * builds and records a commit and attests its digests; a second provider rebuilds it with `git walrus attest` (commit,
 * then reveal once the window closes by the chain's clock) and gets the same; a third that attests another digest
 * makes the tally disputed, and `attestations` shows both digests and who revealed them; `deployments` says the record
 * was reproduced by one other provider and names the differing build. The tenant's requirement is on the lease for the provider's controller to read.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { Ed25519Keypair } from '@mysten/sui/keypairs/ed25519';
import { normalizeSuiAddress } from '@mysten/sui/utils';
import { attest } from '../../src/remote/market/attest.ts';
import { createWorld, REPO_ROOT } from '../../scripts/harness/world.ts';
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { buildLikeTheJob, pushTimestampApp, worldMarkets } from '../support/recorded-build.ts';

const test = suite('git walrus attest and attestations');
const world = createWorld('walrus-attest-');
const repo = 'app';
const COMMIT_WINDOW_MS = 60_000;

test.after(() => world.remove());

test('a second provider reproduces the build and the tally agrees; a third digest disputes it', async () => {
  const head = await pushTimestampApp(world, repo);

  const { network, engine, signed, admin } = await worldMarkets(world);
  await admin.attestations().setWindows(COMMIT_WINDOW_MS, 3_600_000);
  const [serving, second, third] = [Ed25519Keypair.generate(), Ed25519Keypair.generate(), Ed25519Keypair.generate()];
  const providers = await Promise.all([serving, second, third].map(async (key) => {
    const market = await signed(key);
    const { providerId } = await market.register(20n * 1_000_000_000n, 1n, 'https://compute.example', {});
    return { market, key, providerId, capId: await market.providerCapId(providerId) };
  }));

  // The tenant requires one other provider's agreement; `lease show` says so.
  const lease = (await world.ok(repo, ['walrus', 'lease', 'open', 'walrus', '--provider', providers[0]!.providerId, '--deposit', '5', '--require-reproduced', '1'])).trim();
  const shownLease = await world.ok(repo, ['walrus', 'lease', 'show', lease]);
  assert.ok(shownLease.includes('reproduced  each release waits for 1 other provider to attest the same build'), shownLease);
  assert.is(await providers[0]!.market.attestations().requiredReproductions(lease), 1);
  const refused = await world.run(repo, ['walrus', 'lease', 'require-reproduced', lease, '--count', '17']);
  assert.is(refused.code, 129, refused.stderr);
  assert.match(refused.stderr, /--count takes a whole number from 0 to 16, not 17/);

  // The serving provider builds with the build Job's steps, records and attests under the key of a local build.
  const packed = await buildLikeTheJob(world, repo, head, ['--build-image', 'local']);
  await providers[0]!.market.recordDeploy(lease, head, packed.blobId, packed.sha256);
  const at = { repositoryId: (await providers[0]!.market.getLease(lease)).repository, commit: head, buildKey: packed.buildKey };
  // The serving provider, a second one through `git walrus attest` (rebuilding here) and a third that built something
  // else attest at once; the clock moves past the commit window only once all three committed.
  const tally = () => providers[0]!.market.attestations().tally(at);
  let windowPassed: Promise<void> | null = null;
  const afterAllCommitted = () => (windowPassed ??= (async () => {
    while (((await tally())?.committed.length ?? 0) < 3) await new Promise((resolve) => setTimeout(resolve, 200));
    await engine.setClock((await engine.clockMs()) + BigInt(COMMIT_WINDOW_MS), { frozen: false });
  })());
  const attesting = (p: (typeof providers)[number], digests: { tarSha256: string; manifestRoot: string }) => attest({
    attestations: p.market.attestations(), clockMs: () => p.market.clockMs(), sleep: afterAllCommitted, signPersonalMessage: (message) => p.key.signPersonalMessage(message),
  }, { providerId: p.providerId, capId: p.capId }, at, digests);
  const [cli] = await Promise.all([
    world.run(repo, ['walrus', 'attest', lease], { env: { GIT_WALRUS_KEY: second.getSecretKey() } }),
    attesting(providers[0]!, { tarSha256: packed.sha256, manifestRoot: packed.manifestRoot }),
    attesting(providers[2]!, { tarSha256: 'ee'.repeat(32), manifestRoot: 'ef'.repeat(32) }),
  ]);
  assert.is(cli.code, 0, cli.stderr);
  assert.is(cli.stdout, `reproduced: attested tar sha256 ${packed.sha256} under build key ${packed.buildKey} (image local)\n`);

  const shown = await world.ok(repo, ['walrus', 'attestations', 'walrus', head]);
  assert.match(shown, new RegExp(`^build key ${packed.buildKey}: DISPUTED: 2 different builds \\(3 committed, 3 revealed\\)\n`));
  assert.match(shown, new RegExp(`  tar sha256 ${packed.sha256}\n  manifest root ${packed.manifestRoot}\n(    revealed by 0x[0-9a-f]{64}\n){2}`));
  assert.ok(shown.includes(`  tar sha256 ${'ee'.repeat(32)}\n  manifest root ${'ef'.repeat(32)}\n    revealed by ${normalizeSuiAddress(providers[2]!.providerId)}`), shown);
  const json = JSON.parse(await world.ok(repo, ['walrus', 'attestations', 'walrus', head, '--json'])) as { buildKey: string; tally: { status: string; revealed: unknown[] } }[];
  assert.equal(json.map((t) => [t.buildKey, t.tally.status, t.tally.revealed.length]), [[packed.buildKey, 'disputed', 3]]);

  // The deploy record: reproduced by the second provider (the serving provider's own reveal does not count), and the
  // third's differing build named with its key.
  const deployments = await world.ok(repo, ['walrus', 'deployments', 'walrus']);
  assert.ok(deployments.includes(`\n    reproduced by 1 provider\n    differs: provider ${normalizeSuiAddress(providers[2]!.providerId)} built tar sha256 ${'ee'.repeat(32)} under build key ${packed.buildKey}`), deployments);
  const leaseShown = await world.ok(repo, ['walrus', 'lease', 'show', lease]);
  assert.ok(leaseShown.includes(`\n            reproduced by 1 provider\n            differs: provider ${normalizeSuiAddress(providers[2]!.providerId)} built tar sha256 ${'ee'.repeat(32)}`), leaseShown);
  const leaseJson = JSON.parse(await world.ok(repo, ['walrus', 'lease', 'show', lease, '--json'])) as { lastDeployReproduction: { reproducedBy: string[] } };
  assert.equal(leaseJson.lastDeployReproduction.reproducedBy, [normalizeSuiAddress(providers[1]!.providerId)]);
  const [record] = JSON.parse(await world.ok(repo, ['walrus', 'deployments', 'walrus', '--json'])) as Array<{ reproducedBy: string[]; differing: Array<{ provider: string; tarSha256: string; buildKey: string }> }>;
  assert.equal(record!.reproducedBy, [normalizeSuiAddress(providers[1]!.providerId)]);
  assert.equal(record!.differing.map((d) => [d.provider, d.tarSha256, d.buildKey]), [[normalizeSuiAddress(providers[2]!.providerId), 'ee'.repeat(32), packed.buildKey]]);

  // A next release; the second provider's `attest` is killed once it committed. Run again after the window closed, it
  // reveals what the killed run built and kept under GIT_WALRUS_HOME, without building again.
  writeFileSync(world.path(repo, 'server.js'), 'console.log("hello again")\n');
  await world.ok(repo, ['commit', '-qam', 'v2']);
  await world.ok(repo, ['push', '-q', 'walrus', 'main']);
  const next = await world.ok(repo, ['rev-parse', 'HEAD']);
  const nextPacked = await buildLikeTheJob(world, repo, next, ['--build-image', 'local'], 'built-next');
  await providers[0]!.market.recordDeploy(lease, next, nextPacked.blobId, nextPacked.sha256);
  const asSecond = { GIT_WALRUS_KEY: second.getSecretKey() };
  const interrupted = spawn(`${REPO_ROOT}/bin/git-walrus`, ['attest', lease], { cwd: world.path(repo), env: { ...world.env, ...asSecond }, stdio: ['ignore', 'ignore', 'pipe'] });
  let said = '';
  interrupted.stderr.setEncoding('utf8').on('data', (text: string) => { said += text; });
  const ended = new Promise((resolve) => interrupted.on('close', resolve));
  while (!said.includes('Committed to')) {
    assert.is(interrupted.exitCode, null, said);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  interrupted.kill('SIGKILL');
  await ended;
  await engine.setClock((await engine.clockMs()) + BigInt(COMMIT_WINDOW_MS), { frozen: false });
  const again = await world.run(repo, ['walrus', 'attest', lease], { env: asSecond });
  assert.is(again.code, 0, again.stderr);
  assert.match(again.stderr, `Using the build of ${next.slice(0, 12)} an earlier run made and kept (tar sha256 ${nextPacked.sha256}`);
  assert.is(again.stdout, `reproduced: attested tar sha256 ${nextPacked.sha256} under build key ${nextPacked.buildKey} (image local)\n`);
  const nextTally = await providers[0]!.market.attestations().tally({ ...at, commit: next, buildKey: nextPacked.buildKey });
  assert.equal(nextTally?.revealed.map((r) => [r.provider, r.tarSha256]), [[normalizeSuiAddress(providers[1]!.providerId), nextPacked.sha256]]);
  await network.close();
});

test.run();
