/**
 * Maps `items` through `fn` with at most `limit` calls in flight, yielding results in input order. The window also
 * bounds memory: at most `limit` results wait to be consumed.
 */
export async function* mapOrdered<T, R>(items: readonly T[], limit: number, fn: (item: T, index: number) => Promise<R>): AsyncGenerator<R> {
  const window: Promise<R>[] = [];
  let next = 0;
  const launch = () => {
    const promise = fn(items[next], next);
    promise.catch(() => {}); // observed when its turn comes; avoids an unhandled rejection before then
    window.push(promise);
    next++;
  };
  while (next < items.length && window.length < limit) launch();
  while (window.length > 0) {
    const result = await window.shift()!;
    if (next < items.length) launch();
    yield result;
  }
}

/**
 * Regroups a byte stream into chunks of exactly `size` bytes (the last one shorter), copying each byte once. Each
 * chunk is a fresh buffer from `allocate`, so a consumer may keep it while the next one fills.
 */
export async function* rechunk(source: AsyncIterable<Uint8Array>, size: number, allocate: (size: number) => Uint8Array = (n) => new Uint8Array(n)): AsyncGenerator<Uint8Array> {
  let buffer = allocate(size);
  let filled = 0;
  for await (const piece of source) {
    let offset = 0;
    while (offset < piece.byteLength) {
      const take = Math.min(size - filled, piece.byteLength - offset);
      buffer.set(piece.subarray(offset, offset + take), filled);
      filled += take;
      offset += take;
      if (filled === size) {
        yield buffer;
        buffer = allocate(size);
        filled = 0;
      }
    }
  }
  if (filled > 0) yield buffer.subarray(0, filled);
}
