import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { readFileSync } from 'node:fs';
import { Ed25519Keypair } from '@mysten/sui/keypairs/ed25519';
import { Transaction } from '@mysten/sui/transactions';
import { SuiLedger } from '../../src/sui/ledger.ts';
import { u256ToBlobId } from '../../src/core/blob-id-codec.ts';
import { ContractAbortError, RepositoryNotFoundError } from '../../src/sui/errors.ts';
import { parseScenarios, expectedRecord, isLogged, type Scenario, type Step } from '../contract/vectors/scenarios.ts';
import { GENESIS_LOG_HEAD, nextLogHead } from '../../src/contract/push-log.ts';
import { abortName } from '../../src/contract/abort-codes.ts';
import { Repository } from '../../src/contract/bcs.ts';
import type { PackEntryValue } from '../../src/contract/bcs.ts';
import type { PackEntry } from '../../src/ports/ledger.ts';
import { FRONTS, simulateAs, type Front } from './fronts.ts';

/**
 * The contract's scenario vectors (contracts/tests/scenarios.json), driven as signed transactions through the SDK
 * against both devnet fronts: calls the Ledger port can express go through SuiLedger (so each abort must come back
 * as its typed error), the others (a lone `new_pack_entry`, vectors of different lengths) as hand-built PTBs.
 */
const file = parseScenarios(JSON.parse(readFileSync(new URL('../../contracts/tests/scenarios.json', import.meta.url), 'utf8')));

const hex = (bytes: Uint8Array | null) => (bytes === null ? null : Buffer.from(bytes).toString('hex'));
const packOf = (p: PackEntryValue): PackEntry => ({
  chunks: p.chunks.map(u256ToBlobId),
  size: Number(p.size),
  sha256: Buffer.from(p.sha256).toString('hex'),
  ...(p.sealed_key === null ? {} : { sealedKey: Buffer.from(p.sealed_key).toString('hex') }),
});

