import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { createHash } from 'node:crypto';
import { u256ToBlobId } from '../../src/core/blob-id-codec.ts';
import { InvalidUpdateError, LimitReachedError, NoChangeError, NotOwnerError, NotPrivateError } from '../../src/sui/errors.ts';
import type { PackEntry } from '../../src/ports/ledger.ts';
import { inProcess, openWithTwoLedgers, type TwoLedgers } from './fronts.ts';
import { rejected } from '../support/rejected.ts';

const pack = (n: number, sealedKey?: string): PackEntry => ({
  chunks: [u256ToBlobId(BigInt(n) * 0x1234567n)],
  size: 100 + n,
  sha256: createHash('sha256').update(`pack ${n}`).digest('hex'),
  ...(sealedKey === undefined ? {} : { sealedKey }),
});
const main = (n: number | null, m: number) => ({ name: 'refs/heads/main', old: n === null ? null : n.toString(16).padStart(40, '0'), new: m.toString(16).padStart(40, '0'), force: false });

const test = suite<TwoLedgers>('SuiLedger: private repositories and readers');

test.before(async (context) => {
  Object.assign(context, await openWithTwoLedgers(inProcess));
});

test.after(async ({ front }) => {
  await front.close();
});

test('a private repository reads back as private; readers are added and removed by the owner only', async ({ owner, other, otherAddress }) => {
  const { id } = await owner.createRepository('secret', 'refs/heads/main', { private: true });
  const info = await owner.getRepository(id);
  assert.equal([info.private, info.readers], [true, []]);
  await rejected(other.addReader(id, otherAddress), (e: unknown) => e instanceof NotOwnerError);
  await owner.addReader(id, otherAddress);
  assert.equal((await other.getRepository(id)).readers, [otherAddress]);
  await rejected(owner.addReader(id, otherAddress), (e: unknown) => e instanceof NoChangeError && /already a reader/.test(e.message));
  await owner.removeReader(id, otherAddress);
  assert.equal((await owner.getRepository(id)).readers, []);
  await rejected(owner.removeReader(id, otherAddress), (e: unknown) => e instanceof NoChangeError && /is not a reader/.test(e.message));
});

test('a public repository has no readers, and its packs carry no sealed key', async ({ owner, otherAddress }) => {
  const { id } = await owner.createRepository('open');
  assert.equal([(await owner.getRepository(id)).private, (await owner.getRepository(id)).readers], [false, []]);
  await rejected(owner.addReader(id, otherAddress), (e: unknown) => e instanceof NotPrivateError && /is public/.test(e.message));
  await rejected(owner.push(id, [main(null, 1)], pack(1, 'ab'.repeat(300))), (e: unknown) => e instanceof InvalidUpdateError && /carries no sealed key/.test(e.message));
  await owner.push(id, [main(null, 1)], pack(1));
  assert.is((await owner.listPacks(id, 0))[0]!.sealedKey, undefined);
});

test('a private repository takes only packs with their sealed key, and gives the key back', async ({ owner }) => {
  const { id } = await owner.createRepository('sealed', 'refs/heads/main', { private: true });
  await rejected(owner.push(id, [main(null, 1)], pack(1)), (e: unknown) => e instanceof InvalidUpdateError && /must carry its sealed data key/.test(e.message));
  const sealedKey = 'cd'.repeat(320);
  await owner.push(id, [main(null, 1)], pack(1, sealedKey));
  const [stored] = await owner.listPacks(id, 0);
  assert.is(stored!.sealedKey, sealedKey);
  const [event] = await owner.listPushes(id);
  assert.is(event!.pack!.sealedKey, sealedKey);
});

test('LimitReachedError names the reader list', () => {
  const abort = { abortName: 'ETooManyReaders' as const, abortCode: 26, module: 'repository', functionName: 'add_reader', digest: null };
  assert.match(new LimitReachedError(abort).message, /^the reader list is full/);
});

test.run();
