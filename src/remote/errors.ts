import { WalrusGitError } from '../core/errors.ts';

/**
 * A pack's bytes do not hash to the sha256 the chain records for it: the store served corrupted data.
 * What to do: fetch again (another aggregator may serve the right bytes); if it persists, a writer with the objects runs `git walrus gc`.
 */
export class CorruptPackError extends WalrusGitError {
  constructor(repository: string, packIndex: number, expected: string, actual: string) {
    super(
      'PACK_CORRUPT',
      `pack ${packIndex} of repository ${repository} is corrupt: its bytes hash to sha256 ${actual}, but the chain records ${expected}; nothing was applied and no ref was changed (the blob store or aggregator served bad data)`,
      { repository, packIndex, expected, actual },
    );
  }
}

/**
 * A chunk of a pack is not on Walrus (deleted, or its storage ran out). Below `live_from` that is what `git walrus gc`
 * leaves after consolidating (src/remote/reclaim.ts), which a fetch handles itself; for a live pack it is data loss.
 * What to do: a writer with the objects stores them again (`git walrus gc`); `git walrus extend` keeps live packs from expiring.
 */
export class PackMissingError extends WalrusGitError {
  readonly packIndex: number;
  constructor(repository: string, packIndex: number, blobId: string, cause: Error) {
    super('PACK_MISSING', `pack ${packIndex} of repository ${repository} cannot be read: ${cause.message}`, { repository, packIndex, blobId }, { cause });
    this.packIndex = packIndex;
  }
}

/**
 * After applying every pack, an object the remote lists is still missing: the remote's packs are incomplete.
 * What to do: a writer with a complete clone pushes the refs again, or runs `git walrus gc` to store one pack of everything.
 */
export class MissingObjectsError extends WalrusGitError {
  constructor(repository: string, missing: string[]) {
    super('OBJECTS_MISSING', `repository ${repository} lists ${missing.join(', ')} but none of its packs contains ${missing.length > 1 ? 'them' : 'it'}`, { repository, missing });
  }
}

/**
 * The local repository and the remote use different object formats (SHA-1 vs SHA-256).
 * What to do: use a repository of the remote's object format (`git clone` of the remote makes one).
 */
export class ObjectFormatMismatchError extends WalrusGitError {
  constructor(remote: string, local: string) {
    super('OBJECT_FORMAT_MISMATCH', `the remote repository uses ${remote} object ids but this repository uses ${local}`, { remote, local });
  }
}

/**
 * A private repository (its id), or a lease's secrets (`{ secretsOf }`: the lease id), on a network whose
 * configuration names no Seal key servers: nothing can be sealed or opened.
 */
export class NoKeyServersError extends WalrusGitError {
  constructor(of: string | { secretsOf: string }) {
    const [repository, secretsOf] = typeof of === 'string' ? [of, undefined] : [undefined, of.secretsOf];
    const where = 'no Seal key servers are configured for this network (GIT_WALRUS_SEAL_KEY_SERVERS, or the network configuration)';
    super(
      'NO_KEY_SERVERS',
      secretsOf === undefined
        ? `repository ${repository} is private, and ${where}: name them to read or push it (README: Private repositories)`
        : `the secrets of lease ${secretsOf} are sealed with Seal, and ${where}: name them to set, list or read them`,
      secretsOf === undefined ? { repository } : { lease: secretsOf },
    );
  }
}

/**
 * `git walrus checkout --commit`: the repository's packs do not hold that commit at all.
 * What to do: check the commit id against what was pushed (`git walrus log`), or push the commit first.
 */
export class CommitNotFoundError extends WalrusGitError {
  constructor(repository: string, commit: string) {
    super('COMMIT_NOT_FOUND', `commit ${commit} is not in repository ${repository} (no pushed pack contains it)`, { repository, commit });
  }
}

/**
 * `git walrus checkout --commit`: the commit was pushed once but no branch or tag reaches it any more (a force-push
 * moved away from it): deploying it would bypass what the repository's refs say.
 * What to do: check out a commit a branch or tag reaches (`git walrus log`), or push a ref to that commit again.
 */
export class CommitNotReachableError extends WalrusGitError {
  constructor(repository: string, commit: string) {
    super('COMMIT_NOT_REACHABLE', `commit ${commit} is not reachable from any branch or tag of repository ${repository}; refusing to check it out`, { repository, commit });
  }
}

/** Clone or fetch with walrus.requireCertified, and the heads the node listed are not the certified ones. */
export class UncertifiedHeadsError extends WalrusGitError {
  constructor(id: string, problems: string[]) {
    super(
      'UNCERTIFIED_HEADS',
      `refusing the heads of repository ${id}: they cannot be proved against the validators' certificates (${problems.join('; ')}). ` +
        'Try again later or another RPC (walrus.certifiedRpcs); unset walrus.requireCertified to take the node\'s word',
      { id, problems },
    );
  }
}