class Actors {
  readonly #front: Front;
  readonly #keys = new Map<string, Ed25519Keypair>();
  readonly #funded = new Set<string>();
  constructor(front: Front) {
    this.#front = front;
  }
  get client() {
    return this.#front.client;
  }
  key(scenarioAddress: string): Ed25519Keypair {
    let key = this.#keys.get(scenarioAddress);
    if (!key) this.#keys.set(scenarioAddress, (key = Ed25519Keypair.generate()));
    return key;
  }
  /** The address standing in for a scenario actor's address. */
  address(scenarioAddress: string): string {
    return this.key(scenarioAddress).toSuiAddress();
  }
  async ledger(scenarioAddress: string): Promise<SuiLedger> {
    const key = this.key(scenarioAddress);
    if (!this.#funded.has(scenarioAddress)) {
      await this.#front.faucet(key.toSuiAddress());
      this.#funded.add(scenarioAddress);
    }
    return new SuiLedger({ client: this.#front.client, signer: key, packageId: this.#front.packageId, registryId: this.#front.registryId });
  }
}

/** Runs one step; returns the abort name it ended with, or 'ok'. */
async function perform(front: Front, actors: Actors, step: Step, repos: Map<string, string>): Promise<string> {
  const ledger = await actors.ledger(step.senderAddress);
  const c = step.call;
  const id = step.repo === undefined ? '' : repos.get(step.repo) ?? '';
  try {
    switch (c.call) {
      case 'create':
        repos.set(step.repo!, (await ledger.createRepository(c.name, c.head)).id);
        break;
      case 'push':
        if (c.olds.length === c.names.length && c.news.length === c.names.length && c.forces.length === c.names.length) {
          await ledger.push(id, c.names.map((name, i) => ({ name, old: hex(c.olds[i]), new: hex(c.news[i]), force: c.forces[i] })), c.pack && packOf(c.pack));
        } else {
          return await rawCall(front, actors, step, (tx) => {
            const pkg = front.packageId;
            const option = c.pack
              ? tx.moveCall({ target: '0x1::option::some', typeArguments: [`${pkg}::pack::PackEntry`], arguments: [newPackEntry(tx, pkg, c.pack)] })
              : tx.moveCall({ target: '0x1::option::none', typeArguments: [`${pkg}::pack::PackEntry`] });
            const bytes = (list: (Uint8Array | null)[]) => tx.pure.vector('option<vector<u8>>', list.map((v) => (v === null ? null : [...v])));
            tx.moveCall({
              target: `${pkg}::repository::push`,
              arguments: [tx.object(id), tx.pure.vector('string', c.names), bytes(c.olds), bytes(c.news), tx.pure.vector('bool', c.forces), option, tx.object.clock()],
            });
          });
        }
        break;
      case 'new_pack_entry':
      case 'new_sealed_pack_entry':
        return await rawCall(front, actors, step, (tx) => newPackEntry(tx, front.packageId, { sealed_key: null, ...c }));
      case 'repack':
        // The entry of clients older than repack_at; the Ledger port calls repack_at only.
        return await rawCall(front, actors, step, (tx) => {
          tx.moveCall({ target: `${front.packageId}::repository::repack`, arguments: [tx.object(id), newPackEntry(tx, front.packageId, c.pack), tx.pure.u64(c.live_from), tx.object.clock()] });
        });
      case 'repack_at':
        await ledger.repackAt(id, packOf(c.pack), Number(c.expected_seq));
        break;
      case 'add_writer':
        await ledger.addWriter(id, actors.address(c.writer));
        break;
      case 'remove_writer':
        await ledger.removeWriter(id, actors.address(c.writer));
        break;
      case 'protect_ref':
        await ledger.protectRef(id, c.name);
        break;
      case 'unprotect_ref':
        await ledger.unprotectRef(id, c.name);
        break;
      case 'set_head':
        await ledger.setHead(id, c.head);
        break;
      case 'transfer_ownership':
        await ledger.transferOwnership(id, actors.address(c.new_owner));
        break;
      case 'create_private': {
        const outcome = await rawCall(front, actors, step, (tx) => {
          tx.moveCall({ target: `${front.packageId}::repository::create_private`, arguments: [tx.object(front.registryId), tx.pure.string(c.name), tx.pure.string(c.head)] });
        });
        if (outcome === 'ok') repos.set(step.repo!, await ledger.resolve({ owner: actors.address(step.senderAddress), name: c.name }));
        return outcome;
      }
      case 'add_reader':
      case 'remove_reader':
        return await rawCall(front, actors, step, (tx) => {
          tx.moveCall({ target: `${front.packageId}::repository::${c.call}`, arguments: [tx.object(id), tx.pure.address(actors.address(c.reader))] });
        });
      case 'seal_approve': {
        const prefix = c.id.repo === null ? [] : [...Buffer.from(repos.get(c.id.repo)!.slice(2), 'hex')];
        return await simulateAs(front, actors.address(step.senderAddress), abortName, (tx) => {
          tx.moveCall({ target: `${front.packageId}::repository::seal_approve`, arguments: [tx.pure.vector('u8', [...prefix, ...c.id.suffix]), tx.object(id)] });
        });
      }
    }
    return 'ok';
  } catch (error) {
    if (error instanceof ContractAbortError) return error.abort.abortName;
    throw error;
  }
}

function newPackEntry(tx: Transaction, pkg: string, pack: PackEntryValue) {
  const fields = [tx.pure.vector('u256', pack.chunks), tx.pure.u64(pack.size), tx.pure.vector('u8', [...pack.sha256])];
  if (pack.sealed_key === null) return tx.moveCall({ target: `${pkg}::repository::new_pack_entry`, arguments: fields });
  return tx.moveCall({ target: `${pkg}::repository::new_sealed_pack_entry`, arguments: [...fields, tx.pure.vector('u8', [...pack.sealed_key])] });
}

/**
 * A hand-built PTB with all its gas data fixed (so an abort lands on chain as a failed transaction): only the inputs
 * are resolved, as a transaction kind. `SuiGrpcClient` refuses to sign a transaction whose resolving dry run aborts,
 * so anything left for the resolver to fill in would stop the abort before the chain.
 */
async function rawCall(front: Front, actors: Actors, step: Step, build: (tx: Transaction) => void): Promise<string> {
  const signer = actors.key(step.senderAddress);
  const draft = new Transaction();
  build(draft);
  const tx = Transaction.fromKind(await draft.build({ client: front.client, onlyTransactionKind: true }));
  const { objects: coins } = await front.client.core.listCoins({ owner: signer.toSuiAddress() });
  tx.setSender(signer.toSuiAddress());
  tx.setGasBudget(100_000_000);
  tx.setGasPrice(BigInt((await front.client.core.getReferenceGasPrice()).referenceGasPrice));
  tx.setGasPayment(coins.map((coin) => ({ objectId: coin.objectId, version: coin.version, digest: coin.digest })));
  const result = await front.client.core.signAndExecuteTransaction({ transaction: tx, signer });
  if (result.$kind === 'Transaction') return 'ok';
  const error = result.FailedTransaction.status.error!;
  assert.is(error.$kind, 'MoveAbort', error.message);
  assert.is(error.MoveAbort!.location?.package, front.packageId);
  return abortName(Number(error.MoveAbort!.abortCode)) ?? `code ${error.MoveAbort!.abortCode}`;
}

async function checkState(actors: Actors, step: Step, repos: Map<string, string>): Promise<void> {
  const expected = step.state;
  if (!expected || step.repo === undefined) return;
  const ledger = await actors.ledger(step.senderAddress);
  const id = repos.get(step.repo)!;
  const info = await ledger.getRepository(id);
  const where = `after ${step.call.call} by ${step.sender}`;
  if (expected.name !== undefined) assert.is(info.name, expected.name, where);
  if (expected.owner !== undefined) assert.is(info.owner, actors.address(expected.owner), where);
  if (expected.head !== undefined) assert.is(info.head, expected.head, where);
  if (expected.writers !== undefined) assert.equal(info.writers, expected.writers.map((w) => actors.address(w)), where);
  if (expected.protected !== undefined) assert.equal(info.protectedRefs, expected.protected, where);
  if (expected.hash_len !== undefined) assert.is(info.hashLength, expected.hash_len, where);
  if (expected.seq !== undefined) assert.is(info.seq, Number(expected.seq), where);
  if (expected.pack_count !== undefined) assert.is(info.packCount, Number(expected.pack_count), where);
  if (expected.live_from !== undefined) assert.is(info.liveFrom, Number(expected.live_from), where);
  if (expected.private !== undefined || expected.readers !== undefined) {
    const { object } = await actors.client.core.getObject({ objectId: id, include: { content: true } });
    const repository = Repository.parse(object.content);
    if (expected.private !== undefined) assert.is(repository.private, expected.private, `${where}: private`);
    if (expected.readers !== undefined) assert.equal(repository.readers.contents, expected.readers.map((r) => actors.address(r)), `${where}: readers`);
  }
  if (expected.refs !== undefined) {
    assert.equal(await ledger.listRefs(id), new Map([...expected.refs].map(([name, value]) => [name, hex(value)!])), where);
  }
  for (const entry of expected.registry ?? []) {
    const found = await ledger.resolve({ owner: actors.address(entry.owner), name: entry.name }).catch((error: unknown) => {
      assert.instance(error, RepositoryNotFoundError);
      return null;
    });
    assert.is(found, entry.repo === null ? null : repos.get(entry.repo)!, `${where}: registry ${entry.owner}/${entry.name}`);
  }

}

/** Replays each repository's push log from the scenario's records (real timestamps) up to the on-chain log head. */
async function checkLogs(actors: Actors, scenario: Scenario, repos: Map<string, string>, landed: Step[]): Promise<void> {
  const reader = await actors.ledger(scenario.steps[0].senderAddress);
  for (const [label, id] of repos) {
    const steps = landed.filter((s) => s.repo === label && isLogged(s.call));
    const pushes = await reader.listPushes(id);
    assert.is(pushes.length, steps.length, `${label}: one Pushed event per push`);
    let head = GENESIS_LOG_HEAD;
    let packCount = 0n;
    steps.forEach((step, i) => {
      const record = expectedRecord(step, { repository: id, seq: BigInt(i + 1), liveFrom: BigInt(pushes[i].liveFrom), packCount })!;
      if (record.pack !== null) packCount++;
      head = nextLogHead(head, { ...record, sender: actors.address(step.senderAddress), timestamp_ms: BigInt(pushes[i].timestampMs) });
      assert.is(Buffer.from(head).toString('hex'), pushes[i].logHead, `${label}: log head after push ${i + 1}`);
    });
    assert.is((await reader.getRepository(id)).logHead, Buffer.from(head).toString('hex'));
  }

}

for (const factory of FRONTS) {
  const test = suite<{ front: Front }>(`scenario vectors through the SDK (${factory.name})`);
  test.before(async (context) => {
    context.front = await factory.open();
  });
  test.after(async ({ front }) => {
    await front.close();
  });
  for (const scenario of file.scenarios) {
    test(scenario.name, async ({ front }) => {
      const actors = new Actors(front);
      const repos = new Map<string, string>();
      const landed: Step[] = [];
      for (const step of scenario.steps) {
        const outcome = await perform(front, actors, step, repos);
        assert.is(outcome, step.expect, `${step.call.call} by ${step.sender}`);
        if (outcome === 'ok') landed.push(step);
        await checkState(actors, step, repos);
      }
      await checkLogs(actors, scenario, repos, landed);
    });
  }
  test.run();
}
