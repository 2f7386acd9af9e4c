import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ClientWithCoreApi } from '@mysten/sui/client';
import { SuiGrpcClient } from '@mysten/sui/grpc';
import { Ed25519Keypair } from '@mysten/sui/keypairs/ed25519';
import { Transaction } from '@mysten/sui/transactions';
import { fromHex, toHex } from '@mysten/sui/utils';
import { bls12_381 } from '@noble/curves/bls12-381.js';
import {
  ExpiredSessionKeyError, InvalidPTBError, InvalidSessionKeySignatureError, InvalidUserSignatureError, NoAccessError, SealClient, SessionKey,
} from '@mysten/seal';
import { DEVNET_SEAL } from '../../../src/core/devnet-protocol.ts';
import { openLocalNetwork, type LocalNetwork } from '../../../src/devnet/local-network.ts';
import { startDevnetServer, type DevnetServer } from '../../../src/devnet/server.ts';
import { KEY_SERVER_VERSION, keyServersDown, setKeyServersDown } from '../../../src/devnet/seal/key-servers.ts';
import type { DevnetKeyServers } from '../../../src/devnet/seal/key-servers.ts';
import { hashIdentity } from '../../../src/devnet/seal/ibe.ts';
import { SuiLedger } from '../../../src/sui/ledger.ts';

/**
 * The devnet's Seal key servers against the stock, unmodified `SealClient` and `SessionKey` of @mysten/seal: on the
 * embedded network (in-process fetch) and on a `git walrus devnet` server (real HTTP, gRPC client). Faults are made
 * at the protocol boundary: a `fetch` that alters what the SDK sends, as a broken or malicious client would.
 */

interface World {
  client: ClientWithCoreApi;
  packageId: string;
  keyServers: DevnetKeyServers;
  /** The transport the SDK uses for key-server requests. */
  fetch: typeof fetch;
  faucet(address: string): Promise<void>;
  registryId: string;
  close(): Promise<void>;
}

interface Context {
  world: World;
  owner: Ed25519Keypair;
  reader: Ed25519Keypair;
  stranger: Ed25519Keypair;
  repo: string;
  /** Key id (without the package) under the repository: repository id bytes ‖ a nonce. */
  id: string;
  data: Uint8Array;
  sealed: Uint8Array;
}

const worlds: { name: string; open(dir: string): Promise<World> }[] = [
  {
    name: 'embedded network',
    async open(dir) {
      const local: LocalNetwork = await openLocalNetwork(dir);
      return { client: local.client, packageId: local.packageId, registryId: local.registryId, keyServers: local.keyServers, fetch: local.keyServerFetch, faucet: local.faucet, close: local.close };
    },
  },
  {
    name: 'git walrus devnet server',
    async open(dir) {
      const server: DevnetServer = await startDevnetServer({ dir });
      const client = new SuiGrpcClient({ baseUrl: server.suiGrpcUrl, network: 'localnet' });
      const { requestSuiFromFaucetV2 } = await import('@mysten/sui/faucet');
      return {
        client, packageId: server.packageId, registryId: server.registryId, keyServers: server.keyServers, fetch: globalThis.fetch,
        faucet: async (recipient) => { await requestSuiFromFaucetV2({ host: server.faucetUrl, recipient }); },
        close: server.close,
      };
    },
  },
];

/** What a key server answered a `fetch_key` request: its status and JSON body. */
interface Answer {
  status: number;
  body: unknown;
}

/**
 * A SealClient over the devnet's key servers (checking each one's proof of possession), with `fetch_key` bodies
 * optionally altered, and the answers to them recorded in `answers` if given.
 */
function sealClient(world: World, alter?: (body: Record<string, any>) => void, answers?: Answer[]): SealClient {
  const transport: typeof fetch = alter || answers
    ? (async (input: string | URL | Request, init?: RequestInit) => {
      if (typeof init?.body !== 'string') return world.fetch(input, init);
      const body = JSON.parse(init.body);
      alter?.(body);
      const response = await world.fetch(input, { ...init, body: JSON.stringify(body) });
      answers?.push({ status: response.status, body: await response.clone().json().catch(() => response.statusText) });
      return response;
    }) as typeof fetch
    : world.fetch;
  return new SealClient({ suiClient: world.client, serverConfigs: DEVNET_SEAL.keyServers, verifyKeyServers: true, fetch: transport, timeout: 5_000 });
}

