/** How artifacts fail (src/ports/tree-archive.ts, src/remote/artifacts.ts); the archive adapter and the use-case throw them. */
import { WalrusGitError } from '../core/errors.ts';

/**
 * An archive entry would land outside the target directory (absolute path, `..`, a link leading out).
 * What to do: do not use this artifact: `git walrus artifact pack` never writes such an entry; build it again.
 */
export class UnsafeArchiveEntryError extends WalrusGitError {
  constructor(path: string, why: string) {
    super('ARTIFACT_UNSAFE_ENTRY', `refusing artifact entry '${path}': ${why}; nothing was left in the target directory`, { path, why });
  }
}

/**
 * The bytes are not a tarball this project writes (bad header, checksum, truncation, unsupported entry type).
 * What to do: pack the tree again with `git walrus artifact pack` and use the blob id and sha256 it prints.
 */
export class MalformedArchiveError extends WalrusGitError {
  constructor(why: string, data: Record<string, unknown> = {}) {
    super('ARTIFACT_MALFORMED', `the artifact is not a valid tarball: ${why}; nothing was left in the target directory`, data);
  }
}

/**
 * The unpacked tarball does not hash to the sha256 the caller expects: the store served other bytes.
 * What to do: check that the blob id and the sha256 come from the same build (its termination message), then fetch again.
 */
export class ArtifactDigestMismatchError extends WalrusGitError {
  constructor(blobId: string, expected: string, actual: string) {
    super(
      'ARTIFACT_SHA256_MISMATCH',
      `artifact ${blobId} unpacks to a tarball with sha256 ${actual}, but ${expected} was expected; nothing was left in the target directory (the store served other bytes, or the blob id and sha256 belong to different builds)`,
      { blobId, expected, actual },
    );
  }
}

/**
 * The tree holds something a tarball of an app cannot carry (a socket, a device, a FIFO), or changed while packed.
 * What to do: leave sockets, devices, FIFOs and links that lead out of the tree out of the build's output, and pack it once the build has finished writing.
 */
export class UnpackableTreeError extends WalrusGitError {
  constructor(path: string, why: string) {
    super('ARTIFACT_UNPACKABLE', `cannot pack '${path}': ${why}`, { path, why });
  }
}

/**
 * A sealed artifact (a private repository's build) was to be read without any way to ask for its key.
 * What to do: fetch it as a reader of the repository (its owner runs `git walrus readers add`) or as the provider of a lease on it (`--lease <id>`), on a network with Seal key servers.
 */
export class SealedArtifactError extends WalrusGitError {
  constructor(blobId: string) {
    super(
      'ARTIFACT_SEALED',
      `artifact ${blobId} is encrypted (the build of a private repository): only the repository's readers and the provider of a lease on it can open it, through the network's Seal key servers`,
      { blobId },
    );
  }
}
