/**
 * Certified reads end to end, through the real CLI and a real clone: a `git walrus devnet` server is the network's
 * own node, and a lying RPC (one lie per case) is configured beside it (GIT_WALRUS_CERTIFIED_RPCS). `verify` must
 * name what did not verify and which RPC served it (and exit 1), or show the lag of a stale one; a clone that
 * requires certified heads must still get the honest heads and warn about the liar. Nothing crashes.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { SuiGrpcClient } from '@mysten/sui/grpc';
import { commit, createWorld, initWorkRepo, startDevnet, walrusInit } from '../../scripts/harness/world.ts';
import { join } from 'node:path';
import { DEVNET_EPOCH_CHECKPOINTS } from '../../src/core/devnet-protocol.ts';
import { LIES } from '../support/lying-rpc.ts';
import { startLyingServer } from '../support/lying-server.ts';

const host = createWorld('walrus-certified-host-');
const devnet = await startDevnet(host);
const world = createWorld('walrus-certified-', { GIT_WALRUS_NETWORK: 'devnet', GIT_WALRUS_DEVNET_URL: devnet.url });
const repo = await initWorkRepo(world, 'work');
await commit(world, repo, 'a.txt', 'one\n', 'one');
const url = await walrusInit(world, repo, 'certified');
await world.ok(repo, ['push', '-q', 'walrus', 'main']);
const id = url.replace('walrus://', '');
const stale = (await new SuiGrpcClient({ baseUrl: devnet.url, network: 'localnet' }).ledgerService.getObject({ objectId: id, readMask: { paths: ['bcs', 'previous_transaction'] } })).response;
await commit(world, repo, 'a.txt', 'two\n', 'two');
await world.ok(repo, ['push', '-q', 'walrus', 'main']);

const test = suite('certified reads through the CLI and a clone, with a lying RPC beside the devnet');

test('with the node alone, verify proves the repository and says as of which checkpoint', async () => {
  const run = await world.run(repo, ['walrus', 'verify', 'walrus']);
  assert.is(run.code, 0, run.stdout + run.stderr);
  assert.match(run.stdout, new RegExp(`certified: as of checkpoint \\d+, epoch 0, time [\\dT:.Z-]+ \\(version \\d+, from ${devnet.url.replace(/[.:/]/g, '\\$&')}\\)`));
});

const CAUGHT: Record<string, RegExp> = {
  'flip-object-byte': /did not write object 0x[0-9a-f]+ with the digest of the object served/,
  'substitute-effects': /with these effects is not in checkpoint \d+/,
  'drop-contents-entry': /the contents served for checkpoint \d+ are not the certified ones/,
  'edit-summary-field': /checkpoint \d+'s aggregate signature does not verify under epoch 0's committee/,
  'minority-signature': /short of the quorum of 6667/,
};

for (const lie of LIES) {
  test(`lie: ${lie}`, async () => {
    const liar = await startLyingServer(devnet.url, lie, stale);
    try {
      const env = { GIT_WALRUS_CERTIFIED_RPCS: liar.url };
      const verify = await world.run(repo, ['walrus', 'verify', 'walrus'], { env });
      assert.not.match(verify.stderr, /internal error/);
      if (lie === 'stale-version') {
        assert.is(verify.code, 0, verify.stdout);
        assert.match(verify.stdout, new RegExp(`RPC ${liar.url.replace(/[.:/]/g, '\\$&')} lags: it proves version \\d+`));
      } else if (lie === 'forged-next-committee') {
        // The repository lives in epoch 0: no end-of-epoch summary is asked for, so the forgery is never served
        // (test/sui/certified-reads.test.ts catches it across two rotations).
        assert.is(verify.code, 0, verify.stdout);
      } else {
        assert.is(verify.code, 1, verify.stdout + verify.stderr);
        const line = verify.stdout.split('\n').find((l) => l.includes(`RPC ${liar.url}:`)) ?? '';
        assert.match(line, CAUGHT[lie]!);
        assert.match(line, new RegExp(`served by ${liar.url.replace(/[.:/]/g, '\\$&')}`));
      }
      const clone = await world.run('.', ['clone', '-q', url, `clone-${lie}`], { env: { ...env, GIT_WALRUS_REQUIRE_CERTIFIED: 'true' } });
      assert.is(clone.code, 0, clone.stderr);
      assert.is(await world.ok(`clone-${lie}`, ['log', '-1', '--format=%s']), 'two');
      if (lie === 'stale-version') assert.match(clone.stderr, /lags: it proves version/);
      else if (lie !== 'forged-next-committee') assert.match(clone.stderr, /served a state that does not verify/);
    } finally {
      await liar.close();
    }
  });
}

test.run();

const own = suite('lies across an epoch\'s end, and lies told by the network\'s own node');
const escape = (text: string) => text.replace(/[.:/]/g, '\\$&');
/** A home of its own: no committee learnt before, so the end-of-epoch summary is asked for (of the liar too). */
let homes = 0;
const freshHome = () => join(world.root, `walrus-home-${++homes}`);