async function approveTx(world: World, repo: string, ids: string[], fn = 'seal_approve'): Promise<Uint8Array> {
  const { object } = await world.client.core.getObject({ objectId: repo });
  const shared = object.owner.$kind === 'Shared' ? object.owner.Shared.initialSharedVersion : '1';
  const tx = new Transaction();
  for (const id of ids) {
    tx.moveCall({
      target: `${world.packageId}::repository::${fn}`,
      arguments: [tx.pure.vector('u8', fromHex(id)), tx.sharedObjectRef({ objectId: repo, initialSharedVersion: shared, mutable: false })],
    });
  }
  return tx.build({ onlyTransactionKind: true });
}

async function session(world: World, signer: Ed25519Keypair, ttlMin = 10): Promise<SessionKey> {
  return SessionKey.create({ address: signer.toSuiAddress(), packageId: world.packageId, ttlMin, signer, suiClient: world.client });
}

async function rejects(promise: Promise<unknown>, type: new (...args: any[]) => Error, message?: RegExp): Promise<Error> {
  try {
    await promise;
  } catch (error) {
    assert.instance(error, type, `${(error as Error)?.constructor?.name}: ${(error as Error)?.message}`);
    if (message) assert.match((error as Error).message, message);
    return error as Error;
  }
  return assert.unreachable('the request succeeded') as never;
}

