import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { randomBytes } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { silentLog } from '../../../src/core/log.ts';
import { fetchArtifact, publishArtifact } from '../../../src/gitops/artifact/store.ts';
import { ArtifactDigestMismatchError, MalformedArchiveError } from '../../../src/gitops/artifact/errors.ts';
import { tempDir } from '../../support/git-fixture.ts';
import { MemoryBlobStore } from '../../support/memory-ports.ts';

const store = suite('artifact store');

store('an artifact larger than one blob is cut into blobs plus an index, and comes back whole', async () => {
  const dir = tempDir('walrus-artifact-store-');
  try {
    const src = join(dir.path, 'src');
    mkdirSync(src);
    const noise = randomBytes(100_000); // incompressible: the gzip stream is about as large
    writeFileSync(join(src, 'noise.bin'), noise);
    writeFileSync(join(src, 'index.js'), 'console.log(1)\n');
    const blobStore = new MemoryBlobStore(16 * 1024);
    const deps = { blobStore, log: silentLog };
    const artifact = await publishArtifact(deps, src, false);
    const chunks = Math.ceil(artifact.size / blobStore.maxBlobSize);
    assert.ok(chunks >= 6, `${chunks} chunks`);
    assert.is(blobStore.writes, chunks + 1, 'the chunks and one index');
    const index = JSON.parse(Buffer.from(await blobStore.read(artifact.blobId)).toString('utf8'));
    assert.is(index.chunks.length, chunks);
    assert.is(index.size, artifact.size);

    const reads = blobStore.reads;
    const out = join(dir.path, 'out');
    const fetched = await fetchArtifact(deps, artifact, out, false);
    assert.is(blobStore.reads - reads, chunks + 1);
    assert.is(fetched.size, artifact.size);
    assert.ok(readFileSync(join(out, 'noise.bin')).equals(noise));

    // One chunk swapped for another blob's bytes: the sha256 catches it and nothing stays.
    const tampered = { ...index, chunks: [...index.chunks] };
    tampered.chunks[1] = tampered.chunks[2];
    const forged = await blobStore.write(Buffer.from(JSON.stringify(tampered)));
    const error = await fetchArtifact(deps, { blobId: forged.blobId, sha256: artifact.sha256 }, join(dir.path, 'forged'), false).then(() => null, (e: unknown) => e);
    assert.ok(error instanceof ArtifactDigestMismatchError || error instanceof MalformedArchiveError, String(error));
    assert.equal(readdirSync(join(dir.path, 'forged')), []);
  } finally {
    dir.remove();
  }
});

store('a small artifact is one blob; a blob that is neither gzip nor an index is refused', async () => {
  const dir = tempDir('walrus-artifact-store-');
  try {
    const src = join(dir.path, 'src');
    mkdirSync(src);
    writeFileSync(join(src, 'index.js'), 'console.log(1)\n');
    const blobStore = new MemoryBlobStore();
    const deps = { blobStore, log: silentLog };
    const artifact = await publishArtifact(deps, src, false);
    assert.is(blobStore.writes, 1);
    assert.is((await blobStore.read(artifact.blobId)).byteLength, artifact.size);
    await fetchArtifact(deps, artifact, join(dir.path, 'out'), false);
    assert.is(readFileSync(join(dir.path, 'out', 'index.js'), 'utf8'), 'console.log(1)\n');

    const junk = await blobStore.write(Buffer.from('not an artifact'));
    const error = await fetchArtifact(deps, { blobId: junk.blobId, sha256: artifact.sha256 }, join(dir.path, 'junk'), false).then(() => null, (e: unknown) => e);
    assert.instance(error, MalformedArchiveError);
    assert.match((error as Error).message, /neither a gzip-compressed tarball nor an artifact index/);
  } finally {
    dir.remove();
  }
});

store.run();