own.before(async () => {
  // Faucet transactions carry the chain past epoch 0's last checkpoint; the next push is then written in epoch 1.
  const ledger = new SuiGrpcClient({ baseUrl: devnet.url, network: 'localnet' }).ledgerService;
  const recipient = `0x${'5'.repeat(64)}`;
  while (Number((await ledger.getServiceInfo({})).response.checkpointHeight) < DEVNET_EPOCH_CHECKPOINTS) {
    const answer = await fetch(new URL('/v2/gas', devnet.url), { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ FixedAmountRequest: { recipient } }) });
    assert.ok(answer.ok, await answer.text());
  }
  await commit(world, repo, 'a.txt', 'three\n', 'three');
  await world.ok(repo, ['push', '-q', 'walrus', 'main']);
});

own('the repository is proved in epoch 1, ratcheting over epoch 0\'s end', async () => {
  const run = await world.run(repo, ['walrus', 'verify', 'walrus'], { env: { GIT_WALRUS_HOME: freshHome() } });
  assert.is(run.code, 0, run.stdout + run.stderr);
  assert.match(run.stdout, /certified: as of checkpoint \d+, epoch 1, /);
});

own('the network\'s own node forges the next committee: verify names it and what did not verify', async () => {
  // Alone: beside an honest node the forger is seldom asked, as a committee learnt once (from any RPC) is kept.
  const node = await startLyingServer(devnet.url, 'forged-next-committee');
  try {
    const verify = await world.run(repo, ['walrus', 'verify', 'walrus'], { env: { GIT_WALRUS_DEVNET_URL: node.url, GIT_WALRUS_HOME: freshHome() } });
    assert.is(verify.code, 1, verify.stdout + verify.stderr);
    assert.not.match(verify.stderr, /internal error/);
    assert.match(verify.stdout + verify.stderr, new RegExp(`${escape(node.url)}: checkpoint ${DEVNET_EPOCH_CHECKPOINTS - 1}'s aggregate signature does not verify under epoch 0's committee \\(served by ${escape(node.url)}\\)`));
  } finally {
    await node.close();
  }
});

