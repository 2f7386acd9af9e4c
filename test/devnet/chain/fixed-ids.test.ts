import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { toBase58 } from '@mysten/sui/utils';
import { deriveObjectId } from '../../../src/devnet/chain/objects.ts';
import { hashTyped } from '../../../src/light-client/digests.ts';
import { DEVNET_PACKAGE_ID, SYSTEM_TRANSACTIONS, WAL_RESERVE_COIN_ID, WALRUS_POOLS_TABLE_ID, WALRUS_STAKING_OBJECT_ID, WALRUS_SYSTEM_OBJECT_ID, WALRUS_SYSTEM_PACKAGE_ID } from '../../../src/devnet/chain/fixed-ids.ts';

test('each system transaction digest is the typed hash of its seed', () => {
  for (const [name, { seed, digest }] of Object.entries(SYSTEM_TRANSACTIONS)) {
    assert.is(toBase58(hashTyped('TransactionData', new TextEncoder().encode(seed))), digest, name);
  }
});

test('the fixed ids are the objects their transactions create, at their creation indices', () => {
  assert.is(deriveObjectId(SYSTEM_TRANSACTIONS.genesis.digest, 0), DEVNET_PACKAGE_ID);
  const walrus = SYSTEM_TRANSACTIONS.walrusGenesis.digest;
  assert.equal([0, 1, 2, 3, 4].map((index) => deriveObjectId(walrus, index)), [WALRUS_SYSTEM_PACKAGE_ID, WALRUS_SYSTEM_OBJECT_ID, WAL_RESERVE_COIN_ID, WALRUS_STAKING_OBJECT_ID, WALRUS_POOLS_TABLE_ID]);
});

test.run();
