/**
 * Artifact retention: which artifacts an app keeps (pure), and the reconcile step that reclaims the rest over the
 * devnet's Walrus and chain: real artifacts published with a deletable store, Blob objects deleted by their owner.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { silentLog } from '../../src/core/log.ts';
import { tarballArchive } from '../../src/fs/tarball.ts';
import { recordHistory } from '../../src/gitops/reconcile/conditions.ts';
import { Pass } from '../../src/gitops/reconcile/pass.ts';
import { artifactsToReclaim } from '../../src/gitops/reconcile/retention.ts';
import { reclaimArtifacts } from '../../src/gitops/reconcile/steps/reclaim-artifacts.ts';
import type { Artifact, HistoryEntry, WalrusAppStatus } from '../../src/ports/walrus-app.ts';
import { artifactSha256, publishArtifact } from '../../src/remote/artifacts.ts';
import { verifyDeployments } from '../../src/remote/market/deployments.ts';
import { reclaimArtifact } from '../../src/remote/reclaim.ts';
import { releaseBlobIdWorkers } from '../../src/walrus-protocol/blob-id.ts';
import { rejected } from '../support/rejected.ts';
import { walrusOnDevnetChain } from '../support/walrus-chain.ts';
import { Fixture, oid, walrusApp } from './support/reconcile-fixture.ts';

const artifact = (n: number): Artifact => ({ blobId: `blob-${n}`, sha256: `${n}`.padStart(64, '0'), size: 100 });
const entry = (n: number, result: HistoryEntry['result'] = 'Released', blob = n): HistoryEntry =>
  ({ commit: oid(n), artifact: artifact(blob), result, time: '2026-11-29T00:00:00Z', message: '' });
const reclaimedBlobs = (status: WalrusAppStatus, keep: number) => artifactsToReclaim(status, keep).map((e) => e.artifact!.blobId);

const keep = suite('retention: which artifacts an app keeps');

keep('the newest N releases are kept, the serving one among them; older ones go', () => {
  const status: WalrusAppStatus = { lastAppliedRevision: oid(6), history: [6, 5, 4, 3, 2, 1].map((n) => entry(n)) };
  assert.equal(reclaimedBlobs(status, 3), ['blob-3', 'blob-2', 'blob-1']);
  assert.equal(reclaimedBlobs(status, 1), ['blob-5', 'blob-4', 'blob-3', 'blob-2', 'blob-1']);
  assert.equal(reclaimedBlobs(status, 6), []);
});

keep('the serving release is kept even when newer ones failed and were rolled back; their artifacts count for nothing', () => {
  // 7 and 8 failed (RolledBack); 5 serves; keep 2: 5 and 4.
  const status: WalrusAppStatus = { lastAppliedRevision: oid(5), failedRevision: oid(8), history: [entry(8, 'RolledBack'), entry(7, 'RolledBack'), entry(5), entry(4), entry(3)] };
  assert.equal(reclaimedBlobs(status, 2), ['blob-8', 'blob-7', 'blob-3']);
  assert.equal(reclaimedBlobs(status, 1), ['blob-8', 'blob-7', 'blob-4', 'blob-3']);
});

keep('the head\'s build (status.artifact) and an artifact two commits share are never reclaimed; reclaimed entries are not again', () => {
  const status: WalrusAppStatus = {
    lastAppliedRevision: oid(4), artifact: { ...artifact(9), commit: oid(9), configHash: 'h' },
    history: [entry(9, 'RolledBack'), entry(4), entry(3, 'Released', 4), { ...entry(2), reclaimed: true }, entry(1)],
  };
  assert.equal(reclaimedBlobs(status, 1), ['blob-1'], 'blob-4 serves (commits 4 and 3), blob-9 is the head\'s build, blob-2 is gone already');
});

keep('no history, or nothing serving yet: nothing is reclaimed unless beyond N releases', () => {
  assert.equal(reclaimedBlobs({}, 1), []);
  assert.equal(reclaimedBlobs({ history: [entry(2), entry(1, 'RolledBack')] }, 1), ['blob-1']);
});

keep.run();

const step = suite('retention: the reconcile step over the devnet\'s Walrus and chain');

step('20 releases with keepArtifacts 3: 3 artifacts stay readable, 17 are deleted with an event each; the storage figure', async () => {
  const t = await walrusOnDevnetChain();
  const src = mkdtempSync(join(tmpdir(), 'retention-src-'));
  try {
    const deletable = t.storeOf(t.user.toSuiAddress(), false);
    const deps = { blobStore: deletable, archive: tarballArchive, log: silentLog };
    const f = new Fixture(walrusApp());
    f.offer = { maxReplicas: 5, keepArtifacts: 3 };
    let status: WalrusAppStatus = {};
    const published: Artifact[] = [];
    for (let n = 1; n <= 20; n++) {
      // Each release's tree differs (and is not tiny), as a new commit's build does.
      mkdirSync(join(src, 'dist'), { recursive: true });
      writeFileSync(join(src, 'dist', 'app.js'), `console.log(${n});\n${'x'.repeat(20_000 + n)}\n`);
      const ref = await publishArtifact(deps, src, false);
      published.push({ blobId: ref.blobId, sha256: ref.sha256, size: ref.size });
      status = { ...status, lastAppliedRevision: oid(n), history: recordHistory(status.history, { ...entry(n), artifact: published[n - 1] }) };
      f.app = walrusApp({ status });
      const pass = new Pass(f.app, { ...f.deps(), reclaimArtifact: (blobId) => reclaimArtifact({ blobStore: t.blobStore, blobObjects: t.blobObjects, log: silentLog }, blobId) });
      assert.equal((await reclaimArtifacts(pass)).kind, 'Next');
      status = pass.status;
    }
    const owned = await t.blobObjects.owned(published.map((a) => a.blobId));
    const storageOf = (a: Artifact) => (owned.get(a.blobId) ?? []).reduce((sum, o) => sum + o.storageSize, 0);
    const kept = published.slice(-3);
    for (const a of kept) assert.is(await artifactSha256({ blobStore: t.blobStore, archive: tarballArchive }, a.blobId), a.sha256, 'a kept artifact reads back whole');
    for (const a of published.slice(0, -3)) {
      await rejected(t.blobStore.read(a.blobId), (error) => (error as { code?: string }).code === 'BLOB_NOT_FOUND');
      assert.is(storageOf(a), 0);
    }
    const reclaimedEvents = f.events.filter((e) => e.startsWith('Normal ArtifactReclaimed'));
    assert.is(reclaimedEvents.length, 17);
    assert.match(reclaimedEvents[0], `artifact ${published[0].blobId} of ${oid(1).slice(0, 12)} reclaimed (beyond the 3 kept): deleted 1 Blob object(s)`);
    assert.ok(status.history!.filter((e) => e.reclaimed).length === 7, 'the 10 history entries: 3 kept, 7 marked reclaimed');
    // Storage the provider holds now, and what it would hold without retention (every artifact the same encoded size
    // class, so the deleted ones' storage is what the kept ones' would be, blob for blob).
    const keptBytes = kept.reduce((sum, a) => sum + storageOf(a), 0);
    const perArtifact = keptBytes / kept.length;
    console.log(`  retention figure: 20 releases of a ~20 KB artifact: ${published.length} artifacts, ${Math.round(perArtifact * 20)} bytes of encoded Walrus storage without retention; ${kept.length} artifacts, ${keptBytes} bytes with keepArtifacts 3 (${Math.round(100 - (keptBytes * 100) / (perArtifact * 20))} % reclaimed)`);

    // `deployments --verify` on records of a reclaimed and a kept artifact: NOT CHECKED for the first, verified for the other.
    await t.pushPack('refs/heads/main', ['a pack']);
    const [push] = await t.ledger.listPushes(t.id);
    const commit = push.updates[0].new!;
    const record = (a: Artifact) => ({ commit, artifact: a.blobId, sha256: a.sha256, atMs: push.timestampMs, lease: '0x1', provider: '0x2', repository: t.id, ref: 'refs/heads/main', txDigest: 'tx' });
    const lines = await verifyDeployments({ ledger: t.ledger, artifactSha256: (blobId) => artifactSha256({ blobStore: t.blobStore, archive: tarballArchive }, blobId) }, t.id, [record(published[0]), record(published[19])]);
    assert.equal(lines.map((l) => [l.problems, l.unchecked === undefined]), [[[], false], [[], true]]);
    assert.match(lines[0].unchecked!, 'is no longer on Walrus (its storage ended, or the provider reclaimed it as an old release)');

    // A pass with nothing new to reclaim writes nothing and asks the chain nothing.
    const again = new Pass(walrusApp({ status }), { ...f.deps(), reclaimArtifact: () => { throw new Error('not called'); } });
    await reclaimArtifacts(again);
    assert.is(f.events.filter((e) => e.startsWith('Normal ArtifactReclaimed')).length, 17);
  } finally {
    rmSync(src, { recursive: true, force: true });
    t.remove();
  }
});

step('a reclaim that fails is reported as a Warning and tried again on the next pass; the entry stays unmarked', async () => {
  const f = new Fixture(walrusApp({ status: { lastAppliedRevision: oid(2), history: [entry(2), entry(1)] } }));
  f.offer = { maxReplicas: 5, keepArtifacts: 1 };
  const pass = new Pass(f.app!, { ...f.deps(), reclaimArtifact: async () => { throw new Error('the Sui node is unreachable'); } });
  assert.equal((await reclaimArtifacts(pass)).kind, 'Next', 'it never holds the app back');
  assert.equal(f.events, [`Warning ArtifactReclaimFailed: artifact blob-1 of ${oid(1).slice(0, 12)} could not be reclaimed, tried again next pass: the Sui node is unreachable`]);
  assert.is(pass.status.history![1].reclaimed, undefined);
});

step.after(() => releaseBlobIdWorkers());

step.run();
