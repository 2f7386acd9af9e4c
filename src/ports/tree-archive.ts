/**
 * A directory tree as one deterministic, compressed archive (an app artifact's bytes): what the artifact use-case
 * (src/remote/artifacts.ts) stores on Walrus. The filesystem adapter (src/fs/tarball.ts) writes and reads it.
 */

export interface PackedTree {
  /** sha256 of the uncompressed archive stream, lowercase hex: the artifact's identity. */
  sha256: string;
  /** Bytes of the uncompressed archive stream. */
  tarSize: number;
  entries: number;
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
