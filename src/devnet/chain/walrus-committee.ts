import { bcs } from '@mysten/sui/bcs';
import { deriveDynamicFieldID, normalizeSuiAddress } from '@mysten/sui/utils';
import { deriveObjectId } from './objects.ts';
import { SYSTEM_TRANSACTIONS, WALRUS_POOLS_TABLE_ID, WALRUS_STAKING_OBJECT_ID, WALRUS_SYSTEM_OBJECT_ID, WALRUS_SYSTEM_PACKAGE_ID } from './fixed-ids.ts';

/**
 * The Walrus objects that name the storage committee, as the walrus contracts lay them out
 * (`system_state_inner::SystemStateInnerV1` under the System object, `staking_inner::StakingInnerV1` under the
 * Staking object, one `staking_pool::StakingPool` per node with its `storage_node::StorageNodeInfo`): what the Walrus
 * SDK reads to find each node's address, BLS key and shards, and what `certify_blob` checks a certificate against.
 * Only the fields the devnet gives meaning to carry data; the rest are empty, in their real layout.
 */

const Element = bcs.struct('Element', { bytes: bcs.vector(bcs.u8()) });
const Balance = bcs.struct('Balance', { value: bcs.u64() });
const Handle = bcs.struct('Table', { id: bcs.Address, size: bcs.u64() });
const ExtendedField = bcs.struct('ExtendedField', { id: bcs.Address });

export const BlsCommitteeLayout = bcs.struct('BlsCommittee', {
  members: bcs.vector(bcs.struct('BlsCommitteeMember', { public_key: Element, weight: bcs.u16(), node_id: bcs.Address })),
  n_shards: bcs.u16(),
  epoch: bcs.u32(),
  total_aggregated_key: Element,
});

const EventBlob = bcs.struct('EventBlob', { blob_id: bcs.u256(), ending_checkpoint_sequence_number: bcs.u64() });

export const SystemStateInnerLayout = bcs.struct('SystemStateInnerV1', {
  committee: BlsCommitteeLayout,
  total_capacity_size: bcs.u64(),
  used_capacity_size: bcs.u64(),
  storage_price_per_unit_size: bcs.u64(),
  write_price_per_unit_size: bcs.u64(),
  future_accounting: bcs.struct('FutureAccountingRingBuffer', {
    current_index: bcs.u32(), length: bcs.u32(),
    ring_buffer: bcs.vector(bcs.struct('FutureAccounting', { epoch: bcs.u32(), used_capacity: bcs.u64(), rewards_to_distribute: Balance })),
  }),
  event_blob_certification_state: bcs.struct('EventBlobCertificationState', { latest_certified_blob: bcs.option(EventBlob), aggregate_weight_per_blob: bcs.struct('VecMap', { contents: bcs.vector(bcs.struct('Entry', { key: EventBlob, value: bcs.u16() })) }) }),
  deny_list_sizes: ExtendedField,
});

const ShardMap = bcs.struct('VecMap', { contents: bcs.vector(bcs.struct('Entry', { key: bcs.Address, value: bcs.vector(bcs.u16()) })) });
const PendingValues = bcs.struct('PendingValues', { contents: bcs.vector(bcs.struct('Entry', { key: bcs.u32(), value: bcs.u64() })) });

const StakingLayout = bcs.struct('Staking', { id: bcs.Address, version: bcs.u64(), package_id: bcs.Address, new_package_id: bcs.option(bcs.Address) });

const StakingInnerLayout = bcs.struct('StakingInnerV1', {
  n_shards: bcs.u16(),
  epoch_duration: bcs.u64(),
  first_epoch_start: bcs.u64(),
  pools: Handle,
  epoch: bcs.u32(),
  active_set: ExtendedField,
  next_committee: bcs.option(ShardMap),
  committee: ShardMap,
  previous_committee: ShardMap,
  next_epoch_params: bcs.option(bcs.struct('EpochParams', { total_capacity_size: bcs.u64(), storage_price_per_unit_size: bcs.u64(), write_price_per_unit_size: bcs.u64() })),
  epoch_state: bcs.enum('EpochState', { EpochChangeSync: bcs.u16(), EpochChangeDone: bcs.u64(), NextParamsSelected: bcs.u64() }),
  next_epoch_public_keys: ExtendedField,
});

