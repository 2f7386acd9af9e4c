/**
 * What the chain's events say about repositories beyond their current state: every repository the registry ever
 * created, and each change of a repository's access (writers, readers, protected refs, head, owner) with the
 * transaction that made it. Implemented over `client.core` by src/sui/directory.ts; read by `git walrus web`.
 */

/** A `RepositoryCreated` event. */
export interface CreatedRepository {
  id: string;
  owner: string;
  name: string;
  txDigest: string;
  /** The checkpoint the transaction landed in, where the network says. */
  checkpoint: number | null;
}

export type AccessChangeKind =
  | 'writer-added'
  | 'writer-removed'
  | 'reader-added'
  | 'reader-removed'
  | 'ref-protected'
  | 'ref-unprotected'
  | 'head-set'
  | 'ownership-transferred';

/** One access event of a repository: `subject` is the address, ref or head it is about (the new owner for a transfer). */
export interface AccessChange {
  kind: AccessChangeKind;
  subject: string;
  txDigest: string;
  checkpoint: number | null;
  /** When its checkpoint was made, where the network says. */
  timestampMs: number | null;
}

export interface RepositoryDirectory {
  /** Every repository of the package, in creation order. */
  listRepositories(): Promise<CreatedRepository[]>;
  /** Every access change of one repository, oldest first, each with its transaction's time. */
  listAccessChanges(id: string): Promise<AccessChange[]>;
  /** How many times a member of one repository lost access so far: writers and readers removed, ownership transferred. */
  countRemovals(id: string): Promise<number>;
}
