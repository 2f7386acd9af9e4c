/**
 * Key servers behind an API-key gateway, through real git: the devnet's key servers 1 and 2 require an API key, and
 * a clone of a private repository works once GIT_WALRUS_SEAL_API_KEYS names them; without them it fails in one line
 * naming a key server (never a key) and writes nothing.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { existsSync } from 'node:fs';
import { DEVNET_SEAL } from '../../src/core/devnet-protocol.ts';
import { requireKeyServerApiKey, setKeyServersDown } from '../../src/devnet/seal/key-servers.ts';
import { commit, createWorld, initWorkRepo } from '../../scripts/harness/world.ts';

const gateway = suite('private repositories: key servers behind an API-key gateway (embedded network)');

gateway('a clone sends the configured API keys; without them it fails in one line naming the key server', async () => {
  const w = createWorld();
  try {
    const src = await initWorkRepo(w, 'src');
    const tip = await commit(w, src, 'secret.txt', 'behind the gateway\n');
    const url = (await w.ok(src, ['walrus', 'init', 'gated', '--private'])).split('\n').at(-1)!;
    await w.ok(src, ['push', '-q', 'walrus', 'main']);
    const state = w.path('walrus-home', 'local');
    requireKeyServerApiKey(state, 1, { name: 'X-Api-Key', value: 'first-secret' });
    requireKeyServerApiKey(state, 2, { name: 'X-Api-Key', value: 'second-secret' });
    setKeyServersDown(state, [3]);
    const [one, two] = DEVNET_SEAL.keyServers.map((server) => server.objectId);

    const refused = await w.run('.', ['clone', url, 'no-keys']);
    assert.is.not(refused.code, 0);
    assert.equal(refused.stderr.split('\n').filter((line) => line.startsWith('fatal:')).length, 1, refused.stderr);
    assert.match(refused.stderr, /fatal: cannot decrypt repository 'gated' \(0x[0-9a-f]{64}\): Seal key server 0x[0-9a-f]{64} \(.*\/seal\/[12]\) refused the request: it requires an API key and none is configured for it/);
    assert.not.ok(existsSync(w.path('no-keys')));

    const wrong = await w.run('.', ['clone', url, 'wrong-keys'], { env: { GIT_WALRUS_SEAL_API_KEYS: `${one}=X-Api-Key:second-secret,${two}=X-Api-Key:first-secret` } });
    assert.is.not(wrong.code, 0);
    assert.match(wrong.stderr, /refused the API key configured for it \(HTTP 401 \{"message":"Unauthorized"\}\)/);
    assert.not.match(wrong.stderr, /first-secret|second-secret/);

    await w.ok('.', ['clone', '-q', url, 'with-keys'], { env: { GIT_WALRUS_SEAL_API_KEYS: `${one}=X-Api-Key:first-secret,${two}=X-Api-Key:second-secret` } });
    assert.is(await w.ok('with-keys', ['rev-parse', 'HEAD']), tip);
  } finally { w.remove(); }
});

gateway.run();