const Authorized = bcs.enum('Authorized', { Address: bcs.Address, ObjectID: bcs.Address });

export const StakingPoolLayout = bcs.struct('StakingPool', {
  id: bcs.Address,
  state: bcs.enum('PoolState', { Active: null, Withdrawing: bcs.u32(), Withdrawn: null }),
  voting_params: bcs.struct('VotingParams', { storage_price: bcs.u64(), write_price: bcs.u64(), node_capacity: bcs.u64() }),
  node_info: bcs.struct('StorageNodeInfo', {
    name: bcs.string(), node_id: bcs.Address, network_address: bcs.string(), public_key: Element,
    next_epoch_public_key: bcs.option(Element), network_public_key: bcs.vector(bcs.u8()), metadata: ExtendedField,
  }),
  activation_epoch: bcs.u32(),
  latest_epoch: bcs.u32(),
  wal_balance: bcs.u64(),
  num_shares: bcs.u64(),
  pending_shares_withdraw: PendingValues,
  pre_active_withdrawals: PendingValues,
  pending_commission_rate: PendingValues,
  commission_rate: bcs.u16(),
  exchange_rates: Handle,
  pending_stake: PendingValues,
  rewards_pool: Balance,
  commission: Balance,
  commission_receiver: Authorized,
  governance_authorized: Authorized,
  extra_fields: Handle,
});

/** Devnet prices in FROST per MiB of encoded size: storage per epoch, and writing once (the publisher charges the same). */
export const STORAGE_PRICE_PER_UNIT = 100_000n;
export const WRITE_PRICE_PER_UNIT = 20_000n;

const pkg = WALRUS_SYSTEM_PACKAGE_ID;
export const STAKING_TYPE = `${pkg}::staking::Staking`;
export const STAKING_POOL_TYPE = `${pkg}::staking_pool::StakingPool`;
export const SYSTEM_INNER_TYPE = `0x2::dynamic_field::Field<u64, ${pkg}::system_state_inner::SystemStateInnerV1>`;
const STAKING_INNER_TYPE = `0x2::dynamic_field::Field<u64, ${pkg}::staking_inner::StakingInnerV1>`;
/** The inner objects' version: the key of the dynamic field under System and Staking. */
export const INNER_VERSION = 1n;
const versionKey = () => bcs.u64().serialize(INNER_VERSION).toBytes();

/** Each storage node's id (its StakingPool's): created by the Walrus genesis transaction, from index 100 on. */
const FIRST_POOL_INDEX = 100;
export const storageNodeId = (index: number) => deriveObjectId(SYSTEM_TRANSACTIONS.walrusGenesis.digest, FIRST_POOL_INDEX + index);

export const systemInnerFieldId = () => deriveDynamicFieldID(WALRUS_SYSTEM_OBJECT_ID, 'u64', versionKey());

export interface CommitteeMember {
  /** `host:port`, as `StorageNodeInfo.network_address` holds it (the SDK puts its URL scheme in front). */
  networkAddress: string;
  /** Compressed G1 point, 48 bytes. */
  publicKey: Uint8Array;
  shards: number[];
}

export interface CommitteeObject {
  id: string;
  type: string;
  owner: { $kind: 'Shared'; Shared: { initialSharedVersion: string } } | { $kind: 'ObjectOwner'; ObjectOwner: string };
  contents: Uint8Array;
}

/** A dynamic field object's contents: its id, then the key's and the value's BCS (`dynamic_field::Field`). */
function field(id: string, key: Uint8Array, value: Uint8Array): Uint8Array {
  return new Uint8Array([...bcs.Address.serialize(id).toBytes(), ...key, ...value]);
}

/**
 * Every object naming the committee of `epoch`: the System's inner state (committee, prices), the Staking object and
 * its inner state (each node's shards), and one StakingPool per node. Weights are shard counts, as on Walrus.
 */
