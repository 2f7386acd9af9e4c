/**
 * A directory tree as one deterministic, compressed archive (an app artifact's bytes): what the artifact use-case
 * (src/remote/artifacts.ts) stores on Walrus. The filesystem adapter (src/fs/tarball.ts) writes and reads it.
 */

import type { ManifestEntry } from '../core/manifest-root.ts';

/**
 * The directory a reproducible build writes its report into (tools, resolved dependencies, scripts that ran), at the
 * tree's top: never part of the archive, as `.git` is not.
 */
export const BUILD_REPORT_DIR = '.walrus-build';

export interface PackedTree {
  /** sha256 of the uncompressed archive stream, lowercase hex: the artifact's identity. */
  sha256: string;
  /** Bytes of the uncompressed archive stream. */
  tarSize: number;
  entries: number;
  /** The Merkle root over the files' (path, mode, sha256), core/manifest-root.ts. */
  manifestRoot: string;
  /** Those leaves, in archive order: what names the differing files when two builds disagree. */
  manifest: ManifestEntry[];
}

export interface UnpackedTree {
  entries: number;
  tarSize: number;
}

export interface TreeArchive {
  /** Packs the tree at `root`, handing the compressed archive to `sink` piece by piece (it may apply backpressure). */
  pack(root: string, sink: (compressed: Uint8Array) => Promise<void>): Promise<PackedTree>;
  /**
   * Unpacks a compressed archive into `dir` (created if missing; it must be empty), refusing it unless its
   * uncompressed stream hashes to `expectedSha256`; whatever fails, `dir` is left empty. `label` names it in errors.
   */
  unpack(source: AsyncIterable<Uint8Array>, dir: string, expectedSha256: string, label: string): Promise<UnpackedTree>;
  /** The sha256 of a compressed archive's uncompressed stream, nothing written. */
  sha256(source: AsyncIterable<Uint8Array>): Promise<string>;
}
