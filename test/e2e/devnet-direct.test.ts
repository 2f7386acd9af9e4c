import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { commit, createWorld, initWorkRepo, startDevnet, type World } from '../../scripts/harness/world.ts';
import { existsSync } from 'node:fs';
import { WAL_FAUCET_PATH } from '../../src/core/devnet-protocol.ts';
import { alterSlivers } from '../support/altered-slivers.ts';

const direct = suite('git through the Walrus SDK\'s direct mode against a devnet with storage nodes');

/** A repository with one commit pushed in direct mode to the devnet at `url`, by a user the WAL faucet funded. */
async function pushedThroughNodes(w: World, url: string, content: string): Promise<{ env: Record<string, string>; src: string; remote: string }> {
  const env = { GIT_WALRUS_NETWORK: 'devnet', GIT_WALRUS_DEVNET_URL: url, GIT_WALRUS_DIRECT: 'true' };
  const src = await initWorkRepo(w, 'src');
  await commit(w, src, 'a.txt', content);
  const remote = (await w.ok(src, ['walrus', 'init', 'direct'], { env })).split('\n').at(-1)!;
  // The SDK pays for storage in WAL from the user's own coins, as on testnet.
  const address = /^(0x[0-9a-f]{64})$/m.exec(await w.ok(src, ['walrus', 'whoami'], { env }))![1];
  const wal = await fetch(new URL(WAL_FAUCET_PATH, url), { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ FixedAmountRequest: { recipient: address } }) });
  assert.ok(wal.ok);
  await w.ok(src, ['push', '-q', 'walrus', 'main'], { env });
  return { env, src, remote };
}

direct('a push and a clone go through the storage nodes; with a node down still; with too many down the push fails and says why', async () => {
  const w = createWorld();
  let server = await startDevnet(w, ['--storage-nodes', '11']);
  try {
    const pushed = await pushedThroughNodes(w, server.url, 'sliver by sliver\n');
    const { src, remote } = pushed;
    let { env } = pushed;
    await w.ok('.', ['clone', '-q', remote, 'copy'], { env });
    assert.is(await w.ok('copy', ['rev-parse', 'HEAD']), await w.ok(src, ['rev-parse', 'HEAD']));
    // No publisher was asked: the devnet's publisher keeps no blob of this repository.
    const withoutDirect = await w.run('.', ['clone', '-q', remote, 'through-aggregator'], { env: { ...env, GIT_WALRUS_DIRECT: 'false' } });
    assert.is.not(withoutDirect.code, 0);

    // The same state with one node of eleven down (4 or 5 of 50 shards): the rest still make a quorum.
    const restart = async (down: string[]) => {
      await server.stop();
      server = await startDevnet(w, ['--storage-nodes', '11', '--storage-nodes-down', ...down]);
      env = { ...env, GIT_WALRUS_DEVNET_URL: server.url };
    };
    await restart(['1']);
    await commit(w, src, 'b.txt', 'one node down\n');
    await w.ok(src, ['push', '-q', 'walrus', 'main'], { env });
    await w.ok('copy', ['pull', '-q', 'origin', 'main'], { env });
    assert.is(await w.ok('copy', ['rev-parse', 'HEAD']), await w.ok(src, ['rev-parse', 'HEAD']));

    // Five down (at least 20 of 50 shards, more than a third): no quorum can confirm the blob, and the push says so.
    await restart(['1', '2', '3', '4', '5']);
    await commit(w, src, 'c.txt', 'five nodes down\n');
    const refused = await w.run(src, ['push', '-q', 'walrus', 'main'], { env });
    assert.is.not(refused.code, 0);
    assert.match(refused.stderr, /storage nodes|confirm/i);
  } finally {
    await server.stop();
    w.remove();
  }
});

direct('a clone of a pack whose source slivers the nodes serve altered is refused by the pack\'s sha256 on chain, and leaves nothing', async () => {
  const w = createWorld();
  const server = await startDevnet(w, ['--storage-nodes', '11']);
  try {
    const { env, remote } = await pushedThroughNodes(w, server.url, 'a pack the nodes alter\n');
    assert.ok(alterSlivers(w.path('devnet-state', 'walrus'), 'secondary') > 0);
    const refused = await w.run('.', ['clone', '-q', remote, 'copy'], { env });
    assert.is.not(refused.code, 0);
    assert.match(refused.stderr, /pack 0 of repository 0x[0-9a-f]+ is corrupt: its bytes hash to sha256 [0-9a-f]{64}, but the chain records [0-9a-f]{64}; nothing was applied/);
    assert.not.ok(existsSync(w.path('copy')), 'git removed the clone it could not fill');
  } finally {
    await server.stop();
    w.remove();
  }
});

direct.run();
