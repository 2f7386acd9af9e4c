import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { createHash } from 'node:crypto';
import { bcs } from '@mysten/sui/bcs';
import { Ed25519Keypair } from '@mysten/sui/keypairs/ed25519';
import { SuiLedger } from '../../src/sui/ledger.ts';
import { InternalError } from '../../src/core/errors.ts';
import { blobIdToU256, u256ToBlobId } from '../../src/core/blob-id-codec.ts';
import {
  InsufficientGasError, InvalidNameError, NameTakenError, NoChangeError, NotOwnerError, NotWriterError, ProtectedRefError, RefConflictError,
  RepositoryNotFoundError, HashLengthError, LimitReachedError, StaleRepackError,
} from '../../src/sui/errors.ts';
import { MAX_PROTECTED, MAX_WRITERS } from '../../src/contract/model.ts';
import { GENESIS_LOG_HEAD, nextLogHead } from '../../src/contract/push-log.ts';
import { FRONTS, inProcess, openWithTwoLedgers, type Front, type TwoLedgers } from './fronts.ts';
import type { PackEntry } from '../../src/ports/ledger.ts';

const oid = (n: number) => n.toString(16).padStart(40, '0');
const blobId = (n: number) => u256ToBlobId(BigInt(n) * 0x1234567n);
const pack = (n: number): PackEntry => ({ chunks: [blobId(n), blobId(n + 1)], size: 1000 + n, sha256: createHash('sha256').update(`pack ${n}`).digest('hex') });

/** The client, calling `count` at every transaction submitted through it. */
function onSubmit(client: Front['client'], count: () => void): Front['client'] {
  const core = client.core;
  return {
    core: new Proxy(core, {
      get(target, property) {
        if (property === 'signAndExecuteTransaction') return (...args: Parameters<typeof core.signAndExecuteTransaction>) => { count(); return target.signAndExecuteTransaction(...args); };
        const value = Reflect.get(target, property);
        return typeof value === 'function' ? value.bind(target) : value;
      },
    }),
  } as Front['client'];
}

