import type { Log } from '../core/log.ts';
import type { PackDecryptor } from '../core/pack-cipher.ts';
import { MalformedArchiveError, SealedArtifactError } from '../ports/artifact-errors.ts';
import type { BlobStore } from '../ports/blob-store.ts';
import type { TreeArchive } from '../ports/tree-archive.ts';
import { formatBytes, rateOf } from './progress.ts';
import type { PackSealing } from './sealed-packs.ts';

/**
 * Artifacts on Walrus. An artifact is the gzip-compressed deterministic tarball of a build's tree (the TreeArchive port, src/fs/tarball.ts). One
 * that fits one blob is stored as that blob; a larger one is cut into blobs of the store's maximum size, and a small
 * JSON index blob lists them: the artifact's blob id is then the index's. Either way the reader knows which it got
 * from the first bytes (gzip's magic number versus `{`), and the sha256 of the unpacked tar is checked at the end,
 * so a forged index gains nothing.
 *
 * The artifact of a private repository is sealed before it reaches Walrus, under the same policy as its packs:
 *
 *     "wgsa" ‖ u16be(sealed key length) ‖ sealed data key (a Seal EncryptedObject) ‖ the gzip stream encrypted as
 *     src/core/pack-cipher.ts encrypts a pack (with that data key and the key's identity)
 *
 * cut into blobs the same way. Only the repository's members and the provider of an active lease on it get the data
 * key; the recorded sha256 stays that of the plaintext tar, checked after decryption.
 */

/** What a build reports and a run pod needs: `{blobId, sha256, size}` (the build Job's termination message). */
export interface ArtifactRef {
  blobId: string;
  /** sha256 of the uncompressed tar stream, lowercase hex: the same for the same tree on any machine. */
  sha256: string;
  /** Bytes stored on Walrus (the compressed tarball, without the index blob). */
  size: number;
}

export interface ArtifactDeps {
  blobStore: BlobStore;
  archive: TreeArchive;
  log: Log;
}

/** Opens a sealed artifact's data key (sealed-packs.ts `openSealedStream`): as a member, or under a lease. */
export type Unseal = (sealedKey: string) => Promise<PackDecryptor>;

const INDEX_FORMAT = 'walrus-git-artifact/1';
const GZIP_MAGIC = [0x1f, 0x8b];
const SEALED_MAGIC = [0x77, 0x67, 0x73, 0x61]; // "wgsa": walrus git sealed artifact

interface ArtifactIndex {
  format: typeof INDEX_FORMAT;
  size: number;
  chunks: string[];
}

/**
 * Packs `root` and stores it on Walrus: compression and upload overlap, and at most one blob's bytes are held (the
 * compressor waits while a full chunk uploads).
 */
export async function publishArtifact(deps: ArtifactDeps & { sealing?: PackSealing }, root: string, progress: boolean): Promise<ArtifactRef & { entries: number; tarSize: number; manifestRoot: string }> {
  const { blobStore, archive, log } = deps;
  const max = blobStore.maxBlobSize;
  const chunks: string[] = [];
  let buffer = new Uint8Array(max);
  let filled = 0;
  let size = 0;
  const started = Date.now();
  const flush = async () => {
    const stored = await blobStore.write(buffer.subarray(0, filled));
    chunks.push(stored.blobId);
    if (progress) log.progress(`Uploading artifact: ${chunks.length} blob${chunks.length > 1 ? 's' : ''}, ${formatBytes(size)} | ${rateOf(size, started)}`);
    filled = 0;
  };
  const store = async (piece: Uint8Array) => {
    let offset = 0;
    while (offset < piece.byteLength) {
      if (filled === max) await flush();
      const take = Math.min(max - filled, piece.byteLength - offset);
      buffer.set(piece.subarray(offset, offset + take), filled);
      filled += take;
      offset += take;
      size += take;
    }
  };
  const { sealing } = deps;
  if (sealing) await store(sealedHeader(sealing.sealedKey));
  const packed = await archive.pack(root, async (piece) => {
    if (!sealing) return store(piece);
    for (const sealed of sealing.encryptor.update(piece)) await store(sealed);
  });
  if (sealing) await store(sealing.encryptor.end());
  if (filled > 0 || chunks.length === 0) await flush();
  buffer = new Uint8Array(0);
  let blobId = chunks[0];
  if (chunks.length > 1) {
    const index: ArtifactIndex = { format: INDEX_FORMAT, size, chunks };
    blobId = (await blobStore.write(new TextEncoder().encode(JSON.stringify(index)))).blobId;
  }
  await blobStore.release?.();
  if (progress) log.progress(`Uploading artifact: ${packed.entries} entries, ${formatBytes(packed.tarSize)} packed into ${formatBytes(size)} in ${chunks.length} blob${chunks.length > 1 ? 's' : ''}, done.`, true);
  return { blobId, sha256: packed.sha256, size, entries: packed.entries, tarSize: packed.tarSize, manifestRoot: packed.manifestRoot };
}

/**
 * Downloads the artifact `ref.blobId` (one blob, or the blobs its index lists, one at a time) and unpacks it into
 * `dir`, refusing it unless its tar hashes to `ref.sha256` (then `dir` is left empty).
 */
