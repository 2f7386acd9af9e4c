/**
 * The devnet key servers' registration on chain, as Seal's `key_server` module (MystenLabs/seal
 * `move/seal/sources/key_server.move`) leaves it after `create_and_transfer_v2_independent_server`: a
 * `KeyServer { id, first_version: 2, last_version: 2 }` object, and under it a dynamic field keyed `2u64` holding
 * `KeyServerV2 { name, key_type: 0, pk, server_type: Independent { url } }`. The SDK reads exactly these
 * (`retrieveKeyServers`: `getObject` of the server, then `getDynamicField` of the version).
 */
import { bcs } from '@mysten/sui/bcs';
import { deriveDynamicFieldID, normalizeSuiAddress } from '@mysten/sui/utils';
import type { SystemObject } from '../chain/engine.ts';

/** Where the devnet's Seal package lives: its types name the key-server objects (the SDK does not check them). */
export const DEVNET_SEAL_PACKAGE_ID = '0xded4537927148cb645500abebd8a36a73f1f2bc3104f70b5662ac8de87024c40';
/** The key-server objects are owned by the operator; on the devnet that is nobody's key. */
const OPERATOR = normalizeSuiAddress('0x0');
const VERSION = 2n;

export const KeyServer = bcs.struct('KeyServer', { id: bcs.Address, first_version: bcs.u64(), last_version: bcs.u64() });
const PartialKeyServer = bcs.struct('PartialKeyServer', { name: bcs.string(), url: bcs.string(), partial_pk: bcs.byteVector(), party_id: bcs.u16() });
export const KeyServerV2 = bcs.struct('KeyServerV2', {
  name: bcs.string(),
  key_type: bcs.u8(),
  pk: bcs.byteVector(),
  server_type: bcs.enum('ServerType', {
    Independent: bcs.struct('Independent', { url: bcs.string() }),
    Committee: bcs.struct('Committee', { version: bcs.u32(), threshold: bcs.u16(), partial_key_servers: bcs.vector(PartialKeyServer) }),
  }),
});
const VersionField = bcs.struct('Field', { id: bcs.Address, name: bcs.u64(), value: KeyServerV2 });

export interface KeyServerRegistration {
  objectId: string;
  name: string;
  url: string;
  /** The 96-byte compressed G2 public key. */
  publicKey: Uint8Array;
}

/** The objects one key server's registration consists of. */
export function keyServerObjects(server: KeyServerRegistration): SystemObject[] {
  const id = normalizeSuiAddress(server.objectId);
  const name = bcs.u64().serialize(VERSION).toBytes();
  const fieldId = deriveDynamicFieldID(id, 'u64', name);
  const value = { name: server.name, key_type: 0, pk: server.publicKey, server_type: { Independent: { url: server.url } } };
  return [
    {
      id,
      type: `${DEVNET_SEAL_PACKAGE_ID}::key_server::KeyServer`,
      owner: { $kind: 'AddressOwner', AddressOwner: OPERATOR },
      contents: KeyServer.serialize({ id, first_version: VERSION, last_version: VERSION }).toBytes(),
    },
    {
      id: fieldId,
      type: `0x2::dynamic_field::Field<u64,${DEVNET_SEAL_PACKAGE_ID}::key_server::KeyServerV2>`,
      owner: { $kind: 'ObjectOwner', ObjectOwner: id },
      contents: VersionField.serialize({ id: fieldId, name: VERSION, value }).toBytes(),
    },
  ];
}