for (const factory of FRONTS) {
  const test = suite<TwoLedgers>(`SuiLedger (${factory.name})`);

  test.before(async (context) => {
    Object.assign(context, await openWithTwoLedgers(factory));
  });

  test.after(async ({ front }) => {
    await front.close();
  });

  test('creates a repository and finds it by id and by owner/name', async ({ owner }) => {
    const { id, digest } = await owner.createRepository('alpha');
    assert.match(digest, /^[1-9A-HJ-NP-Za-km-z]{43,44}$/);
    assert.is(await owner.resolve({ id }), id);
    assert.is(await owner.resolve({ owner: await owner.signerAddress(), name: 'alpha' }), id);
    const info = await owner.getRepository(id);
    assert.equal(
      { name: info.name, owner: info.owner, head: info.head, seq: info.seq, packCount: info.packCount, hashLength: info.hashLength, writers: info.writers },
      { name: 'alpha', owner: await owner.signerAddress(), head: 'refs/heads/main', seq: 0, packCount: 0, hashLength: 0, writers: [] },
    );
    assert.is(info.logHead, Buffer.from(GENESIS_LOG_HEAD).toString('hex'));
  });

  test('pushes refs and packs, and reads them back with the push log', async ({ owner }) => {
    const { id } = await owner.createRepository('beta', 'refs/heads/trunk');
    const first = await owner.push(id, [{ name: 'refs/heads/trunk', old: null, new: oid(1), force: false }], pack(1));
    assert.is(first.seq, 1);
    const second = await owner.push(id, [
      { name: 'refs/heads/trunk', old: oid(1), new: oid(2), force: false },
      { name: 'refs/tags/v1', old: null, new: oid(1), force: false },
    ], null);
    assert.is(second.seq, 2);
    assert.equal(await owner.listRefs(id), new Map([['refs/heads/trunk', oid(2)], ['refs/tags/v1', oid(1)]]));
    assert.equal(await owner.listPacks(id, 0), [pack(1)]);
    const info = await owner.getRepository(id);
    assert.is(info.hashLength, 20);
    assert.is(info.packCount, 1);

    const pushes = await owner.listPushes(id);
    assert.equal(pushes.map((p) => [p.seq, p.txDigest]), [[1, first.digest], [2, second.digest]]);
    assert.equal(pushes[0].pack, pack(1));
    assert.is(pushes[0].packIndex, 0);
    assert.is(pushes[1].pack, null);
    assert.ok(pushes[1].timestampMs >= pushes[0].timestampMs && pushes[0].timestampMs > 1_700_000_000_000, 'clock time on the records');
    // The chain's log head is the hash chain over the records the events describe (docs/architecture.md, The push log).
    let head = GENESIS_LOG_HEAD;
    for (const p of pushes) {
      head = nextLogHead(head, {
        repository: p.repository, seq: BigInt(p.seq), kind: p.kind, sender: p.sender, timestamp_ms: BigInt(p.timestampMs),
        updates: p.updates.map((u) => ({ name: u.name, old: u.old === null ? null : Buffer.from(u.old, 'hex'), new: u.new === null ? null : Buffer.from(u.new, 'hex'), forced: u.force })),
        pack: p.pack && { chunks: p.pack.chunks.map(blobIdToU256), size: BigInt(p.pack.size), sha256: Buffer.from(p.pack.sha256, 'hex'), sealed_key: null },
        live_from: BigInt(p.liveFrom),
      });
      assert.is(Buffer.from(head).toString('hex'), p.logHead);
    }
    assert.is(info.logHead, pushes[1].logHead);
  });

  test('repackAt records the consolidated pack and moves live_from to it', async ({ owner }) => {
    const { id } = await owner.createRepository('gamma');
    await owner.push(id, [{ name: 'refs/heads/main', old: null, new: oid(1), force: false }], pack(10));
    await owner.push(id, [{ name: 'refs/heads/main', old: oid(1), new: oid(2), force: false }], pack(20));
    const { seq } = await owner.repackAt(id, pack(30), 2);
    assert.is(seq, 3);
    const info = await owner.getRepository(id);
    assert.equal([info.packCount, info.liveFrom], [3, 2]);
    assert.equal(await owner.listPacks(id, info.liveFrom), [pack(30)]);
  });

  test('listPacks with the pack count the caller read reads only the packs, and only those before it', async ({ front, owner }) => {
    const { id } = await owner.createRepository('counted-packs');
    await owner.push(id, [{ name: 'refs/heads/main', old: null, new: oid(1), force: false }], pack(10));
    await owner.push(id, [{ name: 'refs/heads/main', old: oid(1), new: oid(2), force: false }], pack(20));
    const read: string[][] = [];
    const core = front.client.core;
    const reading = {
      core: new Proxy(core, {
        get(target, property) {
          if (property === 'getObjects') return (...args: Parameters<typeof core.getObjects>) => { read.push(args[0].objectIds); return target.getObjects(...args); };
          const value = Reflect.get(target, property);
          return typeof value === 'function' ? value.bind(target) : value;
        },
      }),
    } as Front['client'];
    const reader = new SuiLedger({ client: reading, packageId: front.packageId, registryId: front.registryId, signer: Ed25519Keypair.generate() });
    const info = await reader.getRepository(id);
    await owner.push(id, [{ name: 'refs/heads/main', old: oid(2), new: oid(3), force: false }], pack(30));
    read.length = 0;
    // As of the caller's read: one request for the two packs, none for the repository; the third pack came later.
    assert.equal(await reader.listPacks(id, 0, info.packCount), [pack(10), pack(20)]);
    assert.equal(read.map((ids) => ids.length), [2]);
    assert.not.ok(read[0]!.includes(id));
    // Without a count, the repository is read for the count now.
    read.length = 0;
    assert.equal(await reader.listPacks(id, 1), [pack(20), pack(30)]);
    assert.equal(read.map((ids) => ids.length), [1, 2]);
    // A ledger that never read the repository reads it for the table, and still stops at the count it was given.
    assert.equal(await new SuiLedger({ client: front.client, packageId: front.packageId, registryId: front.registryId, signer: Ed25519Keypair.generate() }).listPacks(id, 0, info.packCount), [pack(10), pack(20)]);
  });

  test('repackAt behind a push is refused with StaleRepackError and changes nothing', async ({ owner }) => {
    const { id } = await owner.createRepository('gamma-raced');
    await owner.push(id, [{ name: 'refs/heads/main', old: null, new: oid(1), force: false }], pack(10));
    await owner.push(id, [{ name: 'refs/heads/main', old: oid(1), new: oid(2), force: false }], pack(20));
    const before = await owner.getRepository(id);
    // The consolidated pack was built at seq 1; the push of seq 2 landed since.
    try {
      await owner.repackAt(id, pack(30), 1);
      assert.unreachable('a stale repack accepted');
    } catch (error) {
      assert.instance(error, StaleRepackError);
      const { abortName, functionName, expectedSeq } = (error as StaleRepackError).data;
      assert.equal([abortName, functionName, expectedSeq], ['EStaleRepack', 'repack_at', 1]);
    }
    assert.equal(await owner.getRepository(id), before);
    assert.equal(await owner.listPacks(id, 0), [pack(10), pack(20)]);
  });

  test('refs are paged: more refs than one page', async ({ owner }) => {
    const { id } = await owner.createRepository('many-refs');
    const updates = Array.from({ length: 120 }, (_, i) => ({ name: `refs/heads/b${i}`, old: null, new: oid(i + 1), force: false }));
    await owner.push(id, updates, pack(5));
    const refs = await owner.listRefs(id);
    assert.is(refs.size, 120);
    assert.is(refs.get('refs/heads/b77'), oid(78));
  });

  test('compare-and-swap failures are RefConflictError naming the refs and the check', async ({ owner }) => {
    const { id } = await owner.createRepository('delta');
    await owner.push(id, [{ name: 'refs/heads/main', old: null, new: oid(1), force: false }], null);
    try {
      await owner.push(id, [{ name: 'refs/heads/main', old: oid(9), new: oid(2), force: false }], null);
      assert.unreachable('stale old value accepted');
    } catch (error) {
      assert.instance(error, RefConflictError);
      assert.equal([(error as RefConflictError).check, (error as RefConflictError).refs, (error as RefConflictError).data.abortName], ['mismatch', ['refs/heads/main'], 'ERefMismatch']);
    }
    try {
      await owner.push(id, [{ name: 'refs/heads/main', old: null, new: oid(2), force: false }], null);
      assert.unreachable('create over an existing ref accepted');
    } catch (error) {
      assert.instance(error, RefConflictError);
      assert.is((error as RefConflictError).check, 'exists');
    }
    try {
      await owner.push(id, [{ name: 'refs/heads/main', old: oid(1), new: 'ab'.repeat(32), force: false }], null);
      assert.unreachable('a 32-byte id in a SHA-1 repository accepted');
    } catch (error) {
      assert.instance(error, HashLengthError);
    }
  });

  test('writers: a non-writer is refused with the owner named; owner operations need the owner', async ({ owner, other, otherAddress }) => {
    const { id } = await owner.createRepository('epsilon');
    const update = [{ name: 'refs/heads/feature', old: null, new: oid(3), force: false }];
    try {
      await other.push(id, update, null);
      assert.unreachable('non-writer push accepted');
    } catch (error) {
      assert.instance(error, NotWriterError);
      assert.is((error as NotWriterError).owner, await owner.signerAddress());
    }
    try {
      await other.addWriter(id, otherAddress);
      assert.unreachable('non-owner added a writer');
    } catch (error) {
      assert.instance(error, NotOwnerError);
    }
    await owner.addWriter(id, otherAddress);
    assert.equal((await owner.getRepository(id)).writers, [otherAddress]);
    try {
      await owner.addWriter(id, otherAddress);
      assert.unreachable('duplicate writer accepted');
    } catch (error) {
      assert.instance(error, NoChangeError);
      assert.is((error as NoChangeError).data.abortName, 'EAlreadyWriter');
    }
    assert.is((await other.push(id, update, null)).seq, 1);
    await owner.removeWriter(id, otherAddress);
    assert.equal((await owner.getRepository(id)).writers, []);
  });

  test('protected refs: only the owner may force or delete them', async ({ owner, other, otherAddress }) => {
    const { id } = await owner.createRepository('zeta');
    await owner.push(id, [{ name: 'refs/heads/main', old: null, new: oid(1), force: false }], null);
    await owner.protectRef(id, 'refs/heads/main');
    await owner.addWriter(id, otherAddress);
    assert.equal((await owner.getRepository(id)).protectedRefs, ['refs/heads/main']);
    try {
      await other.push(id, [{ name: 'refs/heads/main', old: oid(1), new: oid(2), force: true }], null);
      assert.unreachable('writer force-pushed a protected ref');
    } catch (error) {
      assert.instance(error, ProtectedRefError);
      assert.equal((error as ProtectedRefError).refs, ['refs/heads/main']);
    }
    await owner.push(id, [{ name: 'refs/heads/main', old: oid(1), new: oid(2), force: true }], null);
    await owner.unprotectRef(id, 'refs/heads/main');
    assert.equal((await owner.getRepository(id)).protectedRefs, []);
  });

  test('HEAD, names and ownership transfer', async ({ owner, other, otherAddress }) => {
    const { id } = await owner.createRepository('eta');
    await owner.setHead(id, 'refs/heads/dev');
    assert.is((await owner.getRepository(id)).head, 'refs/heads/dev');
    try {
      await owner.createRepository('eta');
      assert.unreachable('duplicate name accepted');
    } catch (error) {
      assert.instance(error, NameTakenError);
    }
    try {
      await owner.createRepository('.hidden');
      assert.unreachable('invalid name accepted');
    } catch (error) {
      assert.instance(error, InvalidNameError);
    }
    await owner.transferOwnership(id, otherAddress);
    assert.is((await other.getRepository(id)).owner, otherAddress);
    assert.is(await other.resolve({ owner: otherAddress, name: 'eta' }), id);
    try {
      await owner.resolve({ owner: await owner.signerAddress(), name: 'eta' });
      assert.unreachable('old owner/name still resolves');
    } catch (error) {
      assert.instance(error, RepositoryNotFoundError);
    }
  });

  test('unknown repositories and unfunded signers get typed errors', async ({ front, owner }) => {
    try {
      await owner.getRepository(`0x${'ab'.repeat(32)}`);
      assert.unreachable('a missing object read as a repository');
    } catch (error) {
      assert.instance(error, RepositoryNotFoundError);
    }
    try {
      await owner.getRepository(front.registryId);
      assert.unreachable('the registry read as a repository');
    } catch (error) {
      assert.instance(error, RepositoryNotFoundError);
    }
    const broke = new SuiLedger({ client: front.client, packageId: front.packageId, registryId: front.registryId, signer: Ed25519Keypair.generate() });
    try {
      await broke.createRepository('nofunds');
      assert.unreachable('an unfunded address paid for a transaction');
    } catch (error) {
      assert.instance(error, InsufficientGasError);
    }
  });

  test('one signer\'s transactions at once: a refusal for the busy gas coin is retried, an abort never; exclusive serializes them', async ({ front }) => {
    const key = Ed25519Keypair.generate();
    await front.faucet(key.toSuiAddress());
    let attempts = 0;
    const counting = onSubmit(front.client, () => attempts++);
    const common = { client: counting, packageId: front.packageId, registryId: front.registryId, signer: key, retryDelaysMs: [5, 10, 20, 40, 80] };
    const free = new SuiLedger(common);
    const { id } = await free.createRepository('busy');
    const branch = (n: number) => ({ name: `refs/heads/b${n}`, old: null, new: oid(n), force: false });

    attempts = 0;
    const seqs = await Promise.all([1, 2, 3, 4].map((n) => free.push(id, [branch(n)], null)));
    assert.equal(seqs.map((r) => r.seq).sort(), [1, 2, 3, 4], 'every transaction landed');
    assert.ok(attempts > 4, `the racing transactions were refused and retried (${attempts} attempts)`);

    attempts = 0;
    try {
      await free.push(id, [branch(1)], null);
      assert.unreachable('a ref created twice');
    } catch (error) {
      assert.instance(error, RefConflictError);
    }
    assert.is(attempts, 1, 'an abort is not retried');

    // With an exclusive section (the composition root's per-address file lock), no submission overlaps another.
    let running = 0;
    let most = 0;
    let tail = Promise.resolve();
    const freeAddress = await free.signerAddress();
    const exclusive = <T>(address: string, submit: () => Promise<T>): Promise<T> => {
      assert.is(address, freeAddress);
      const turn = tail.then(async () => {
        most = Math.max(most, ++running);
        try { return await submit(); } finally { running--; }
      });
      tail = turn.then(() => {}, () => {});
      return turn;
    };
    const serial = new SuiLedger({ ...common, exclusive });
    attempts = 0;
    await Promise.all([5, 6, 7, 8].map((n) => serial.push(id, [branch(n)], null)));
    assert.is(attempts, 4, 'no refusal, no retry');
    assert.is(most, 1);
    assert.is((await serial.getRepository(id)).seq, 8);
  });

  test('preparePush dry-runs a push ahead with a stand-in pack; the push then reuses its budget, gas coins and objects, and dry-runs nothing', async ({ front }) => {
    const key = Ed25519Keypair.generate();
    await front.faucet(key.toSuiAddress());
    const seen = { dryRuns: 0, dryRunsAnswered: 0, budgets: [] as string[] };
    // Watched on the client itself: the SDK calls its own methods while it builds and executes a transaction. The
    // gRPC client resolves a transaction through its service's simulation, not through its core method.
    const core = front.client.core as unknown as Record<'simulateTransaction' | 'executeTransaction', (options: { transaction: Uint8Array }) => Promise<unknown>>;
    const grpc = (front.client as unknown as { transactionExecutionService?: Record<'simulateTransaction', (...args: unknown[]) => unknown> }).transactionExecutionService;
    const simulating = grpc ?? core;
    const { simulateTransaction } = simulating;
    const { executeTransaction } = core;
    simulating.simulateTransaction = (...args: unknown[]) => {
      seen.dryRuns++;
      const answer = (simulateTransaction as (...a: unknown[]) => unknown).apply(simulating, args);
      // The gRPC service's call object is a thenable, the core method's answer a promise.
      void Promise.resolve(answer).then(() => { seen.dryRunsAnswered++; }, () => { seen.dryRunsAnswered++; });
      return answer;
    };
    core.executeTransaction = (options) => {
      seen.budgets.push(String(bcs.TransactionData.parse(options.transaction).V1!.gasData.budget));
      return executeTransaction.call(front.client.core, options);
    };
    try {
      const ledger = new SuiLedger({ client: front.client, signer: key, packageId: front.packageId, registryId: front.registryId, retryDelaysMs: [5, 10, 20] });
      const { id } = await ledger.createRepository('prepared-a');
      const updates = (n: number) => Array.from({ length: n }, (_, i) => ({ name: `refs/heads/b${i}`, old: null, new: oid(i + 1), force: false }));
      const standIn = (real: PackEntry): PackEntry => ({ ...real, chunks: real.chunks.map(() => blobId(0)), sha256: '0'.repeat(64) });
      const dryRunsOf = async (action: () => Promise<unknown>) => {
        const before = seen.dryRuns;
        await action();
        return seen.dryRuns - before;
      };
      // Until the early dry run has its answer: the gas coin it chose is then known, whatever happens next.
      const prepare = async (on: SuiLedger, ...args: Parameters<SuiLedger['preparePush']>) => {
        const before = seen.dryRunsAnswered;
        on.preparePush(...args);
        for (let waited = 0; seen.dryRunsAnswered === before && waited < 10_000; waited += 10) await new Promise((resolve) => setTimeout(resolve, 10));
      };

      // Unprepared: the SDK dry-runs, then executes with the budget it computed.
      assert.is(await dryRunsOf(() => ledger.push(id, updates(3), pack(1))), 1);
      const sdkBudget = seen.budgets.at(-1)!;

      // Prepared with the same shape: the dry run happens at preparation, none at the push, and the budget is the same.
      const { id: other } = await ledger.createRepository('prepared-b'); // a name of the same length: the same storage
      await prepare(ledger, other, updates(3), standIn(pack(1)));
      assert.is(await dryRunsOf(() => ledger.push(other, updates(3), pack(1))), 0, 'no dry run at the push');
      assert.is(seen.budgets.at(-1), sdkBudget);
      assert.equal(await ledger.listPacks(other, 0), [pack(1)]);

      // The gas coin the dry run chose was spent meanwhile (another push of this signer): the push's first attempt is
      // refused without executing, and the retry selects gas anew and lands. That retry is not a back-off for a busy
      // object: a ledger allowed none still lands.
      const noBackOff = new SuiLedger({ client: front.client, signer: key, packageId: front.packageId, registryId: front.registryId, retryDelaysMs: [] });
      const moreUpdates = [{ name: 'refs/heads/b0', old: oid(1), new: oid(20), force: false }];
      await prepare(noBackOff, other, moreUpdates, null);
      await ledger.push(id, [{ name: 'refs/heads/b0', old: oid(1), new: oid(30), force: false }], null);
      const sent = seen.budgets.length;
      await noBackOff.push(other, moreUpdates, null);
      assert.is(seen.budgets.length - sent, 2, 'refused once, then sent with gas selected afresh');
      assert.equal((await ledger.listRefs(other)).get('refs/heads/b0'), oid(20));

      // A push of another shape than the one prepared, or one whose early dry run failed, is dry-run by the SDK as before.
      await prepare(ledger, other, [{ name: 'refs/heads/b1', old: oid(9), new: oid(10), force: false }], null);
      assert.is(await dryRunsOf(() => ledger.push(other, [{ name: 'refs/heads/b1', old: oid(2), new: oid(10), force: false }], null)), 1);
      await prepare(ledger, other, [{ name: 'refs/heads/b2', old: oid(1), new: oid(11), force: false }], null);
      let refusal: unknown = null;
      assert.is(await dryRunsOf(async () => { refusal = await ledger.push(other, [{ name: 'refs/heads/b2', old: oid(1), new: oid(11), force: false }], null).then(() => null, (error: Error) => error); }), 1);
      assert.instance(refusal, RefConflictError);
      assert.equal((await ledger.listRefs(other)).get('refs/heads/b2'), oid(3));
    } finally {
      Object.assign(simulating, { simulateTransaction });
      Object.assign(core, { executeTransaction });
    }
  });

  test.run();
}

