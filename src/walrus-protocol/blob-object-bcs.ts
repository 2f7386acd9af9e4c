import { bcs } from '@mysten/sui/bcs';

/**
 * BCS of the walrus package's objects as Sui stores them (contracts/walrus: `storage_resource::Storage`,
 * `blob::Blob`, `system::System`): read by the Blob-object adapter, written by the devnet's twin of the package.
 */
export const StorageLayout = bcs.struct('Storage', { id: bcs.Address, start_epoch: bcs.u32(), end_epoch: bcs.u32(), storage_size: bcs.u64() });

export const BlobLayout = bcs.struct('Blob', {
  id: bcs.Address,
  registered_epoch: bcs.u32(),
  blob_id: bcs.u256(),
  size: bcs.u64(),
  encoding_type: bcs.u8(),
  certified_epoch: bcs.option(bcs.u32()),
  storage: StorageLayout,
  deletable: bcs.bool(),
});

/** The shared System object: `package_id` is the package to call now (the type names the original one). */
export const SystemLayout = bcs.struct('System', { id: bcs.Address, version: bcs.u64(), package_id: bcs.Address, new_package_id: bcs.option(bcs.Address) });
