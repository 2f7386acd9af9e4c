/**
 * The Seal adapter with the stock SealClient against the embedded devnet's three key servers (2 of 3), in process:
 * sealing, opening in batches, refusals, key servers down, and a session key that expires in the middle of a long
 * fetch. The clock is the process's own (`Date.now`), moved forward by the tests; the key servers read the same one.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { join } from 'node:path';
import { Ed25519Keypair } from '@mysten/sui/keypairs/ed25519';
import { withSealApiKeys } from '../../src/config/networks.ts';
import { DEVNET_SEAL } from '../../src/core/devnet-protocol.ts';
import { silentLog } from '../../src/core/log.ts';
import { newDataKey, newPackIdentity } from '../../src/core/pack-cipher.ts';
import { NotReaderError } from '../../src/core/read-access.ts';
import { NativeGitRepository } from '../../src/git/native-repository.ts';
import type { BlobStore } from '../../src/ports/blob-store.ts';
import { fetchObjects } from '../../src/remote/fetch.ts';
import { pushRefs } from '../../src/remote/push.ts';
import { KeyServerApiKeyError, KeyServersUnavailableError, quorumOf } from '../../src/seal/key-service.ts';
import { HttpBlobStore } from '../../src/walrus/http-blob-store.ts';
import { closePrivateVault, openPrivateVault, vaultKeyService, type PrivateVault } from '../support/private-vault.ts';
import { commitFile, gitIn, sourceAndTarget } from '../support/git-fixture.ts';
import { hermeticGitEnv } from '../../scripts/harness/git-env.ts';

// The process clock, movable: installed before the network opens, so the key servers read it too.
const realNow = Date.now;
let skewMs = 0;
Date.now = () => realNow() + skewMs;

type Context = PrivateVault;

const service = (context: Context, key: Ed25519Keypair, { apiKeys, ...options }: { maxKeysPerRequest?: number; ttlMin?: number; apiKeys?: string; secrets?: { lease: string } } = {}) =>
  vaultKeyService(context, key, { keyServers: withSealApiKeys(DEVNET_SEAL, apiKeys).keyServers, ...options });

const requests = (context: Context) => context.network.keyServers.served.reduce((a, b) => a + b, 0);

const seal = suite<Context>('SealKeyService (stock SealClient, devnet key servers in process)');

seal.before((context) => openPrivateVault(context, 'walrus-seal-'));

seal.after.each((context) => {
  skewMs = 0;
  for (const n of [1, 2, 3]) {
    context.network.keyServers.setDown(n, false);
    context.network.keyServers.requireApiKey(n, null);
  }
});

seal.after(async (context) => {
  Date.now = realNow;
  await closePrivateVault(context);
});

seal('seals locally and opens every key in one request per key server for each batch of ids', async (context) => {
  const keys = service(context, context.ownerKey, { maxKeysPerRequest: 4 });
  const dataKeys = Array.from({ length: 6 }, () => newDataKey());
  const before = requests(context);
  const sealed = await Promise.all(dataKeys.map((key) => keys.seal(newPackIdentity(context.repository.id), key)));
  assert.is(requests(context), before, 'sealing asks no key server');
  keys.prepare(); // what a fetch does before it reads the pack list: opening right after shares its session
  const keyOf = await keys.open(context.repository, sealed);
  assert.is(keyOf[0]!(), keyOf[0]!(), 'a key decrypts once');
  const opened = await Promise.all(keyOf.map((key) => key()));
  assert.equal(opened.map((k) => Buffer.from(k).toString('hex')), dataKeys.map((k) => Buffer.from(k).toString('hex')));
  // Two batches (4 + 2 ids), each to a quorum of two of the three servers.
  assert.is(requests(context) - before, 4);
  assert.is(keys.sessionsSigned, 1);
  assert.equal(await keys.identityOf(sealed[0]!).then((id) => Buffer.from(id.subarray(0, 32)).toString('hex')), context.repository.id.slice(2));
});

seal('a non-reader is refused by the key servers as NotReaderError naming the owner; a reader added later gets the old keys', async (context) => {
  const sealed = await service(context, context.ownerKey).seal(newPackIdentity(context.repository.id), newDataKey());
  const stranger = Ed25519Keypair.generate();
  try {
    await service(context, stranger).open(context.repository, [sealed]);
    assert.unreachable();
  } catch (error) {
    assert.instance(error, NotReaderError);
    assert.match((error as Error).message, `is private and ${stranger.toSuiAddress()} is not one of its readers: ask its owner ${context.repository.owner}`);
  }
  await context.owner.addReader(context.repository.id, stranger.toSuiAddress());
  assert.is((await service(context, stranger).open(context.repository, [sealed])).length, 1);
});

seal('one key server down: keys still open, whichever two the quorum picks; two down: KeyServersUnavailableError', async (context) => {
  const keys = service(context, context.ownerKey);
  const sealed = await keys.seal(newPackIdentity(context.repository.id), newDataKey());
  context.network.keyServers.setDown(3, true);
  for (let i = 0; i < 6; i++) assert.is((await service(context, context.ownerKey).open(context.repository, [sealed])).length, 1);
  context.network.keyServers.setDown(1, true);
  try {
    await service(context, context.ownerKey).open(context.repository, [sealed]);
    assert.unreachable();
  } catch (error) {
    assert.instance(error, KeyServersUnavailableError);
    assert.match((error as Error).message, /fewer than 2 of its 3 Seal key servers answered/);
  }
  // Asking for a lease's secrets, the same failure speaks of them. The servers are down, so no policy runs: the
  // approval only needs an object that exists on chain to name as the lease.
  const lease = context.repository.id;
  try {
    await service(context, context.ownerKey, { secrets: { lease } }).open(context.repository, [sealed]);
    assert.unreachable();
  } catch (error) {
    assert.instance(error, KeyServersUnavailableError);
    assert.match((error as Error).message, `cannot decrypt the secrets of lease ${lease}: fewer than 2 of the network's 3 Seal key servers answered`);
    assert.not.match((error as Error).message, /repository/);
  }
});

seal('key servers behind an API-key gateway: the configured header is sent; a missing or wrong key is an error naming the key server, never the key', async (context) => {
  const sealed = await service(context, context.ownerKey).seal(newPackIdentity(context.repository.id), newDataKey());
  const [one, two] = DEVNET_SEAL.keyServers.map((server) => server.objectId);
  const servers = context.network.keyServers;
  servers.requireApiKey(1, { name: 'X-Api-Key', value: 'key-one' });
  servers.requireApiKey(2, { name: 'X-Api-Key', value: 'key-two' });
  // The gateway answers before the key server, as Kong's key-auth does.
  const ask = (headers: Record<string, string>) => servers.fetch(`${'http://seal.local.invalid'}/seal/1/v1/service?service_id=${one}`, { headers: { 'Client-Sdk-Version': '1.4.12', ...headers } });
  const missing = await ask({});
  assert.is(missing.status, 401);
  assert.equal(await missing.json(), { message: 'No API key found in request' });
  assert.match(missing.headers.get('www-authenticate') ?? '', /^Key realm=/);
  assert.equal(await (await ask({ 'X-Api-Key': 'key-two' })).json(), { message: 'Unauthorized' });
  assert.is((await ask({ 'x-api-key': 'key-one' })).status, 200);

  const served = () => [...servers.served];
  const before = served();
  const refused = async (apiKeys: string | undefined, configured: RegExp) => {
    try {
      await service(context, context.ownerKey, { apiKeys }).open(context.repository, [sealed]);
      assert.unreachable('the keys opened');
    } catch (error) {
      assert.instance(error, KeyServerApiKeyError);
      assert.match((error as Error).message, configured);
      assert.match((error as Error).message, /Seal key server 0x[0-9a-f]{64} \(http:\/\/seal\.local\.invalid\/seal\/[12]\) refused/);
      assert.match((error as Error).message, /GIT_WALRUS_SEAL_API_KEYS/);
      assert.not.match((error as Error).message, /key-one|key-two/);
    }
  };
  await refused(undefined, /it requires an API key and none is configured for it \(HTTP 401 \{"message":"No API key found in request"\}\)/);
  await refused(`${one}=X-Api-Key:key-two,${two}=X-Api-Key:key-one`, /refused the API key configured for it \(HTTP 401 \{"message":"Unauthorized"\}\)/);
  assert.equal(served().slice(0, 2), before.slice(0, 2), 'the gateway let nothing through to servers 1 and 2');

  const opened = await service(context, context.ownerKey, { apiKeys: `${one}=X-Api-Key:key-one,${two}=X-Api-Key:key-two` }).open(context.repository, [sealed]);
  assert.is((await opened[0]!()).length, 32);
  servers.setDown(3, true);
  const viaGateway = served();
  await service(context, context.ownerKey, { apiKeys: `${one}=x-api-key:key-one,${two}=x-api-key:key-two` }).open(context.repository, [sealed]);
  const answered = served().map((n, i) => n - viaGateway[i]!);
  assert.ok(answered[0]! >= 1 && answered[1]! >= 1 && answered[2] === 0, `with server 3 down both gated servers answered (the header was sent): ${answered}`);
  servers.setDown(3, false);
  // One gated server without its key is one that cannot answer: the other two still open the key.
  servers.requireApiKey(2, null);
  for (let i = 0; i < 4; i++) assert.is((await (await service(context, context.ownerKey).open(context.repository, [sealed]))[0]!()).length, 32);
});

seal('an expired session key is renewed for the next batch', async (context) => {
  const keys = service(context, context.ownerKey, { maxKeysPerRequest: 1, ttlMin: 1 });
  const sealed = await Promise.all([1, 2].map(() => keys.seal(newPackIdentity(context.repository.id), newDataKey())));
  await keys.open(context.repository, [sealed[0]!]);
  skewMs += 2 * 60_000;
  await keys.open(context.repository, [sealed[1]!]);
  assert.is(keys.sessionsSigned, 2);
});

seal('a long fetch outlives its session key: the next window of keys comes with a renewed one', async (context) => {
  const env = hermeticGitEnv(context.dir);
  const { source, target } = sourceAndTarget(context.dir, env);
  const { id } = await context.owner.createRepository('long', 'refs/heads/main', { private: true });
  const store = new HttpBlobStore({ publisherUrl: context.network.walrusUrl, aggregatorUrl: context.network.walrusUrl, numShards: context.network.numShards, fetch: context.network.walrusFetch });
  const pushKeys = service(context, context.ownerKey);
  const pushDeps = { ledger: context.owner, blobStore: store, keyService: pushKeys, local: new NativeGitRepository(join(source, '.git'), env), log: silentLog };
  for (let i = 0; i < 3; i++) {
    commitFile(source, env, 'f.txt', `version ${i}\n`);
    await pushRefs(pushDeps, id, [{ src: 'refs/heads/main', dst: 'refs/heads/main', force: false }], { atomic: false, dryRun: false, progress: false, leases: new Map() });
  }
  await store.release();
  const fetchKeys = service(context, context.ownerKey, { maxKeysPerRequest: 1, ttlMin: 1 });
  // Each pack's download takes "two minutes", from the fetch's start, when its session key is signed (the downloads
  // start beside the first key request): a one-minute session key expires between windows of one key.
  const signed = async () => { while (fetchKeys.sessionsSigned === 0) await new Promise((resolve) => setImmediate(resolve)); };
  const slow: BlobStore = { maxBlobSize: store.maxBlobSize, write: (b, o) => store.write(b, o), read: async (blobId, o) => { await signed(); skewMs += 2 * 60_000; return store.read(blobId, o); } };
  const head = gitIn(source, env, 'rev-parse', 'HEAD');
  await fetchObjects({ ledger: context.owner, blobStore: slow, keyService: fetchKeys, local: new NativeGitRepository(join(target, '.git'), env), log: silentLog }, id, [head], false);
  gitIn(target, env, 'update-ref', 'refs/heads/main', head);
  gitIn(target, env, 'fsck', '--strict');
  assert.is(gitIn(target, env, 'show', 'HEAD:f.txt'), 'version 2');
  assert.ok(fetchKeys.sessionsSigned >= 2, `${fetchKeys.sessionsSigned} session keys signed`);
});

seal.run();

const quorum = suite('quorumOf');

quorum('takes servers in random order until their weight reaches the threshold', () => {
  const servers = [{ id: 'a', weight: 1 }, { id: 'b', weight: 1 }, { id: 'c', weight: 1 }];
  const orders = [[0.3, 0.1, 0.2], [0.9, 0.5, 0.1]];
  assert.equal(quorumOf(servers, 2, sequence(orders[0]!)).map((s) => s.id), ['b', 'c']);
  assert.equal(quorumOf(servers, 2, sequence(orders[1]!)).map((s) => s.id), ['c', 'b']);
  assert.equal(quorumOf([{ id: 'a', weight: 2 }, { id: 'b', weight: 1 }], 2, sequence([0.1, 0.2])).map((s) => s.id), ['a']);
  assert.is(quorumOf(servers, 3).length, 3);
  assert.is(quorumOf(servers, 5).length, 3, 'never more than there are');
});

function sequence(values: number[]): () => number {
  let i = 0;
  return () => values[i++]!;
}

quorum.run();
