import type { Log } from '../../core/log.ts';
import type { BlobStore } from '../../ports/blob-store.ts';
import { formatBytes, rateOf } from '../../remote/progress.ts';
import { MalformedArchiveError } from './errors.ts';
import { packTree, unpackTarball } from './tarball.ts';

/**
 * Artifacts on Walrus. An artifact is the gzip-compressed deterministic tarball of a build's tree (tarball.ts). One
 * that fits one blob is stored as that blob; a larger one is cut into blobs of the store's maximum size, and a small
 * JSON index blob lists them: the artifact's blob id is then the index's. Either way the reader knows which it got
 * from the first bytes (gzip's magic number versus `{`), and the sha256 of the unpacked tar is checked at the end,
 * so a forged index gains nothing.
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
  log: Log;
}

const INDEX_FORMAT = 'walrus-git-artifact/1';
const GZIP_MAGIC = [0x1f, 0x8b];

interface ArtifactIndex {
  format: typeof INDEX_FORMAT;
  size: number;
  chunks: string[];
}

/**
 * Packs `root` and stores it on Walrus: compression and upload overlap, and at most one blob's bytes are held (the
 * compressor waits while a full chunk uploads).
 */
export async function publishArtifact(deps: ArtifactDeps, root: string, progress: boolean): Promise<ArtifactRef & { entries: number; tarSize: number }> {
  const { blobStore, log } = deps;
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
  const packed = await packTree(root, async (piece) => {
    let offset = 0;
    while (offset < piece.byteLength) {
      if (filled === max) await flush();
      const take = Math.min(max - filled, piece.byteLength - offset);
      buffer.set(piece.subarray(offset, offset + take), filled);
      filled += take;
      offset += take;
      size += take;
    }
  });
  if (filled > 0 || chunks.length === 0) await flush();
  buffer = new Uint8Array(0);
  let blobId = chunks[0];
  if (chunks.length > 1) {
    const index: ArtifactIndex = { format: INDEX_FORMAT, size, chunks };
    blobId = (await blobStore.write(new TextEncoder().encode(JSON.stringify(index)))).blobId;
  }
  await blobStore.release?.();
  if (progress) log.progress(`Uploading artifact: ${packed.entries} entries, ${formatBytes(packed.tarSize)} packed into ${formatBytes(size)} in ${chunks.length} blob${chunks.length > 1 ? 's' : ''}, done.`, true);
  return { blobId, sha256: packed.sha256, size, entries: packed.entries, tarSize: packed.tarSize };
}

/**
 * Downloads the artifact `ref.blobId` (one blob, or the blobs its index lists, one at a time) and unpacks it into
 * `dir`, refusing it unless its tar hashes to `ref.sha256` (then `dir` is left empty).
 */
export async function fetchArtifact(deps: ArtifactDeps, ref: Pick<ArtifactRef, 'blobId' | 'sha256'>, dir: string, progress: boolean): Promise<{ entries: number; size: number; tarSize: number }> {
  const { blobStore, log } = deps;
  const first = await blobStore.read(ref.blobId);
  const index = isGzip(first) ? null : parseIndex(ref.blobId, first);
  const total = index?.size ?? first.byteLength;
  const started = Date.now();
  let received = 0;
  async function* download(): AsyncGenerator<Uint8Array> {
    const blobs = index === null ? [first] : index.chunks;
    for (const blob of blobs) {
      const bytes = typeof blob === 'string' ? await blobStore.read(blob) : blob;
      received += bytes.byteLength;
      if (progress) log.progress(`Receiving artifact: ${Math.floor((received * 100) / Math.max(total, 1))}%, ${formatBytes(received)} | ${rateOf(received, started)}`);
      yield bytes;
    }
  }
  const unpacked = await unpackTarball(download(), dir, ref.sha256, ref.blobId);
  if (progress) log.progress(`Receiving artifact: 100%, ${formatBytes(received)}, ${unpacked.entries} entries, done.`, true);
  return { ...unpacked, size: received };
}

function isGzip(bytes: Uint8Array): boolean {
  return bytes[0] === GZIP_MAGIC[0] && bytes[1] === GZIP_MAGIC[1];
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