const limits = suite('SuiLedger list limits (in-process)');

limits('a full writer list and a full protected list are LimitReachedError', async () => {
  const front = await inProcess.open();
  const key = Ed25519Keypair.generate();
  await front.faucet(key.toSuiAddress());
  const owner = new SuiLedger({ client: front.client, signer: key, packageId: front.packageId, registryId: front.registryId });
  const { id } = await owner.createRepository('crowded');
  for (let i = 0; i < MAX_WRITERS; i++) await owner.addWriter(id, `0x${(i + 1).toString(16).padStart(64, '0')}`);
  for (let i = 0; i < MAX_PROTECTED; i++) await owner.protectRef(id, `refs/heads/p${i}`);
  const info = await owner.getRepository(id);
  assert.equal([info.writers.length, info.protectedRefs.length], [MAX_WRITERS, MAX_PROTECTED]);
  for (const [attempt, name] of [[() => owner.addWriter(id, `0x${'f'.repeat(64)}`), 'ETooManyWriters'], [() => owner.protectRef(id, 'refs/heads/one-more'), 'ETooManyProtected']] as const) {
    try {
      await attempt();
      assert.unreachable(`${name} not raised`);
    } catch (error) {
      assert.instance(error, LimitReachedError);
      assert.is((error as LimitReachedError).data.abortName, name);
    }
  }
  await front.close();
});

