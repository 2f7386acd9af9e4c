import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { Ed25519Keypair } from '@mysten/sui/keypairs/ed25519';
import { commit, createWorld, initWorkRepo, walrusInit } from '../../scripts/harness/world.ts';

const extend = suite('git walrus extend');

extend('the pusher extends their Blob objects on chain; another key is told it owns none, and --restore stores them under it', async () => {
  const w = createWorld();
  try {
    const src = await initWorkRepo(w, 'src');
    await walrusInit(w, src, 'extend');
    await commit(w, src, 'a.txt', 'a\n');
    assert.is((await w.run(src, ['push', '-q', 'walrus', 'main'], { env: { GIT_WALRUS_EPOCHS: '5' } })).code, 0);

    const mine = await w.run(src, ['walrus', 'extend', 'walrus', '--epochs', '10']);
    assert.is(mine.code, 0, mine.stderr);
    assert.match(mine.stdout, /^extended 1 blob\(s\) \(transaction \S+\), 0 already stored long enough; every live pack is stored until epoch (\d+)$/m);
    const again = await w.run(src, ['walrus', 'extend', 'walrus', '--epochs', '10']);
    assert.match(again.stdout, /^extended 0 blob\(s\), 1 already stored long enough; every live pack is stored until epoch \d+$/m);

    // A reviewer with a key of their own: no write access, no Blob object of theirs.
    const reviewer = { GIT_WALRUS_KEY: Ed25519Keypair.generate().getSecretKey() };
    const refused = await w.run(src, ['walrus', 'extend', 'walrus', '--epochs', '20'], { env: reviewer });
    assert.is(refused.code, 1);
    assert.match(refused.stdout, /^extended 0 blob\(s\), 0 already stored long enough$/m);
    assert.match(refused.stderr, /1 blob\(s\) of live pack\(s\) #0 are held by Walrus Blob objects that 0x[0-9a-f]{64} does not own .*'git walrus extend --restore'/);
    const restored = await w.run(src, ['walrus', 'extend', 'walrus', '--epochs', '20', '--restore'], { env: reviewer });
    assert.is(restored.code, 0, restored.stderr);
    assert.match(restored.stdout, /^extended 0 blob\(s\), 0 already stored long enough, 1 stored again; every live pack is stored until epoch \d+$/m);
    const inPlace = await w.run(src, ['walrus', 'extend', 'walrus', '--epochs', '30'], { env: reviewer });
    assert.match(inPlace.stdout, /^extended 1 blob\(s\) \(transaction \S+\)/m);
    const verify = await w.run(src, ['walrus', 'verify', 'walrus']);
    assert.is(verify.code, 0, verify.stdout + verify.stderr);
  } finally { w.remove(); }
});

extend.run();
