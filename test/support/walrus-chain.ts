import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createHash } from 'node:crypto';
import { Ed25519Keypair } from '@mysten/sui/keypairs/ed25519';
import { ChainEngine } from '../../src/devnet/chain/engine.ts';
import { DevnetCoreClient } from '../../src/devnet/chain/core-client.ts';
import { WALRUS_SYSTEM_OBJECT_ID } from '../../src/devnet/chain/fixed-ids.ts';
import { engineWalrusChain } from '../../src/devnet/walrus/chain-blobs.ts';
import { createWalrusService, serviceFetch } from '../../src/devnet/walrus/service.ts';
import { HttpBlobStore } from '../../src/walrus/http-blob-store.ts';
import { SuiBlobObjects } from '../../src/walrus/blob-objects.ts';
import { MemoryLedger } from './memory-ports.ts';

const OWNER = `0x${'1'.repeat(64)}`;
const BASE = 'http://walrus.devnet.invalid';
const EPOCH_MS = 1000;

/**
 * The devnet's Walrus beside a devnet chain, with an epoch clock the test moves; a store on it that asks its
 * storage-node API and sends the Blob objects to the user, who pays extensions in WAL from the devnet faucet; and a
 * repository in a memory ledger.
 */
export async function walrusOnDevnetChain() {
  const dir = mkdtempSync(join(tmpdir(), 'walrus-chain-test-'));
  const clock = { now: 1_000_000 };
  const engine = await ChainEngine.open(join(dir, 'chain'));
  const service = createWalrusService(join(dir, 'walrus'), { epochDurationMs: EPOCH_MS, now: () => clock.now, chain: engineWalrusChain(engine) });
  await engine.attachWalrus(await service.epochClock());
  const user = Ed25519Keypair.generate();
  await engine.faucet(user.toSuiAddress());
  /** A store whose Blob objects go to `sendObjectTo` (else the publisher keeps them), deletable unless `permanent`. */
  const storeOf = (sendObjectTo?: string, permanent = true) => new HttpBlobStore({
    publisherUrl: BASE, aggregatorUrl: BASE, storageNodeUrl: BASE, numShards: service.numShards, fetch: serviceFetch(service, BASE), epochs: 3, sendObjectTo, permanent,
  });
  const blobStore = storeOf(user.toSuiAddress());
  const blobObjects = new SuiBlobObjects({
    client: new DevnetCoreClient(engine), signer: async () => user, systemObjectId: WALRUS_SYSTEM_OBJECT_ID, walFaucet: async (address) => { await engine.faucetWal(address); },
  });
  const ledger = new MemoryLedger(OWNER);
  const { id } = await ledger.createRepository('app');
  /** A push of one pack of `chunks` blobs, stored for 3 epochs (by default the user's; `by` another store). */
  const pushPack = async (name: string, chunks: string[], by = blobStore) => {
    const stored = await Promise.all(chunks.map((text) => by.write(new TextEncoder().encode(text))));
    const bytes = chunks.join('');
    await ledger.push(id, [{ name, old: null, new: createHash('sha1').update(name).digest('hex'), force: false }], {
      chunks: stored.map((s) => s.blobId), size: bytes.length, sha256: createHash('sha256').update(bytes).digest('hex'),
    });
  };
  const advance = (epochs: number) => { clock.now += epochs * EPOCH_MS; };
  return {
    dir, engine, user, blobStore, storeOf, walrusFetch: serviceFetch(service, BASE), blobObjects, ledger, id, pushPack, advance,
    remove: () => rmSync(dir, { recursive: true, force: true }),
  };
}
