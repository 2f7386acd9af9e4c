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

test.after(async () => {
  await devnet.stop();
  world.remove();
  host.remove();
});

test.run();
