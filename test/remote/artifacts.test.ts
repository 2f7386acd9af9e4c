import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { createHash, randomBytes } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { silentLog } from '../../src/core/log.ts';
import { tarballArchive } from '../../src/fs/tarball.ts';
import { artifactSha256, fetchArtifact, isSealedArtifactStart, publishArtifact } from '../../src/remote/artifacts.ts';
import { ArtifactDigestMismatchError, MalformedArchiveError, SealedArtifactError } from '../../src/ports/artifact-errors.ts';
import { newPackIdentity } from '../../src/core/pack-cipher.ts';
import { NotReaderError } from '../../src/core/read-access.ts';
import { newPackSealing, openSealedStream } from '../../src/remote/sealed-packs.ts';
import { tempDir } from '../../scripts/harness/git-env.ts';
import { MemoryKeyService } from '../support/memory-key-service.ts';
import { MemoryBlobStore, MemoryLedger } from '../support/memory-ports.ts';

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
    const deps = { blobStore, archive: tarballArchive, log: silentLog };
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
    const deps = { blobStore, archive: tarballArchive, log: silentLog };
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

store('artifactSha256: the tar stream\'s sha256 of a one-blob or chunked artifact, as published, not the stored bytes\' hash', async () => {
  const dir = tempDir('walrus-artifact-store-');
  try {
    const src = join(dir.path, 'src');
    mkdirSync(src);
    writeFileSync(join(src, 'noise.bin'), randomBytes(40_000));
    for (const blobStore of [new MemoryBlobStore(), new MemoryBlobStore(16 * 1024)]) {
      const artifact = await publishArtifact({ blobStore, archive: tarballArchive, log: silentLog }, src, false);
      assert.is(await artifactSha256({ blobStore, archive: tarballArchive }, artifact.blobId), artifact.sha256);
      assert.is.not(createHash('sha256').update(await blobStore.read(artifact.blobId)).digest('hex'), artifact.sha256);
    }
    const blobStore = new MemoryBlobStore();
    const junk = await blobStore.write(Buffer.from('not an artifact'));
    const error = await artifactSha256({ blobStore, archive: tarballArchive }, junk.blobId).then(() => null, (e: unknown) => e);
    assert.instance(error, MalformedArchiveError);
  } finally {
    dir.remove();
  }
});

store('a private repository\'s artifact is sealed: no gzip, no plaintext on Walrus; its readers open it, chunked or not, and nobody else', async () => {
  const dir = tempDir('walrus-artifact-store-');
  try {
    const src = join(dir.path, 'src');
    mkdirSync(src);
    const secret = 'const recipe = "the secret sauce";\n';
    writeFileSync(join(src, 'index.js'), secret);
    writeFileSync(join(src, 'noise.bin'), randomBytes(150_000)); // several 64 KiB frames
    const owner = `0x${'1'.repeat(64)}`;
    const ledger = new MemoryLedger(owner);
    const keyService = new MemoryKeyService(ledger);
    const { id } = await ledger.createRepository('secret', 'refs/heads/main', { private: true });
    const unseal = (sealedKey: string) => openSealedStream({ ledger, keyService }, sealedKey, 'the artifact');
    for (const blobStore of [new MemoryBlobStore(), new MemoryBlobStore(16 * 1024)]) {
      const sealing = await newPackSealing(keyService, newPackIdentity(id));
      const artifact = await publishArtifact({ blobStore, archive: tarballArchive, log: silentLog, sealing }, src, false);
      const plain = await publishArtifact({ blobStore: new MemoryBlobStore(), archive: tarballArchive, log: silentLog }, src, false);
      assert.is(artifact.sha256, plain.sha256, 'the recorded sha256 is the plaintext tar\'s, sealed or not');
      const stored = Buffer.concat(await Promise.all([...blobStore.blobs.keys()].map((blobId) => blobStore.read(blobId))));
      assert.not.ok(stored.includes('secret sauce'));
      const first = await blobStore.read(artifact.blobId);
      if (blobStore.maxBlobSize > 16 * 1024) assert.ok(isSealedArtifactStart(first), 'one sealed blob');
      else assert.ok(isSealedArtifactStart(await blobStore.read(JSON.parse(Buffer.from(first).toString()).chunks[0])), 'an index of sealed chunks');
      assert.not.ok(first[0] === 0x1f && first[1] === 0x8b, 'not a readable tarball');

      const out = join(dir.path, `out-${blobStore.maxBlobSize}`);
      await fetchArtifact({ blobStore, archive: tarballArchive, log: silentLog, unseal }, artifact, out, false);
      assert.is(readFileSync(join(out, 'index.js'), 'utf8'), secret);
      assert.is(await artifactSha256({ blobStore, archive: tarballArchive }, artifact.blobId, unseal), artifact.sha256);

      const noSeal = await fetchArtifact({ blobStore, archive: tarballArchive, log: silentLog }, artifact, join(dir.path, `no-seal-${blobStore.maxBlobSize}`), false).then(() => null, (e: unknown) => e);
      assert.instance(noSeal, SealedArtifactError);
      ledger.address = `0x${'3'.repeat(64)}`;
      const stranger = await artifactSha256({ blobStore, archive: tarballArchive }, artifact.blobId, unseal).then(() => null, (e: unknown) => e);
      assert.instance(stranger, NotReaderError);
      ledger.address = owner;
    }
  } finally {
    dir.remove();
  }
});

store.run();
