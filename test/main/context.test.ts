import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdirSync } from 'node:fs';
import { Socket } from 'node:net';
import { join } from 'node:path';
import { Ed25519Keypair } from '@mysten/sui/keypairs/ed25519';
import { silentLog } from '../../src/core/log.ts';
import { openLocalNetwork } from '../../src/devnet/local-network.ts';
import { openNetwork } from '../../src/main/context.ts';
import { PUBLIC_WALRUS_SHARDS } from '../../src/config/networks.ts';
import { SdkBlobStore } from '../../src/walrus/sdk-blob-store.ts';
import { initRepo } from '../support/git-fixture.ts';
import { hermeticGitEnv, tempDir } from '../../scripts/harness/git-env.ts';

/**
 * The composition seam for the public networks without a publisher. Nothing here can reach Sui or Walrus, so every
 * socket connection and fetch is counted: opening the network must make none (the SDK calls on first use only).
 */
const open = suite('openNetwork');

const PACKAGE_ID = `0x${'ab'.repeat(32)}`;
const REGISTRY_ID = `0x${'cd'.repeat(32)}`;

async function openOffline(extra: NodeJS.ProcessEnv) {
  const dir = tempDir('walrus-context-');
  mkdirSync(join(dir.path, 'repo'));
  const env = hermeticGitEnv(join(dir.path, 'home'), {
    GIT_DIR: join(initRepo(join(dir.path, 'repo'), hermeticGitEnv(dir.path)), '.git'),
    GIT_WALRUS_HOME: join(dir.path, 'walrus-home'),
    GIT_WALRUS_PACKAGE_ID: PACKAGE_ID,
    GIT_WALRUS_REGISTRY_ID: REGISTRY_ID,
    GIT_WALRUS_KEY: Ed25519Keypair.generate().getSecretKey(),
    ...extra,
  });
  const contacts: string[] = [];
  const realFetch = globalThis.fetch;
  const realConnect = Socket.prototype.connect;
  globalThis.fetch = (async (input: string | URL | Request) => {
    contacts.push(`fetch ${String(input instanceof Request ? input.url : input)}`);
    throw new TypeError('no network in this test');
  }) as typeof fetch;
  Socket.prototype.connect = function (this: Socket, ...args: unknown[]) {
    contacts.push(`connect ${JSON.stringify(args[0])}`);
    return realConnect.apply(this, args as never);
  } as typeof Socket.prototype.connect;
  try {
    const opened = await openNetwork({ env, log: silentLog, role: 'test' });
    return { opened, contacts, remove: dir.remove };
  } finally {
    globalThis.fetch = realFetch;
    Socket.prototype.connect = realConnect;
  }
}

open('mainnet (no public publisher) writes through an SdkBlobStore, built without any network call', async () => {
  const { opened, contacts, remove } = await openOffline({ GIT_WALRUS_NETWORK: 'mainnet' });
  try {
    assert.is(opened.name, 'mainnet');
    assert.instance(opened.blobStore, SdkBlobStore);
    assert.is((opened.blobStore as SdkBlobStore).numShards, PUBLIC_WALRUS_SHARDS);
    assert.equal(contacts, []);
    await opened.close();
  } finally {
    remove();
  }
});

open('testnet with an upload relay and no publisher also goes through the SDK; with a publisher it does not', async () => {
  const relay = await openOffline({ GIT_WALRUS_NETWORK: 'testnet', GIT_WALRUS_UPLOAD_RELAY_URL: 'https://relay.invalid' });
  try {
    assert.instance(relay.opened.blobStore, SdkBlobStore);
    assert.equal(relay.contacts, []);
  } finally {
    relay.remove();
  }
  const publisher = await openOffline({ GIT_WALRUS_NETWORK: 'testnet', GIT_WALRUS_PUBLISHER_URL: 'https://publisher.invalid' });
  try {
    assert.not.instance(publisher.opened.blobStore, SdkBlobStore);
    assert.equal(publisher.contacts, []);
  } finally {
    publisher.remove();
  }
});

open('mainnet without the package ids says how to set them', async () => {
  try {
    await openOffline({ GIT_WALRUS_NETWORK: 'mainnet', GIT_WALRUS_PACKAGE_ID: '', GIT_WALRUS_REGISTRY_ID: '' });
    assert.unreachable('opened without a package id');
  } catch (error) {
    assert.is((error as { code?: string }).code, 'PACKAGE_NOT_PUBLISHED');
  }
});

open('on a network with a faucet, a session that prepares writes has a new signer funded then, before any write', async () => {
  const dir = tempDir('walrus-context-');
  const key = Ed25519Keypair.generate();
  const env = hermeticGitEnv(join(dir.path, 'home'), { GIT_WALRUS_HOME: join(dir.path, 'walrus-home'), GIT_WALRUS_NETWORK: 'local', GIT_WALRUS_KEY: key.getSecretKey() });
  const opened = await openNetwork({ env, log: silentLog, role: 'test' });
  // The chain as another process sees it, through the same state directory.
  const chain = await openLocalNetwork(join(dir.path, 'walrus-home', 'local'));
  try {
    const balance = async () => BigInt((await chain.client.core.getBalance({ owner: key.toSuiAddress() })).balance.balance);
    assert.is(await balance(), 0n);
    opened.ledger.prepareWrites?.();
    let funded = 0n;
    for (let waited = 0; funded === 0n && waited < 10_000; waited += 50) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      funded = await balance();
    }
    assert.ok(funded > 0n, 'the faucet paid before any write');
  } finally {
    await chain.close();
    await opened.close();
    dir.remove();
  }
});

open.run();