for (const factory of worlds) {
  const test = suite<Context>(`Seal key servers with the stock SealClient (${factory.name})`);
  let dir = '';

  test.before(async (context) => {
    dir = mkdtempSync(join(tmpdir(), 'walrus-git-seal-'));
    const world = await factory.open(dir);
    context.world = world;
    context.owner = Ed25519Keypair.generate();
    context.reader = Ed25519Keypair.generate();
    context.stranger = Ed25519Keypair.generate();
    await world.faucet(context.owner.toSuiAddress());
    const ledger = new SuiLedger({ client: world.client, signer: context.owner, packageId: world.packageId, registryId: world.registryId });
    context.repo = (await ledger.createRepository('secret', 'refs/heads/main', { private: true })).id;
    await ledger.addReader(context.repo, context.reader.toSuiAddress());
    context.id = `${context.repo.slice(2)}0102030405060708`;
    context.data = new TextEncoder().encode('a 32-byte data key, for example.');
    const { encryptedObject } = await sealClient(world).encrypt({ threshold: DEVNET_SEAL.threshold, packageId: world.packageId, id: context.id, data: context.data });
    context.sealed = encryptedObject;
  });

  test.after(async ({ world }) => {
    await world.close();
    rmSync(dir, { recursive: true, force: true });
  });

  test('the owner and a reader decrypt what the SDK encrypted; the key servers verify (proof of possession)', async ({ world, owner, reader, repo, id, sealed, data }) => {
    for (const who of [owner, reader]) {
      const plain = await sealClient(world).decrypt({ data: sealed, sessionKey: await session(world, who), txBytes: await approveTx(world, repo, [id]) });
      assert.equal(plain, data);
    }
  });

  test('the derived keys are s·H(id) for the on-chain public keys, as the SDK checks them', async ({ world, reader, repo, id }) => {
    const client = sealClient(world);
    const keys = await client.getDerivedKeys({ id, txBytes: await approveTx(world, repo, [id]), sessionKey: await session(world, reader), threshold: 3 });
    assert.is(keys.size, 3);
    const publicKeys = await client.getPublicKeys(DEVNET_SEAL.keyServers.map((s) => s.objectId));
    const H = hashIdentity(Uint8Array.from([...fromHex(world.packageId), ...fromHex(id)]));
    DEVNET_SEAL.keyServers.forEach(({ objectId }, i) => {
      const usk = bls12_381.G1.Point.fromHex(keys.get(objectId)!.toString());
      const pk = bls12_381.G2.Point.fromBytes(publicKeys[i]!.toBytes());
      assert.ok(bls12_381.fields.Fp12.eql(bls12_381.pairing(usk, bls12_381.G2.Point.BASE), bls12_381.pairing(H, pk)), objectId);
    });
  });

  test('a stranger gets NoAccess; a key id outside the repository too', async ({ world, owner, stranger, repo, id, sealed }) => {
    await rejects(sealClient(world).decrypt({ data: sealed, sessionKey: await session(world, stranger), txBytes: await approveTx(world, repo, [id]) }), NoAccessError);
    const foreign = `${'ab'.repeat(32)}01`;
    await rejects(sealClient(world).fetchKeys({ ids: [foreign], txBytes: await approveTx(world, repo, [foreign]), sessionKey: await session(world, owner), threshold: 2 }), NoAccessError);
  });

  test('a bad session signature, a bad certificate, another function and a certificate from the future get the real status, body and SDK error', async ({ world, owner, repo, id }) => {
    const fetchKeys = async (client: SealClient, sessionKey?: SessionKey, fn?: string) =>
      client.fetchKeys({ ids: [id], txBytes: await approveTx(world, repo, [id], fn), sessionKey: sessionKey ?? await session(world, owner), threshold: 2 });
    const flip = (b64: string) => {
      const bytes = Buffer.from(b64, 'base64');
      bytes[bytes.length - 1]! ^= 1;
      return bytes.toString('base64');
    };
    /** Every key server that answered gave the real server's status and `{error, message}` body; the SDK raised `type`. */
    const refused = async (
      request: (answers: Answer[]) => Promise<unknown>, type: new (...args: any[]) => Error, error: string, message: string,
    ) => {
      const answers: Answer[] = [];
      await rejects(request(answers), type);
      assert.ok(answers.length >= 2, `${answers.length} answers: the SDK gives up once two of three refused`);
      for (const answer of answers) assert.equal(answer, { status: 403, body: { error, message } });
    };
    await refused((a) => fetchKeys(sealClient(world, (body) => { body.request_signature = flip(body.request_signature); }, a)),
      InvalidSessionKeySignatureError, 'InvalidSessionSignature', 'Invalid session key signature');
    await refused((a) => fetchKeys(sealClient(world, (body) => { body.certificate.signature = flip(body.certificate.signature); }, a)),
      InvalidUserSignatureError, 'InvalidSignature', 'Invalid user signature');
    await refused((a) => fetchKeys(sealClient(world, (body) => { body.certificate.ttl_min = 31; }, a)),
      ExpiredSessionKeyError, 'InvalidCertificate', 'Invalid certificate time or ttl');
    await refused((a) => fetchKeys(sealClient(world, undefined, a), undefined, 'seal_approve_all'),
      InvalidPTBError, 'InvalidPTB', 'Invalid PTB: The seal_approve function was not found on the module');
    await refused((a) => fetchKeys(sealClient(world, undefined, a), undefined, 'is_writer'),
      InvalidPTBError, 'InvalidPTB', 'Invalid PTB: Invalid function or package id');
    // A correctly signed certificate whose creation time is a minute ahead of the key servers' clock.
    const ahead = SessionKey.import({ ...(await session(world, owner)).export(), creationTimeMs: Date.now() + 60_000, personalMessageSignature: undefined }, world.client, owner);
    await refused((a) => fetchKeys(sealClient(world, undefined, a), ahead),
      ExpiredSessionKeyError, 'InvalidCertificate', 'Invalid certificate time or ttl');
  });

  test('the HTTP answers carry the real headers and error bodies', async ({ world }) => {
    const info = await world.client.core.getObject({ objectId: DEVNET_SEAL.keyServers[0]!.objectId });
    assert.is(info.object.objectId, DEVNET_SEAL.keyServers[0]!.objectId);
    const url = (await sealClient(world).getKeyServers()).get(DEVNET_SEAL.keyServers[0]!.objectId)!.url;
    const noVersion = await world.fetch(`${url}/v1/service?service_id=${DEVNET_SEAL.keyServers[0]!.objectId}`, { headers: { 'Request-Id': 'r-1' } });
    assert.is(noVersion.status, 400);
    assert.is(noVersion.headers.get('X-KeyServer-Version'), KEY_SERVER_VERSION);
    assert.equal(await noVersion.json(), { error: 'MissingRequiredHeader', message: 'Missing required header: Client-Sdk-Version' });
    const old = await world.fetch(`${url}/v1/service?service_id=${DEVNET_SEAL.keyServers[0]!.objectId}`, { headers: { 'Client-Sdk-Type': 'typescript', 'Client-Sdk-Version': '0.4.4' } });
    assert.is(old.status, 426);
    assert.is(((await old.json()) as { error: string }).error, 'DeprecatedSDKVersion');
    const wrong = await world.fetch(`${url}/v1/service?service_id=${DEVNET_SEAL.keyServers[1]!.objectId}`, { headers: { 'Client-Sdk-Type': 'typescript', 'Client-Sdk-Version': '1.4.12' } });
    assert.equal([wrong.status, ((await wrong.json()) as { error: string }).error], [400, 'InvalidServiceId']);
    const badPtb = await world.fetch(`${url}/v1/fetch_key`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', 'Client-Sdk-Type': 'typescript', 'Client-Sdk-Version': '1.4.12', 'Request-Id': 'r-2' },
      body: JSON.stringify({
        ptb: 'AAA=', enc_key: Buffer.from(bls12_381.G1.Point.BASE.toBytes()).toString('base64'), enc_verification_key: Buffer.from(bls12_381.G2.Point.BASE.toBytes()).toString('base64'),
        request_signature: Buffer.alloc(64).toString('base64'),
        certificate: { user: `0x${'1'.repeat(64)}`, session_vk: Buffer.alloc(32).toString('base64'), creation_time: Date.now(), ttl_min: 10, signature: 'AA==' },
      }),
    });
    assert.is(badPtb.status, 403);
    assert.equal(await badPtb.json(), { error: 'InvalidPTB', message: 'Invalid PTB: Empty PTB input or command' });
    assert.is(badPtb.headers.get('X-KeyServer-Version'), KEY_SERVER_VERSION);
  });

  test('one key server down: 2 of 3 still open the key; two down: the SDK gives up', async ({ world, reader, repo, id, sealed, data }) => {
    // Without verifyKeyServers (the SDK's default): verifying asks every server for its proof, so one down fails it.
    const client = () => new SealClient({ suiClient: world.client, serverConfigs: DEVNET_SEAL.keyServers, fetch: world.fetch, timeout: 5_000 });
    // Marked in the state directory, as another process (a test driving git) would: these servers see it at once.
    setKeyServersDown(dir, [2]);
    try {
      const answered = [...world.keyServers.served];
      const plain = await client().decrypt({ data: sealed, sessionKey: await session(world, reader), txBytes: await approveTx(world, repo, [id]) });
      assert.equal(plain, data);
      assert.is(world.keyServers.served[1], answered[1], 'the server that is down answered nothing');
      assert.ok(world.keyServers.served[0]! + world.keyServers.served[2]! > answered[0]! + answered[2]!);
      await rejects(sealClient(world).decrypt({ data: sealed, sessionKey: await session(world, reader), txBytes: await approveTx(world, repo, [id]) }), TypeError, /fetch failed/);
      world.keyServers.setDown(3, true);
      // The SDK surfaces the transport's error, as with real servers refusing connections.
      await rejects(client().decrypt({ data: sealed, sessionKey: await session(world, reader), txBytes: await approveTx(world, repo, [id]) }), TypeError, /fetch failed/);
      assert.equal(keyServersDown(dir), new Set([2, 3]));
    } finally {
      world.keyServers.setDown(2, false);
      world.keyServers.setDown(3, false);
    }
    assert.equal(keyServersDown(dir), new Set());
  });

  test('the key servers are registered on chain where they answer', async ({ world }) => {
    const servers = await sealClient(world).getKeyServers();
    assert.equal([...servers.keys()], DEVNET_SEAL.keyServers.map((s) => s.objectId));
    for (const [i, server] of [...servers.values()].entries()) {
      assert.ok(server.url.endsWith(`/seal/${i + 1}`), server.url);
      assert.is(server.serverType, 'Independent');
      assert.is(toHex(server.pk).length, 192);
    }
  });

  test.run();
}

