import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { Ed25519Keypair } from '@mysten/sui/keypairs/ed25519';
import { SuiLedger } from '../../src/sui/ledger.ts';
import { TransactionFailedError } from '../../src/sui/errors.ts';
import { MAX_DYNAMIC_FIELD_ACCESSES } from '../../src/core/sui-limits.ts';
import type { RefUpdate } from '../../src/ports/ledger.ts';
import { FRONTS, type Front } from './fronts.ts';

const oid = (n: number) => n.toString(16).padStart(40, '0');
const create = (i: number): RefUpdate => ({ name: `refs/t/c${i}`, old: null, new: oid(i + 1), force: false });
const range = (from: number, to: number) => Array.from({ length: to - from }, (_, i) => from + i);

for (const factory of FRONTS) {
  const test = suite<{ front: Front; ledger: SuiLedger }>(`Sui transaction limits on the devnet (${factory.name})`);

  test.before(async (context) => {
    context.front = await factory.open();
    const key = Ed25519Keypair.generate();
    await context.front.faucet(key.toSuiAddress());
    context.ledger = new SuiLedger({ client: context.front.client, signer: key, packageId: context.front.packageId, registryId: context.front.registryId });
  });

  test.after(async ({ front }) => {
    await front.close();
  });

  // A created ref loads two dynamic fields (its Table entry and its count of refs below it, which the file/directory
  // clash check reads) and each directory of its name two more (refs, refs/t): 498 creations load 1,000, 499 one too many.
  test(`a push touching ${MAX_DYNAMIC_FIELD_ACCESSES} dynamic fields executes; one more fails as Sui's object runtime fails it, and changes nothing`, async ({ ledger }) => {
    const { id } = await ledger.createRepository('crowd');
    await ledger.push(id, range(0, 498).map(create), null);
    const before = await ledger.getRepository(id);
    try {
      await ledger.push(id, range(498, 997).map(create), null);
      assert.unreachable('1,002 dynamic-field accesses executed');
    } catch (error) {
      assert.instance(error, TransactionFailedError);
      assert.match((error as Error).message, /MovePrimitiveRuntimeError/);
    }
    const after = await ledger.getRepository(id);
    assert.is(after.seq, before.seq);
    assert.is((await ledger.listRefs(id)).size, 498);
  });

  test.run();
}
