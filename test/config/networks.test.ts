import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tempDirs } from '../../scripts/harness/git-env.ts';
import { resolveNetwork, requireContract, PackageNotPublishedError } from '../../src/config/networks.ts';
import { DEVNET_SEAL } from '../../src/core/devnet-protocol.ts';
import type { ResolveNetworkInput } from '../../src/config/networks.ts';
import { UsageError } from '../../src/core/errors.ts';
import { ConfigFileError } from '../../src/config/home.ts';
import { DEVNET_GENESIS_COMMITTEE } from '../../src/core/devnet-protocol.ts';
import { rejected } from '../support/rejected.ts';

const emptyHome = tempDirs('walrus-net-');
const git = (values: Record<string, string>) => (key: string) => values[key];
const input = (over: Partial<ResolveNetworkInput> = {}): ResolveNetworkInput => ({ env: {}, gitConfig: git({}), home: emptyHome(), ...over });

const resolve = suite('resolveNetwork');

resolve('defaults to the embedded local network, kept under GIT_WALRUS_HOME', async () => {
  const home = emptyHome();
  const config = await resolveNetwork(input({ home }));
  assert.equal(config, { name: 'local', sui: { kind: 'embedded' }, walrus: { kind: 'embedded' }, storageEpochs: 53, deletablePacks: false, warmEncoder: false, timeoutMs: 30_000, stateDir: join(home, 'local'), seal: DEVNET_SEAL,
    certified: { anchor: DEVNET_GENESIS_COMMITTEE, extraRpcs: [], require: false },
  });
});

