import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { batchUpdates, describeLimit, SUI_TRANSACTION_LIMITS } from '../../src/core/push-batches.ts';
import type { RefUpdate } from '../../src/ports/ledger.ts';

const A = 'a'.repeat(40);
const created = (name: string): { update: RefUpdate } => ({ update: { name, old: null, new: A, force: false } });
const refs = (count: number, prefix = 'refs/heads/branch-') => Array.from({ length: count }, (_, i) => created(`${prefix}${String(i).padStart(5, '0')}`));

/** The BCS size of one of the push's pure vectors, computed independently of the batcher. */
const namesBytes = (batch: { update: RefUpdate }[]) => 3 + batch.reduce((sum, { update }) => sum + 1 + Buffer.byteLength(update.name), 0);
const newsBytes = (batch: { update: RefUpdate }[]) => 3 + batch.reduce((sum, { update }) => sum + (update.new === null ? 1 : 2 + update.new.length / 2), 0);

const batching = suite('batchUpdates');

batching('a push that fits one transaction is one batch, with no limit named', () => {
  const items = refs(10);
  assert.equal(batchUpdates(items), { batches: [items], limit: null });
});

batching('long ref names split on the pure-argument size, each batch within it and in order', () => {
  const items = refs(2000, `refs/heads/${'feature/'.repeat(4)}`);
  const { batches, limit } = batchUpdates(items);
  assert.is(limit, 'max_pure_argument_size');
  assert.ok(batches.length > 1);
  assert.equal(batches.flat(), items);
  for (const batch of batches) assert.ok(namesBytes(batch) <= SUI_TRANSACTION_LIMITS.maxPureArgumentBytes);
  // Greedy: every batch but the last is full (one more ref would not fit).
  for (const [i, batch] of batches.slice(0, -1).entries()) assert.ok(namesBytes([...batch, batches[i + 1][0]]) > SUI_TRANSACTION_LIMITS.maxPureArgumentBytes);
});

batching('short names, half created and half deleted, split on the dynamic-field accesses: at most 497 refs (two accesses each, two for each of the directories refs and refs/t, one for the pack)', () => {
  // Each id vector holds at most ~740 SHA-1 ids, so only a mix of creations (new ids) and deletions (old ids) reaches 1,000 refs.
  const items = Array.from({ length: 2500 }, (_, i) => ({ update: { name: `refs/t/${i}`, old: i % 2 ? A : null, new: i % 2 ? null : A, force: i % 2 === 1 } }));
  const { batches, limit } = batchUpdates(items);
  assert.is(limit, 'object_runtime_max_num_cached_objects');
  assert.equal(batches.map((b) => b.length), [497, 497, 497, 497, 497, 15]);
});

batching('the id vectors count too: SHA-256 ids fill a batch before the names do', () => {
  const items = Array.from({ length: 1000 }, (_, i) => ({ update: { name: `r/${i}`, old: null, new: 'b'.repeat(64), force: false } }));
  const { batches, limit } = batchUpdates(items);
  assert.is(limit, 'max_pure_argument_size');
  for (const batch of batches) assert.ok(newsBytes(batch) <= SUI_TRANSACTION_LIMITS.maxPureArgumentBytes);
  assert.ok(newsBytes([...batches[0], batches[1][0]]) > SUI_TRANSACTION_LIMITS.maxPureArgumentBytes);
});

batching('smaller limits are honoured, and the message names the limit', () => {
  // refs/heads/…: 2 accesses a ref, 4 for refs and refs/heads, 1 for the pack: 3 refs take 11.
  const limits = { ...SUI_TRANSACTION_LIMITS, maxDynamicFieldAccesses: 11 };
  const { batches, limit } = batchUpdates(refs(7), limits);
  assert.equal(batches.map((b) => b.length), [3, 3, 1]);
  assert.match(describeLimit(limit!, limits), /11 dynamic-field accesses per transaction \(object_runtime_max_num_cached_objects\)/);
  assert.match(describeLimit('max_pure_argument_size'), /16384 bytes per transaction argument \(max_pure_argument_size\)/);
});

batching.run();
