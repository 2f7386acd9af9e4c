import { UsageError } from '../core/errors.ts';
import type { Log } from '../core/log.ts';
import { formatOfHashLength, isObjectId } from '../core/object-id.ts';
import type { BlobStore } from '../ports/blob-store.ts';
import type { KeyService } from '../ports/key-service.ts';
import type { Ledger } from '../ports/ledger.ts';
import { CommitNotFoundError, CommitNotReachableError } from './errors.ts';
import { fetchObjects } from './fetch.ts';
import { readRemote } from './remote-state.ts';
import type { CreateClone } from '../ports/local-repository.ts';

export interface CheckoutDeps {
  ledger: Ledger;
  blobStore: BlobStore;
  /** Opens a private repository's packs: as a member, or as the provider of a lease (`KeyService.forLease`). */
  keyService?: KeyService;
  log: Log;
  createClone: CreateClone;
}

export interface CheckoutResult {
  commit: string;
  /** The branches and tags that reach the commit. */
  refs: string[];
  /** The commit's committer time, seconds since the epoch. */
  commitTime: number;
}

/**
 * Clones repository `repositoryId` into `dir` with every pack verified against its on-chain sha256 (the fetch of
 * docs/architecture.md, Fetch and clone), then checks `commit` out detached, refusing a commit no branch or tag
 * reaches. Without `commit`, the commit the repository's HEAD branch points to.
 */
export async function checkoutCommit(deps: CheckoutDeps, repositoryId: string, url: string, dir: string, commit: string | undefined, progress: boolean): Promise<CheckoutResult> {
  const { ledger, blobStore, log } = deps;
  const snapshot = await readRemote(ledger, repositoryId);
  const objectFormat = formatOfHashLength(snapshot.info.hashLength);
  if (objectFormat === null || snapshot.refs.size === 0) throw new UsageError(`repository ${repositoryId} has nothing pushed yet: there is no commit to check out`, { repository: repositoryId });
  const wanted = commit?.toLowerCase() ?? snapshot.refs.get(snapshot.info.head);
  if (wanted === undefined) throw new UsageError(`repository ${repositoryId} has no ${snapshot.info.head} (its HEAD); name the commit with --commit`, { repository: repositoryId });
  if (!isObjectId(wanted) || wanted.length !== (objectFormat === 'sha1' ? 40 : 64)) {
    throw new UsageError(`'${commit}' is not a full ${objectFormat} commit id (${objectFormat === 'sha1' ? 40 : 64} hex digits)`, { commit });
  }
  const clone = await deps.createClone(dir, { objectFormat, url });
  await fetchObjects({ ledger, blobStore, local: clone, log, ...(deps.keyService ? { keyService: deps.keyService } : {}) }, repositoryId, [...new Set(snapshot.refs.values())], progress, snapshot.info);
  await clone.setRemoteRefs(snapshot.refs);
  if (!(await clone.isCommit(wanted))) throw new CommitNotFoundError(repositoryId, wanted);
  const refs = await clone.refsContaining(wanted);
  if (refs.length === 0) throw new CommitNotReachableError(repositoryId, wanted);
  await clone.checkoutDetached(wanted);
  return { commit: wanted, refs, commitTime: await clone.commitTime(wanted) };
}