resolve('the warm encoder: off by default; on from the environment, git config or config.json; anything but true/false refused, naming where', async () => {
  assert.is((await resolveNetwork(input({ env: { GIT_WALRUS_WARM_ENCODER: 'true' } }))).warmEncoder, true);
  assert.is((await resolveNetwork(input({ gitConfig: git({ 'walrus.warmEncoder': 'true' }) }))).warmEncoder, true);
  const home = emptyHome();
  writeFileSync(join(home, 'config.json'), JSON.stringify({ warmEncoder: true }));
  assert.is((await resolveNetwork(input({ home }))).warmEncoder, true);
  await rejected(resolveNetwork(input({ env: { GIT_WALRUS_WARM_ENCODER: 'yes' } })), (error) => /warm encoder must be true or false, got 'yes' \(GIT_WALRUS_WARM_ENCODER/.test((error as Error).message));
  writeFileSync(join(home, 'config.json'), JSON.stringify({ warmEncoder: 'on' }));
  await rejected(resolveNetwork(input({ home })), (error) => error instanceof ConfigFileError && /"warmEncoder" must be true or false/.test((error as Error).message));
});

resolve('certified reads: the devnet anchor, extra RPCs and the requirement; testnet only with a pinned anchor file', async () => {
  const env = { GIT_WALRUS_CERTIFIED_RPCS: 'https://a.example, https://b.example', GIT_WALRUS_REQUIRE_CERTIFIED: 'true' };
  // The embedded network has no URL to ask others about: it is its own only RPC.
  assert.equal((await resolveNetwork(input({ env }))).certified, { anchor: DEVNET_GENESIS_COMMITTEE, extraRpcs: [], require: true });
  assert.is((await resolveNetwork(input({ env: { GIT_WALRUS_NETWORK: 'testnet' } }))).certified, undefined);
  await rejected(resolveNetwork(input({ env: { GIT_WALRUS_NETWORK: 'testnet', GIT_WALRUS_REQUIRE_CERTIFIED: 'true' } })), (error) => /needs a trust anchor/.test((error as Error).message));
  const home = emptyHome();
  const file = join(home, 'anchor.json');
  const member = { publicKey: DEVNET_GENESIS_COMMITTEE.members[0]!.publicKey, stake: 10000 };
  writeFileSync(file, JSON.stringify({ epoch: 812, members: [member] }));
  assert.equal((await resolveNetwork(input({ home, env: { ...env, GIT_WALRUS_NETWORK: 'testnet', GIT_WALRUS_CERTIFIED_ANCHOR: file } }))).certified,
    { anchor: { epoch: 812, members: [member] }, extraRpcs: ['https://a.example', 'https://b.example'], require: true });
  writeFileSync(file, JSON.stringify({ epoch: 812, members: [{ publicKey: 'ab', stake: 1 }] }));
  await rejected(resolveNetwork(input({ home, env: { GIT_WALRUS_NETWORK: 'testnet', GIT_WALRUS_CERTIFIED_ANCHOR: file } })), (error) => /must be \{"epoch"/.test((error as Error).message));
});

resolve('Seal key servers: the devnet\'s 2 of 3 on local, the configured ones on testnet and mainnet', async () => {
  assert.equal(DEVNET_SEAL.threshold, 2);
  assert.is(DEVNET_SEAL.keyServers.length, 3);
  assert.is((await resolveNetwork(input({ env: { GIT_WALRUS_NETWORK: 'testnet' } }))).seal, undefined);
  const a = `0x${'a'.repeat(64)}`;
  const env = { GIT_WALRUS_NETWORK: 'testnet', GIT_WALRUS_SEAL_KEY_SERVERS: `${a}, 0xB:2`, GIT_WALRUS_SEAL_THRESHOLD: '2' };
  assert.equal((await resolveNetwork(input({ env }))).seal, { keyServers: [{ objectId: a, weight: 1 }, { objectId: `0x${'0'.repeat(63)}b`, weight: 2 }], threshold: 2 });
  const home = emptyHome();
  writeFileSync(join(home, 'config.json'), JSON.stringify({ networks: { mainnet: { sealKeyServers: a, sealThreshold: '1' } } }));
  assert.equal((await resolveNetwork(input({ home, env: { GIT_WALRUS_NETWORK: 'mainnet' } }))).seal, { keyServers: [{ objectId: a, weight: 1 }], threshold: 1 });
  for (const bad of [{ GIT_WALRUS_SEAL_THRESHOLD: '4' }, { GIT_WALRUS_SEAL_THRESHOLD: undefined }, { GIT_WALRUS_SEAL_KEY_SERVERS: 'nope' }, { GIT_WALRUS_SEAL_KEY_SERVERS: `${a},${a}` }]) {
    await resolveNetwork(input({ env: { ...env, ...bad } as never })).then(() => assert.unreachable(), (e) => {
      assert.instance(e, UsageError);
      assert.match(e.message, /GIT_WALRUS_SEAL|weight/);
    });
  }
});

resolve('Seal API keys: per key server, from the environment, git config or the config file, on every network; never quoted in an error', async () => {
  const [one, two] = DEVNET_SEAL.keyServers.map((server) => server.objectId);
  const local = await resolveNetwork(input({ env: { GIT_WALRUS_SEAL_API_KEYS: `${one}=X-Api-Key:s3cret=:x, ${two}=Authorization:Bearer tok` } }));
  assert.equal(local.seal!.keyServers.slice(0, 2), [
    { objectId: one, weight: 1, apiKeyName: 'X-Api-Key', apiKey: 's3cret=:x' },
    { objectId: two, weight: 1, apiKeyName: 'Authorization', apiKey: 'Bearer tok' },
  ]);
  assert.equal(local.seal!.keyServers[2], DEVNET_SEAL.keyServers[2], 'a key server without an API key gets no header');
  const a = `0x${'a'.repeat(64)}`;
  const testnet = { GIT_WALRUS_NETWORK: 'testnet', GIT_WALRUS_SEAL_KEY_SERVERS: a, GIT_WALRUS_SEAL_THRESHOLD: '1' };
  const viaGit = await resolveNetwork(input({ env: testnet, gitConfig: git({ 'walrus.sealApiKeys': '0xAA' + 'a'.repeat(62) + '=x-key:v' }) }));
  assert.equal(viaGit.seal!.keyServers, [{ objectId: a, weight: 1, apiKeyName: 'x-key', apiKey: 'v' }]);
  const home = emptyHome();
  writeFileSync(join(home, 'config.json'), JSON.stringify({ networks: { testnet: { sealApiKeys: `${a}=x-key:from-file` } } }));
  assert.is((await resolveNetwork(input({ home, env: testnet }))).seal!.keyServers[0]!.apiKey, 'from-file');
  for (const bad of [`${a}=x-key:`, `${a}=bad header:v`, `${a}:x-key=v`, `0x${'b'.repeat(64)}=x-key:TOPSECRET`, `${a}=k:TOPSECRET,${a}=k:TOPSECRET`, 'TOPSECRET']) {
    await resolveNetwork(input({ env: { ...testnet, GIT_WALRUS_SEAL_API_KEYS: bad } })).then(() => assert.unreachable(bad), (e) => {
      assert.instance(e, UsageError);
      assert.match(e.message, /GIT_WALRUS_SEAL_API_KEYS/);
      assert.not.match(e.message, /TOPSECRET/);
    });
  }
});

resolve('picks the name from the environment, then git config, then the config file', async () => {
  const home = emptyHome();
  writeFileSync(join(home, 'config.json'), JSON.stringify({ network: 'mainnet' }));
  assert.is((await resolveNetwork(input({ home }))).name, 'mainnet');
  assert.is((await resolveNetwork(input({ home, gitConfig: git({ 'walrus.network': 'testnet' }) }))).name, 'testnet');
  assert.is((await resolveNetwork(input({ home, env: { GIT_WALRUS_NETWORK: 'local' }, gitConfig: git({ 'walrus.network': 'testnet' }) }))).name, 'local');
  await resolveNetwork(input({ env: { GIT_WALRUS_NETWORK: 'moon' } })).then(() => assert.unreachable(), (e) => {
    assert.instance(e, UsageError);
    assert.match(e.message, /local, devnet, testnet, mainnet/);
  });
});

resolve('testnet uses the public publisher and aggregator over 1000 shards, and gRPC for Sui', async () => {
  const config = await resolveNetwork(input({ env: { GIT_WALRUS_NETWORK: 'testnet' } }));
  assert.equal(config.walrus, { kind: 'http', publisherUrl: 'https://publisher.walrus-testnet.walrus.space', aggregatorUrl: 'https://aggregator.walrus-testnet.walrus.space', numShards: 1000 });
  assert.equal(config.sui, { kind: 'grpc', url: 'https://fullnode.testnet.sui.io:443' });
});

resolve('mainnet has no public publisher: the SDK with the upload relay, unless the user brings a publisher', async () => {
  const sdk = await resolveNetwork(input({ env: { GIT_WALRUS_NETWORK: 'mainnet' } }));
  assert.equal(sdk.walrus, { kind: 'sdk', uploadRelayUrl: 'https://upload-relay.mainnet.walrus.space', numShards: 1000 });
  const own = await resolveNetwork(input({ env: { GIT_WALRUS_NETWORK: 'mainnet', GIT_WALRUS_PUBLISHER_URL: 'https://pub.example' } }));
  assert.equal(own.walrus, { kind: 'http', publisherUrl: 'https://pub.example', aggregatorUrl: 'https://aggregator.walrus-mainnet.walrus.space', numShards: 1000 });
});

resolve('package ids are settings until published, with an error that says how to set them', async () => {
  const unset = await resolveNetwork(input({ env: { GIT_WALRUS_NETWORK: 'testnet' } }));
  assert.throws(() => requireContract(unset), (e: unknown) => e instanceof PackageNotPublishedError && /GIT_WALRUS_PACKAGE_ID/.test(e.message));
  const home = emptyHome();
  writeFileSync(join(home, 'config.json'), JSON.stringify({ networks: { testnet: { packageId: '0xfile', registryId: '0xreg' } } }));
  const fromFile = await resolveNetwork(input({ home, env: { GIT_WALRUS_NETWORK: 'testnet' } }));
  assert.equal(requireContract(fromFile), { packageId: '0xfile', registryId: '0xreg' });
  const fromEnv = await resolveNetwork(input({ home, env: { GIT_WALRUS_NETWORK: 'testnet', GIT_WALRUS_PACKAGE_ID: '0xenv' }, gitConfig: git({ 'walrus.packageId': '0xgit' }) }));
  assert.is(fromEnv.packageId, '0xenv');
});

resolve('devnet asks the server for its ids and endpoints', async () => {
  const seen: string[] = [];
  const server: typeof fetch = async (url) => {
    seen.push(String(url));
    return Response.json({ packageId: '0xpkg', registryId: '0xreg', numShards: 50, suiRpcUrl: '/sui', walrusUrl: 'http://127.0.0.1:9/walrus', faucetUrl: '/faucet' });
  };
  const config = await resolveNetwork(input({ env: { GIT_WALRUS_NETWORK: 'devnet' }, gitConfig: git({ 'walrus.devnetUrl': 'http://127.0.0.1:8' }), fetch: server }));
  assert.equal(seen, ['http://127.0.0.1:8/v1/devnet']);
  assert.equal(config, {
    name: 'devnet',
    sui: { kind: 'jsonrpc', url: 'http://127.0.0.1:8/sui' },
    walrus: { kind: 'http', publisherUrl: 'http://127.0.0.1:9/walrus', aggregatorUrl: 'http://127.0.0.1:9/walrus', storageNodeUrl: 'http://127.0.0.1:9/walrus', numShards: 50 },
    packageId: '0xpkg',
    registryId: '0xreg',
    faucetUrl: 'http://127.0.0.1:8/faucet',
    storageEpochs: 53,
    deletablePacks: false,
    warmEncoder: false,
    timeoutMs: 30_000,
  });
  await resolveNetwork(input({ env: { GIT_WALRUS_NETWORK: 'devnet' } })).then(() => assert.unreachable(), (e) => assert.match(e.message, /GIT_WALRUS_DEVNET_URL/));
});

resolve('devnet uses gRPC where the server offers it', async () => {
  const server: typeof fetch = async () => Response.json({ packageId: '0xpkg', registryId: '0xreg', numShards: 50, suiRpcUrl: '/', suiGrpcUrl: '/', walrusUrl: '/' });
  const config = await resolveNetwork(input({ env: { GIT_WALRUS_NETWORK: 'devnet' }, gitConfig: git({ 'walrus.devnetUrl': 'http://127.0.0.1:8' }), fetch: server }));
  assert.equal(config.sui, { kind: 'grpc', url: 'http://127.0.0.1:8' });
});

resolve('storage epochs are configurable within the network maximum', async () => {
  assert.is((await resolveNetwork(input({ env: { GIT_WALRUS_EPOCHS: '5' } }))).storageEpochs, 5);
  await resolveNetwork(input({ env: { GIT_WALRUS_EPOCHS: '54' } })).then(() => assert.unreachable(), (e) => assert.instance(e, UsageError));
});

resolve('a malformed config file is a ConfigFileError naming the file', async () => {
  const home = emptyHome();
  writeFileSync(join(home, 'config.json'), '{ network: testnet }');
  await resolveNetwork(input({ home })).then(() => assert.unreachable(), (e) => {
    assert.instance(e, ConfigFileError);
    assert.match(e.message, /config\.json/);
  });
});

resolve.run();
