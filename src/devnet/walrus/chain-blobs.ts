import { randomBytes } from 'node:crypto';
import { normalizeSuiAddress } from '@mysten/sui/utils';
import { blobIdToU256 } from '../../core/blob-id-codec.ts';
import type { ChainEngine } from '../chain/engine.ts';
import { normalizeType } from '../chain/move-types.ts';
import { BLOB_TYPE, blobObjectContents } from '../chain/walrus-system-package.ts';
import { BlobLayout } from '../../walrus-protocol/blob-object-bcs.ts';

/**
 * The devnet chain as the devnet Walrus service sees it: every store that Walrus answers `newlyCreated` leaves a
 * certified Blob object on the chain, owned by `send_object_to` or else by the publisher; a blob is stored as long
 * as one of its Blob objects is, and from there on its owner extends or deletes it by transaction. The service keeps
 * only the ids of a blob's Blob objects; the chain is the truth about their end epochs.
 */
export interface WalrusChain {
  /** Creates the certified Blob object of a new store (what the publisher's register and certify leave). */
  createBlob(blob: { blobId: string; size: number; encodedLength: number; epoch: number; endEpoch: number; deletable: boolean }, owner: string | undefined): Promise<string>;
  /** A Blob object's storage end and deletability now; null once deleted (or burned). */
  blobObject(objectId: string): Promise<{ endEpoch: number; deletable: boolean } | null>;
}

/** The devnet publisher's own address: it holds the Blob objects of stores that name no `send_object_to`. */
export const DEVNET_PUBLISHER_ADDRESS = normalizeSuiAddress(`0x${Buffer.from('walrus devnet publisher').toString('hex')}`);

export function engineWalrusChain(engine: ChainEngine): WalrusChain {
  return {
    async createBlob(blob, owner) {
      const objectId = normalizeSuiAddress(`0x${randomBytes(32).toString('hex')}`);
      const contents = blobObjectContents({
        objectId, storageId: normalizeSuiAddress(`0x${randomBytes(32).toString('hex')}`), blobIdValue: blobIdToU256(blob.blobId), size: blob.size,
        encodedLength: blob.encodedLength, epoch: blob.epoch, endEpoch: blob.endEpoch, deletable: blob.deletable,
      });
      await engine.putSystemObjects([{ id: objectId, type: BLOB_TYPE, owner: { $kind: 'AddressOwner', AddressOwner: normalizeSuiAddress(owner ?? DEVNET_PUBLISHER_ADDRESS) }, contents, hasPublicTransfer: true }]);
      return objectId;
    },
    async blobObject(objectId) {
      await engine.refresh();
      const object = engine.object(objectId);
      if (object === undefined || object.type !== normalizeType(BLOB_TYPE)) return null;
      const blob = BlobLayout.parse(object.contents);
      return { endEpoch: blob.storage.end_epoch, deletable: blob.deletable };
    },
  };
}

