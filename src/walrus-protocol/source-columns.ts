import { bcs } from '@mysten/sui/bcs';
import { sourceSymbols, symbolSize } from './encoding.ts';

/**
 * A blob read from its source columns, without Reed-Solomon decoding. RS2 is systematic: the blob's bytes, laid out
 * row by row in a matrix of `primary` rows × `secondary` columns of symbols, are themselves part of the encoding,
 * and secondary sliver j (for j below `secondary`) is column j of that matrix, top to bottom (walrus-core; what the
 * SDK's quilt reader reads columns from). So the first `secondary` secondary slivers hold the whole blob. Pure.
 */

/** A sliver as the storage nodes serve it (walrus-core `SliverData`, BCS). */
const SliverLayout = bcs.struct('SliverData', {
  symbols: bcs.struct('Symbols', { data: bcs.byteVector(), symbol_size: bcs.u16() }),
  index: bcs.u16(),
});

/** How many source columns (secondary slivers 0…n-1) a blob has on a network of `numShards` shards. */
export function sourceColumnCount(numShards: number): number {
  return sourceSymbols(numShards).secondary;
}

/**
 * The `length` bytes of a blob from its source columns, in index order; null when a sliver is not the column it
 * should be (another index or symbol size, another length, or bytes that do not parse), which a reader treats as a
 * faulty node's answer. Nothing here proves the bytes: the caller checks them against the blob id or a digest.
 */
export function assembleFromSourceColumns(slivers: readonly Uint8Array[], length: number, numShards: number): Uint8Array | null {
  const { primary: rows, secondary: columns } = sourceSymbols(numShards);
  if (slivers.length !== columns) return null;
  const size = symbolSize(length, numShards);
  const rowBytes = columns * size;
  const blob = new Uint8Array(length);
  for (const [column, sliver] of slivers.entries()) {
    let parsed;
    try {
      parsed = SliverLayout.parse(sliver);
    } catch {
      return null;
    }
    const data = parsed.symbols.data;
    if (parsed.index !== column || parsed.symbols.symbol_size !== size || data.length !== rows * size) return null;
    for (let row = 0; row < rows; row++) {
      const at = row * rowBytes + column * size;
      if (at >= length) break;
      blob.set(data.subarray(row * size, row * size + Math.min(size, length - at)), at);
    }
  }
  return blob;
}
