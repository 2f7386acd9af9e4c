import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { commit, createWorld, initWorkRepo, startDevnet } from '../../scripts/harness/world.ts';

const devnet = suite('a git walrus devnet server');

devnet('GIT_WALRUS_NETWORK=devnet (or --network) pushes and clones over the network front', async () => {
  const w = createWorld();
  const server = await startDevnet(w);
  try {
    const env = { GIT_WALRUS_DEVNET_URL: server.url };
    const src = await initWorkRepo(w, 'src');
    const tip = await commit(w, src, 'a.txt', 'over the wire\n');
    const remote = (await w.ok(src, ['walrus', 'init', 'wired', '--network', 'devnet'], { env })).split('\n').at(-1)!;
    assert.match(await w.ok(src, ['walrus', 'whoami'], { env: { ...env, GIT_WALRUS_NETWORK: 'devnet' } }), /network: devnet/);
    const onDevnet = { env: { ...env, GIT_WALRUS_NETWORK: 'devnet' } };
    // init --network remembered the network in the repository's config: a plain push goes there.
    assert.is(await w.ok(src, ['config', 'walrus.network']), 'devnet');
    await w.ok(src, ['push', '-q', 'walrus', 'main'], { env });
    await w.ok('.', ['clone', '-q', remote, 'copy'], onDevnet);
    assert.is(await w.ok('copy', ['rev-parse', 'HEAD']), tip);
    // The same repository does not exist on the embedded network: networks are separate.
    const elsewhere = await w.run('.', ['ls-remote', remote]);
    assert.is.not(elsewhere.code, 0);
    assert.match(elsewhere.stderr, /not found/);
  } finally {
    await server.stop(); // before removing its HOME: an exiting `git walrus` process writes its module compile cache there
    w.remove();
  }
});

devnet.run();