limits.run();

const lightAddress = suite('SuiLedger signerAddress option (in-process)');

lightAddress('signerAddress() answers from the light function without loading the signer; the first write loads it once', async () => {
  const front = await inProcess.open();
  const key = Ed25519Keypair.generate();
  await front.faucet(key.toSuiAddress());
  let loads = 0;
  const signer = async () => { loads++; return key; };
  const ledger = new SuiLedger({ client: front.client, packageId: front.packageId, registryId: front.registryId, signer, signerAddress: async () => key.toSuiAddress().toUpperCase().replace('0X', '0x') });
  assert.is(await ledger.signerAddress(), key.toSuiAddress(), 'normalized');
  assert.is(loads, 0);
  const { id } = await ledger.createRepository('light');
  await ledger.addWriter(id, `0x${'2'.repeat(64)}`);
  assert.is(loads, 1);
  assert.is((await ledger.getRepository(id)).owner, key.toSuiAddress());
  await front.close();
});

lightAddress('a signer whose address is not the light one signs nothing: InternalError', async () => {
  const front = await inProcess.open();
  const key = Ed25519Keypair.generate();
  const planned = Ed25519Keypair.generate().toSuiAddress();
  await front.faucet(key.toSuiAddress());
  let submitted = 0;
  const client = onSubmit(front.client, () => submitted++);
  const ledger = new SuiLedger({ client, packageId: front.packageId, registryId: front.registryId, signer: async () => key, signerAddress: async () => planned });
  assert.is(await ledger.signerAddress(), planned);
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      await ledger.createRepository('impostor');
      assert.unreachable('signed as another address');
    } catch (error) {
      assert.instance(error, InternalError);
      assert.equal((error as InternalError).data, { address: key.toSuiAddress(), expected: planned });
    }
  }
  assert.is(submitted, 0);
  await front.close();
});

lightAddress.run();
