import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { assembleFromSourceColumns, sourceColumnCount } from '../../src/walrus-protocol/source-columns.ts';
import { secondarySlivers } from '../support/encoded-slivers.ts';

const columns = suite('a blob from its source columns');

const blob = (size: number) => Uint8Array.from({ length: size }, (_, i) => (i * 7919 + (i >> 8)) & 255);
const columnsOf = (bytes: Uint8Array, numShards: number) => {
  const sliver = secondarySlivers(bytes, numShards);
  return Array.from({ length: sourceColumnCount(numShards) }, (_, index) => sliver(index));
};

columns('is the blob the real encoder encoded, for any length (one symbol, a partial last row, several rows) and shard count', () => {
  for (const [numShards, size] of [[10, 0], [10, 1], [50, 1000], [50, 123_457], [100, 31], [300, 2_000_001], [1000, 14_000]] as const) {
    const bytes = blob(size);
    const assembled = assembleFromSourceColumns(columnsOf(bytes, numShards), size, numShards);
    assert.ok(assembled !== null && Buffer.from(assembled).equals(Buffer.from(bytes)), `${size} bytes at ${numShards} shards`);
  }
});

columns('refuses a column out of place, of another length or symbol size, or that does not parse; takes a flipped byte (the caller proves the bytes)', () => {
  const bytes = blob(5000);
  const good = columnsOf(bytes, 50);
  const swapped = [...good];
  [swapped[0], swapped[1]] = [good[1]!, good[0]!];
  assert.is(assembleFromSourceColumns(swapped, 5000, 50), null);
  assert.is(assembleFromSourceColumns(good.slice(1), 5000, 50), null);
  assert.is(assembleFromSourceColumns(good, 50_000, 50), null, 'metadata naming another length');
  assert.is(assembleFromSourceColumns([good[0]!.subarray(0, 10), ...good.slice(1)], 5000, 50), null);
  const flipped = good.map((sliver) => sliver.slice());
  flipped[3]![5]! ^= 1;
  const assembled = assembleFromSourceColumns(flipped, 5000, 50);
  assert.ok(assembled !== null && !Buffer.from(assembled).equals(Buffer.from(bytes)));
});

columns.run();
