import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createHash } from 'node:crypto';
import { silentLog } from '../../src/core/log.ts';
import { createWalrusService, serviceFetch } from '../../src/devnet/walrus/service.ts';
import { HttpBlobStore } from '../../src/walrus/http-blob-store.ts';
import { extendLivePacks, expiryWarnings, liveLifetimes, PackExpiredError } from '../../src/remote/lifetime.ts';
import { MemoryLedger } from '../support/memory-ports.ts';
import { verifyRepository } from '../../src/remote/history/verify-repository.ts';
import { computeBlobId, releaseBlobIdWorkers } from '../../src/walrus/blob-id.ts';

const OWNER = `0x${'1'.repeat(64)}`;
const BASE = 'http://walrus.devnet.invalid';
const EPOCH_MS = 1000;

/** The devnet's Walrus with a clock the test moves, a store on it that asks its storage-node API, and a repository. */
async function setup() {
  const dir = mkdtempSync(join(tmpdir(), 'lifetime-test-'));
  const clock = { now: 1_000_000 };
  const service = createWalrusService(dir, { epochDurationMs: EPOCH_MS, now: () => clock.now });
  const blobStore = new HttpBlobStore({ publisherUrl: BASE, aggregatorUrl: BASE, storageNodeUrl: BASE, numShards: service.numShards, fetch: serviceFetch(service, BASE), epochs: 3 });
  const ledger = new MemoryLedger(OWNER);
  const { id } = await ledger.createRepository('app');
  /** A push of one pack of `chunks` blobs, stored for the store's 3 epochs. */
  const pushPack = async (name: string, chunks: string[]) => {
    const stored = await Promise.all(chunks.map((text) => blobStore.write(new TextEncoder().encode(text))));
    const bytes = chunks.join('');
    await ledger.push(id, [{ name, old: null, new: createHash('sha1').update(name).digest('hex'), force: false }], {
      chunks: stored.map((s) => s.blobId), size: bytes.length, sha256: createHash('sha256').update(bytes).digest('hex'),
    });
  };
  const advance = (epochs: number) => { clock.now += epochs * EPOCH_MS; };
  return { dir, blobStore, ledger, id, pushPack, advance, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

const lifetime = suite('blob lifetime (devnet Walrus, epoch clock moved forward)');

lifetime('live packs are ok, then expiring within the window (with a warning naming them), then extended, then expired', async () => {
  const t = await setup();
  try {
    await t.pushPack('refs/heads/a', ['pack a, chunk 1', 'pack a, chunk 2']);
    let lifetimes = (await liveLifetimes(t.ledger, t.blobStore, t.id, 1))!;
    assert.is(lifetimes.epoch, 1);
    assert.equal(lifetimes.packs.map((p) => [p.index, p.endEpoch, p.verdict]), [[0, 4, 'ok']]);
    assert.equal(expiryWarnings(lifetimes, 'walrus'), []);

    t.advance(2);
    lifetimes = (await liveLifetimes(t.ledger, t.blobStore, t.id, 1))!;
    assert.equal(lifetimes.packs.map((p) => [p.endEpoch, p.verdict]), [[4, 'expiring']]);
    const [warning] = expiryWarnings(lifetimes, 'walrus');
    assert.match(warning, /^live pack #0 expires at Walrus epoch 4 \(now 3: 1 epoch\(s\) left, blob \S+\); renew it with 'git walrus extend walrus'$/);

    const extended = await extendLivePacks({ ledger: t.ledger, blobStore: t.blobStore, log: silentLog }, t.id, 10);
    assert.equal([extended.renewed, extended.kept, extended.endEpoch], [2, 0, 13]);
    lifetimes = (await liveLifetimes(t.ledger, t.blobStore, t.id, 1))!;
    assert.equal(lifetimes.packs.map((p) => [p.endEpoch, p.verdict]), [[13, 'ok']]);
    // Asking again for no more than is stored renews nothing.
    const again = await extendLivePacks({ ledger: t.ledger, blobStore: t.blobStore, log: silentLog }, t.id, 5);
    assert.equal([again.renewed, again.kept], [0, 2]);

    t.advance(10);
    lifetimes = (await liveLifetimes(t.ledger, t.blobStore, t.id, 1))!;
    assert.equal(lifetimes.packs.map((p) => [p.endEpoch, p.verdict]), [[null, 'expired']]);
    try {
      await extendLivePacks({ ledger: t.ledger, blobStore: t.blobStore, log: silentLog }, t.id, 10);
      assert.unreachable('an expired pack was renewed');
    } catch (error) {
      assert.instance(error, PackExpiredError);
      assert.match((error as Error).message, /^live pack #0 of 0x\S+ has expired \(blob \S+ is gone from Walrus\) and cannot be renewed/);
    }
  } finally { t.remove(); }
});

lifetime('a pack lives as long as its shortest-lived chunk; packs before live_from are not asked about', async () => {
  const t = await setup();
  try {
    await t.pushPack('refs/heads/old', ['old pack']);
    t.advance(1);
    await t.pushPack('refs/heads/new', ['new pack, chunk 1']);
    const lifetimes = (await liveLifetimes(t.ledger, t.blobStore, t.id, 0))!;
    assert.equal(lifetimes.packs.map((p) => [p.index, p.endEpoch]), [[0, 4], [1, 5]]);
    t.ledger.repos.get(t.id)!.info.liveFrom = 1;
    assert.equal((await liveLifetimes(t.ledger, t.blobStore, t.id, 0))!.packs.map((p) => p.index), [1]);
  } finally { t.remove(); }
});

lifetime('verify fails on an expired live pack, naming it, and reports the expiring ones', async () => {
  const t = await setup();
  try {
    await t.pushPack('refs/heads/a', ['pack a']);
    t.advance(2);
    const deps = { ledger: t.ledger, blobStore: t.blobStore, blobIdOf: (bytes: Uint8Array) => computeBlobId(bytes, t.blobStore.numShards), log: silentLog };
    const expiring = await verifyRepository(deps, t.id, { expiryWarningEpochs: 2 });
    assert.equal(expiring.findings.filter((f) => f.code === 'PACK_EXPIRED'), []);
    assert.equal(expiring.lifetimes!.packs.map((p) => p.verdict), ['expiring']);
    t.advance(1);
    const expired = await verifyRepository(deps, t.id, { expiryWarningEpochs: 2 });
    const [finding] = expired.findings.filter((f) => f.code === 'PACK_EXPIRED');
    assert.match(finding.message, /^pack #0: blob \S+ is gone from Walrus \(now epoch 4\); the pack is lost unless its objects are pushed again$/);
    assert.is(finding.blobId, t.ledger.repos.get(t.id)!.packs[0].chunks[0]);
  } finally { t.remove(); }
});

lifetime('a store that cannot ask storage nodes reports no lifetimes', async () => {
  const t = await setup();
  try {
    const blind = new HttpBlobStore({ aggregatorUrl: BASE, numShards: 50 });
    assert.is(await liveLifetimes(t.ledger, blind, t.id, 5), null);
  } finally { t.remove(); }
});

lifetime.after(() => releaseBlobIdWorkers());

lifetime.run();
