/**
 * Walrus Blob objects on Sui: what keeps a blob stored, owned by whoever stored it. Only their owner extends them
 * (`system::extend_blob`, paid in WAL) or deletes a deletable one (`system::delete_blob`); a blob lives as long as its
 * longest-lived Blob object. Implemented by src/walrus/blob-objects.ts over `client.core`, on every network.
 */
export interface BlobObjects {
  /** The address that owns and pays (the user's key). */
  owner(): Promise<string>;
  /** The owner's certified Blob objects of these blob ids (a blob id may have several, or none). */
  owned(blobIds: readonly string[]): Promise<Map<string, OwnedBlob[]>>;
  /** Extends each Blob object by its number of epochs, in one transaction paid in WAL by the owner. */
  extend(extensions: readonly { objectId: string; epochs: number }[]): Promise<{ digest: string }>;
  /** Deletes deletable Blob objects (their storage resources go back to the owner), in one transaction. */
  delete(objectIds: readonly string[]): Promise<{ digest: string }>;
}

export interface OwnedBlob {
  objectId: string;
  blobId: string;
  /** Exclusive end epoch of its storage. */
  endEpoch: number;
  deletable: boolean;
  /** Bytes of encoded storage it holds (what extending it costs per epoch, and what deleting it frees). */
  storageSize: number;
}