own('an extra RPC beside the honest node forges the next committee: the honest proof stands and nothing learnt from the forger is kept', async () => {
  const liar = await startLyingServer(devnet.url, 'forged-next-committee');
  const home = freshHome();
  try {
    // Both RPCs are proved at once from a home that knows no committee, so each ratchets over epoch 0's end
    // through its own answers: the forger's end-of-epoch summary is asked for and fails under epoch 0's committee.
    // (Had the honest ratchet finished first, the forger's answer would be checked under the committee it learnt,
    // and agree: the lie is never served.)
    const verify = await world.run(repo, ['walrus', 'verify', 'walrus'], { env: { GIT_WALRUS_CERTIFIED_RPCS: liar.url, GIT_WALRUS_HOME: home } });
    assert.not.match(verify.stderr, /internal error/);
    assert.match(verify.stdout, new RegExp(`certified: as of checkpoint \\d+, epoch 1, time [\\dT:.Z-]+ \\(version \\d+, from ${escape(devnet.url)}\\)`));
    // A lie caught fails verify (a reviewer must hear of it) beside the honest proof.
    const liarLine = verify.stdout.split('\n').find((line) => line.includes(`RPC ${liar.url}:`));
    assert.is(verify.code, liarLine ? 1 : 0, verify.stdout + verify.stderr);
    if (liarLine) assert.match(liarLine, new RegExp(`checkpoint ${DEVNET_EPOCH_CHECKPOINTS - 1}'s aggregate signature does not verify under epoch 0's committee \\(served by ${escape(liar.url)}\\)`));
    // The committee the home kept is the validators': the honest node alone proves the repository from it.
    const again = await world.run(repo, ['walrus', 'verify', 'walrus'], { env: { GIT_WALRUS_HOME: home } });
    assert.is(again.code, 0, again.stdout + again.stderr);
    assert.match(again.stdout, /certified: as of checkpoint \d+, epoch 1, /);
    // And a clone that requires certified heads takes the honest ones.
    const clone = await world.run('.', ['clone', '-q', url, 'clone-beside-forger'], { env: { GIT_WALRUS_CERTIFIED_RPCS: liar.url, GIT_WALRUS_REQUIRE_CERTIFIED: 'true', GIT_WALRUS_HOME: freshHome() } });
    assert.is(clone.code, 0, clone.stderr);
    assert.is(await world.ok('clone-beside-forger', ['log', '-1', '--format=%s']), 'three');
  } finally {
    await liar.close();
  }
});

const OWN_LIES: { lie: 'forged-next-committee' | 'minority-signature'; caught: RegExp }[] = [
  { lie: 'forged-next-committee', caught: new RegExp(`checkpoint ${DEVNET_EPOCH_CHECKPOINTS - 1}'s aggregate signature does not verify under epoch 0's committee`) },
  { lie: 'minority-signature', caught: /short of the quorum of 6667/ },
];

for (const { lie, caught } of OWN_LIES) {
  own(`the network's own node lies (${lie}): clone and fetch refuse its heads, naming it`, async () => {
    const node = await startLyingServer(devnet.url, lie);
    try {
      const env = { GIT_WALRUS_DEVNET_URL: node.url, GIT_WALRUS_REQUIRE_CERTIFIED: 'true', GIT_WALRUS_HOME: freshHome() };
      const clone = await world.run('.', ['clone', '-q', url, `clone-own-${lie}`], { env });
      assert.is(clone.code, 128, clone.stderr);
      assert.match(clone.stderr, /refusing the heads of repository 0x[0-9a-f]+: they cannot be proved against the validators' certificates/);
      assert.match(clone.stderr, new RegExp(`${escape(node.url)}: [^;]*${caught.source}[^;]*\\(served by ${escape(node.url)}\\)`));
      assert.not.match(clone.stderr, /internal error/);
      // A clone made from the honest node earlier fetches through the lying one: refused the same way.
      const fetched = await world.run('clone-stale-version', ['fetch', 'origin'], { env });
      assert.is.not(fetched.code, 0, fetched.stderr);
      assert.match(fetched.stderr, caught);
      assert.match(fetched.stderr, new RegExp(escape(node.url)));
      assert.is(await world.ok('clone-stale-version', ['rev-parse', 'origin/main']), await world.ok('clone-stale-version', ['rev-parse', 'main']), 'nothing was taken');
    } finally {
      await node.close();
    }
  });
}

own.after(async () => {
  await devnet.stop();
  world.remove();
  host.remove();
});

own.run();