const shared = suite('Seal key servers over one state directory');

shared('keep their keys across opens; a devnet server registers its address, which the embedded network then serves in process', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'walrus-git-seal-'));
  try {
    const first = await openLocalNetwork(dir);
    const keyServers = async (client: ClientWithCoreApi) => [...(await new SealClient({ suiClient: client, serverConfigs: DEVNET_SEAL.keyServers }).getKeyServers()).values()];
    const before = await keyServers(first.client);
    assert.equal(before.map((s) => s.url), [1, 2, 3].map((n) => `http://seal.local.invalid/seal/${n}`));
    const server = await startDevnetServer({ dir });
    const registered = await keyServers(first.client);
    assert.equal(registered.map((s) => s.url), [1, 2, 3].map((n) => `${server.url}/seal/${n}`));
    assert.equal(registered.map((s) => toHex(s.pk)), before.map((s) => toHex(s.pk)));
    await server.close();

    const again = await openLocalNetwork(dir);
    assert.equal((await keyServers(again.client)).map((s) => s.url), registered.map((s) => s.url));
    const world: World = { client: again.client, packageId: again.packageId, registryId: again.registryId, keyServers: again.keyServers, fetch: again.keyServerFetch, faucet: again.faucet, close: again.close };
    const owner = Ed25519Keypair.generate();
    await again.faucet(owner.toSuiAddress());
    const ledger = new SuiLedger({ client: again.client, signer: owner, packageId: again.packageId, registryId: again.registryId });
    const repo = (await ledger.createRepository('kept', 'refs/heads/main', { private: true })).id;
    const id = `${repo.slice(2)}ff`;
    const { encryptedObject } = await sealClient(world).encrypt({ threshold: 2, packageId: again.packageId, id, data: new Uint8Array([1, 2, 3]) });
    const plain = await sealClient(world).decrypt({ data: encryptedObject, sessionKey: await session(world, owner), txBytes: await approveTx(world, repo, [id]) });
    assert.equal([...plain], [1, 2, 3]);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

shared.run();
