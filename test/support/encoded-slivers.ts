import { BlobEncoder } from '@mysten/walrus-wasm';
import { sourceSymbols, symbolSize } from '../../src/walrus-protocol/encoding.ts';

/**
 * A blob encoded by the real Walrus encoder (@mysten/walrus-wasm), as storage nodes hold it: each secondary sliver
 * (BCS `SliverData`) by its index, the one the SDK's `getSecondarySliver({ index })` asks a node for.
 */
export function secondarySlivers(bytes: Uint8Array, numShards: number): (index: number) => Uint8Array {
  const { primary: rows, secondary: columns } = sourceSymbols(numShards);
  const symbol = symbolSize(bytes.length, numShards);
  // A BCS SliverData: the data's length (ULEB128), the data, its symbol size (u16) and the sliver's index (u16).
  const bcsLength = (data: number) => Math.max(1, Math.ceil(Math.log2(data + 1) / 7)) + data + 4;
  const primary = Array.from({ length: numShards }, () => new Uint8Array(bcsLength(columns * symbol)));
  const secondary = Array.from({ length: numShards }, () => new Uint8Array(bcsLength(rows * symbol)));
  new BlobEncoder(numShards).encode(bytes, primary, secondary);
  // Pair p holds secondary sliver n-1-p (walrus-core `SliverPairIndex::to_sliver_index`).
  return (index) => secondary[numShards - 1 - index]!;
}