export async function fetchArtifact(deps: ArtifactDeps & { unseal?: Unseal }, ref: Pick<ArtifactRef, 'blobId' | 'sha256'>, dir: string, progress: boolean): Promise<{ entries: number; size: number; tarSize: number }> {
  const { log } = deps;
  const { total, blobs } = await openArtifact(deps.blobStore, ref.blobId, deps.unseal);
  const started = Date.now();
  let received = 0;
  async function* download(): AsyncGenerator<Uint8Array> {
    for await (const bytes of blobs) {
      received += bytes.byteLength;
      if (progress) log.progress(`Receiving artifact: ${Math.floor((received * 100) / Math.max(total, 1))}%, ${formatBytes(received)} | ${rateOf(received, started)}`);
      yield bytes;
    }
  }
  const unpacked = await deps.archive.unpack(download(), dir, ref.sha256, ref.blobId);
  if (progress) log.progress(`Receiving artifact: 100%, ${formatBytes(received)}, ${unpacked.entries} entries, done.`, true);
  return { ...unpacked, size: received };
}

/**
 * The sha256 of the artifact `blobId`'s tar stream (its identity, what a build reports and a deploy record names),
 * computed while downloading, nothing written: what `git walrus deployments --verify` checks a record against.
 */
export async function artifactSha256(deps: { blobStore: Pick<BlobStore, 'read'>; archive: Pick<TreeArchive, 'sha256'> }, blobId: string, unseal?: Unseal): Promise<string> {
  const { blobs } = await openArtifact(deps.blobStore, blobId, unseal);
  return deps.archive.sha256(blobs);
}

/** The blobs an artifact is stored in: its one blob, or its index and the chunks the index lists. */
export async function artifactBlobIds(blobStore: Pick<BlobStore, 'read'>, blobId: string): Promise<string[]> {
  const first = await blobStore.read(blobId);
  if (isGzip(first) || startsWith(first, SEALED_MAGIC)) return [blobId];
  return [blobId, ...parseIndex(blobId, first).chunks];
}

/**
 * The compressed tarball of an artifact in pieces, in order (its blobs: one, or those its index lists, read one at a
 * time; decrypted as they arrive when it is sealed), and the stored size.
 */
async function openArtifact(blobStore: Pick<BlobStore, 'read'>, blobId: string, unseal?: Unseal): Promise<{ total: number; blobs: AsyncGenerator<Uint8Array> }> {
  const first = await blobStore.read(blobId);
  const index = isGzip(first) || startsWith(first, SEALED_MAGIC) ? null : parseIndex(blobId, first);
  async function* stored(): AsyncGenerator<Uint8Array> {
    if (index === null) {
      yield first;
      return;
    }
    for (const chunk of index.chunks) yield await blobStore.read(chunk);
  }
  async function* plain(): AsyncGenerator<Uint8Array> {
    const blobs = stored();
    const head = await blobs.next();
    if (head.done || !startsWith(head.value, SEALED_MAGIC)) {
      if (!head.done) yield head.value;
      yield* blobs;
      return;
    }
    const { sealedKey, rest } = parseSealedHeader(blobId, head.value);
    if (unseal === undefined) throw new SealedArtifactError(blobId);
    const decryptor = await unseal(sealedKey);
    yield* decryptor.update(rest);
    for await (const bytes of blobs) yield* decryptor.update(bytes);
    yield decryptor.end();
  }
  return { total: index?.size ?? first.byteLength, blobs: plain() };
}

/** Whether `bytes` is the start of a sealed artifact (what anyone can tell without a key). */
export function isSealedArtifactStart(bytes: Uint8Array): boolean {
  return startsWith(bytes, SEALED_MAGIC);
}

function sealedHeader(sealedKey: string): Uint8Array {
  const key = Buffer.from(sealedKey, 'hex');
  const header = new Uint8Array(SEALED_MAGIC.length + 2 + key.length);
  header.set(SEALED_MAGIC);
  new DataView(header.buffer).setUint16(SEALED_MAGIC.length, key.length);
  header.set(key, SEALED_MAGIC.length + 2);
  return header;
}

function parseSealedHeader(blobId: string, bytes: Uint8Array): { sealedKey: string; rest: Uint8Array } {
  const start = SEALED_MAGIC.length + 2;
  const length = bytes.length >= start ? new DataView(bytes.buffer, bytes.byteOffset).getUint16(SEALED_MAGIC.length) : 0;
  if (length === 0 || bytes.length < start + length) throw new MalformedArchiveError(`blob ${blobId} is cut short inside its sealed-artifact header`, { blobId });
  return { sealedKey: Buffer.from(bytes.subarray(start, start + length)).toString('hex'), rest: bytes.subarray(start + length) };
}

function startsWith(bytes: Uint8Array, magic: readonly number[]): boolean {
  return magic.every((byte, i) => bytes[i] === byte);
}

function isGzip(bytes: Uint8Array): boolean {
  return startsWith(bytes, GZIP_MAGIC);
}

function parseIndex(blobId: string, bytes: Uint8Array): ArtifactIndex {
  let index: Partial<ArtifactIndex> | null = null;
  try {
    index = JSON.parse(new TextDecoder().decode(bytes)) as Partial<ArtifactIndex>;
  } catch {
    // neither gzip nor JSON: reported below
  }
  if (index?.format !== INDEX_FORMAT || !Array.isArray(index.chunks) || index.chunks.some((c) => typeof c !== 'string') || !Number.isSafeInteger(index.size)) {
    throw new MalformedArchiveError(`blob ${blobId} is neither a gzip-compressed tarball nor an artifact index`, { blobId });
  }
  return index as ArtifactIndex;
}
