/**
 * The controller's attester (src/gitops/attester/attester.ts) on the embedded network, its builds the build Job's
 * steps run by hand with an attester's `artifact pack --no-store` (the Job itself runs on the real plane in
 * test/k8s/reproduced-e2e.test.ts): a tenant requires two reproductions on a lease served by another provider; two
 * attesters each build the lease's head and commit; one is then interrupted (its process state gone) and a fresh one
 * for the same provider, after the commit window closed by the chain's clock, reveals what its predecessor built and
 * kept in its state (here a file, as `git walrus attest` keeps it), without building again, with the nonce its key
 * derives again. The serving provider's gate then judges the release reproduced.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { Ed25519Keypair } from '@mysten/sui/keypairs/ed25519';
import { judgeReproduction } from '../../src/core/attestation.ts';
import { silentLog } from '../../src/core/log.ts';
import { Attester } from '../../src/gitops/attester/attester.ts';
import { keptAttestationsFile } from '../../src/fs/kept-attestations-file.ts';
import { openNetwork } from '../../src/main/context.ts';
import { createWorld } from '../../scripts/harness/world.ts';
import { buildLikeTheJob, pushTimestampApp, worldMarkets } from '../support/recorded-build.ts';

const test = suite("the controller's attester mode");
const world = createWorld('walrus-attester-');
const repo = 'app';
const COMMIT_WINDOW_MS = 60_000;

test.after(() => world.remove());

test('attesters rebuild the head of a lease that requires reproduction; one interrupted between commit and reveal still reveals', async () => {
  const head = await pushTimestampApp(world, repo);
  const { network, engine, signed, admin } = await worldMarkets(world);
  await admin.attestations().setWindows(COMMIT_WINDOW_MS, 3_600_000);
  const keys = [Ed25519Keypair.generate(), Ed25519Keypair.generate(), Ed25519Keypair.generate()];
  const [serving, first, second] = await Promise.all(keys.map(async (key) => {
    const market = await signed(key);
    const { providerId } = await market.register(20n * 1_000_000_000n, 1n, 'https://compute.example', {});
    return { market, key, providerId };
  }));
  const lease = (await world.ok(repo, ['walrus', 'lease', 'open', 'walrus', '--provider', serving!.providerId, '--deposit', '5', '--require-reproduced', '2'])).trim();
  // The serving provider builds with the build Job's steps (its controller then waits at the `reproduced` step).
  const packed = await buildLikeTheJob(world, repo, head, ['--build-image', 'local']);
  const repositoryId = (await serving!.market.getLease(lease)).repository;
  const at = { repositoryId, commit: head, buildKey: packed.buildKey };
  const tally = () => serving!.market.attestations().tally(at);
  const gate = async () => judgeReproduction(await tally(), serving!.providerId, { tarSha256: packed.sha256, manifestRoot: packed.manifestRoot }, 2);

  // Each attester as the controller composes it: its own key, its own opened network.
  const opened: Array<{ close(): Promise<void> }> = [];
  const lines: string[] = [];
  const builds: string[] = [];
  const attesterOf = async (provider: typeof first) => {
    const env = { ...world.env, GIT_WALRUS_KEY: provider!.key.getSecretKey() };
    const own = await openNetwork({ env, log: silentLog, role: 'test' });
    opened.push(own);
    const market = await own.market();
    return new Attester({
      attester: { providerId: provider!.providerId, capId: await market.providerCapId(provider!.providerId) },
      market, attestations: market.attestations(), ledger: own.ledger, signPersonalMessage: (message) => own.signPersonalMessage(message),
      build: async (_repositoryId, commit) => {
        builds.push(commit);
        const built = await buildLikeTheJob(world, repo, commit, ['--no-store', '--build-image', 'local'], `attest-${builds.length}`);
        return { tarSha256: built.sha256, manifestRoot: built.manifestRoot, buildKey: built.buildKey };
      },
      image: 'local', state: keptAttestationsFile(world.path('attester-state', `${provider!.providerId}.json`)),
      intervalMs: 1000, log: (text) => lines.push(text),
    });
  };
  // The serving provider's own attester leaves its lease alone: its attestation would not count.
  await (await attesterOf(serving)).pass();
  assert.is(await tally(), null, lines.join('\n'));
  assert.equal(lines, []);
  const firstAttester = await attesterOf(first);
  const interrupted = await attesterOf(second);
  await firstAttester.pass();
  await interrupted.pass();
  const committed = await tally();
  assert.ok(committed, lines.join('\n'));
  assert.equal(new Set(committed.committed), new Set([first!.providerId, second!.providerId]), lines.join('\n'));
  assert.equal(committed.revealed, []);
  assert.is((await gate()).state, 'waiting');
  // A pass before the window closes reveals nothing.
  await firstAttester.pass();
  assert.equal((await tally())?.revealed, []);

  // The second attester's process state is gone; the clock moves past the commit window.
  await engine.setClock((await engine.clockMs()) + BigInt(COMMIT_WINDOW_MS), { frozen: false });
  await firstAttester.pass();
  assert.is(builds.length, 2, 'each attester built the head once');
  const restarted = await attesterOf(second);
  await restarted.pass();
  // The restarted one revealed what its predecessor built and kept: it built nothing.
  assert.is(builds.length, 2, lines.join('\n'));
  assert.ok(lines.includes('attester: 1 build(s) kept from an earlier run, stepped without building again'), lines.join('\n'));
  const revealed = await tally();
  assert.equal(new Set(revealed?.revealed.map((r) => r.provider)), new Set([first!.providerId, second!.providerId]), lines.join('\n'));
  for (const reveal of revealed!.revealed) assert.equal([reveal.tarSha256, reveal.manifestRoot], [packed.sha256, packed.manifestRoot]);
  assert.is(revealed?.status, 'agreed');
  assert.equal(await gate(), { state: 'reproduced', agreeing: revealed!.revealed.map((r) => r.provider) });
  assert.ok(lines.some((line) => line.startsWith(`attester: revealed ${head.slice(0, 12)}`)), lines.join('\n'));
  // Nothing more to do for that head: a further pass sends nothing, and another restart builds nothing either.
  const before = lines.length;
  await restarted.pass();
  await (await attesterOf(second)).pass();
  assert.is(lines.length, before, lines.slice(before).join('\n'));
  assert.is(builds.length, 2);

  // Once the serving provider rolls it out and records it, `deployments` says who reproduced it.
  await serving!.market.recordDeploy(lease, head, packed.blobId, packed.sha256);
  assert.match(await world.ok(repo, ['walrus', 'deployments', 'walrus']), /\n {4}reproduced by 2 providers$/);

  for (const own of opened) await own.close();
  await network.close();
});

test.run();