export function committeeObjects(members: CommitteeMember[], options: { epoch: number; numShards: number; totalAggregatedKey: Uint8Array }): CommitteeObject[] {
  const zero = normalizeSuiAddress('0x0');
  const shared = { $kind: 'Shared', Shared: { initialSharedVersion: '1' } } as const;
  const inner = SystemStateInnerLayout.serialize({
    committee: {
      members: members.map((member, index) => ({ public_key: { bytes: [...member.publicKey] }, weight: member.shards.length, node_id: storageNodeId(index) })),
      n_shards: options.numShards, epoch: options.epoch, total_aggregated_key: { bytes: [...options.totalAggregatedKey] },
    },
    total_capacity_size: 1n << 50n, used_capacity_size: 0n,
    storage_price_per_unit_size: STORAGE_PRICE_PER_UNIT, write_price_per_unit_size: WRITE_PRICE_PER_UNIT,
    future_accounting: { current_index: 0, length: 0, ring_buffer: [] },
    event_blob_certification_state: { latest_certified_blob: null, aggregate_weight_per_blob: { contents: [] } },
    deny_list_sizes: { id: zero },
  }).toBytes();
  const shardMap = { contents: members.map((member, index) => ({ key: storageNodeId(index), value: member.shards })) };
  const stakingInner = StakingInnerLayout.serialize({
    // The devnet's epochs follow its Walrus service's clock; the committee's own timing fields are left empty.
    n_shards: options.numShards, epoch_duration: 0n, first_epoch_start: 0n,
    pools: { id: WALRUS_POOLS_TABLE_ID, size: BigInt(members.length) }, epoch: options.epoch, active_set: { id: zero },
    next_committee: null, committee: shardMap, previous_committee: { contents: [] }, next_epoch_params: null,
    epoch_state: { EpochChangeDone: 0n }, next_epoch_public_keys: { id: zero },
  }).toBytes();
  const stakingInnerId = deriveDynamicFieldID(WALRUS_STAKING_OBJECT_ID, 'u64', versionKey());
  const pendingNone = { contents: [] };
  const pools = members.map((member, index): CommitteeObject => ({
    id: storageNodeId(index), type: STAKING_POOL_TYPE, owner: { $kind: 'ObjectOwner', ObjectOwner: WALRUS_POOLS_TABLE_ID },
    contents: StakingPoolLayout.serialize({
      id: storageNodeId(index), state: { Active: true }, voting_params: { storage_price: STORAGE_PRICE_PER_UNIT, write_price: WRITE_PRICE_PER_UNIT, node_capacity: 1n << 40n },
      node_info: { name: `devnet-node-${index}`, node_id: storageNodeId(index), network_address: member.networkAddress, public_key: { bytes: [...member.publicKey] }, next_epoch_public_key: null, network_public_key: [], metadata: { id: zero } },
      activation_epoch: 1, latest_epoch: options.epoch, wal_balance: 0n, num_shares: 0n,
      pending_shares_withdraw: pendingNone, pre_active_withdrawals: pendingNone, pending_commission_rate: pendingNone, commission_rate: 0,
      exchange_rates: { id: zero, size: 0n }, pending_stake: pendingNone, rewards_pool: { value: 0n }, commission: { value: 0n },
      commission_receiver: { Address: zero }, governance_authorized: { Address: zero }, extra_fields: { id: zero, size: 0n },
    }).toBytes(),
  }));
  return [
    { id: systemInnerFieldId(), type: SYSTEM_INNER_TYPE, owner: { $kind: 'ObjectOwner', ObjectOwner: WALRUS_SYSTEM_OBJECT_ID }, contents: field(systemInnerFieldId(), versionKey(), inner) },
    { id: WALRUS_STAKING_OBJECT_ID, type: STAKING_TYPE, owner: shared, contents: StakingLayout.serialize({ id: WALRUS_STAKING_OBJECT_ID, version: INNER_VERSION, package_id: pkg, new_package_id: null }).toBytes() },
    { id: stakingInnerId, type: STAKING_INNER_TYPE, owner: { $kind: 'ObjectOwner', ObjectOwner: WALRUS_STAKING_OBJECT_ID }, contents: field(stakingInnerId, versionKey(), stakingInner) },
    ...pools,
  ];
}
