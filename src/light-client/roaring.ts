/**
 * The Roaring bitmap of a certificate's signers, in the standard portable serialization (RoaringFormatSpec) that
 * Sui writes with the `roaring` crate. The decoder is strict, as a signer set must be: container keys strictly
 * increasing (a repeated container would count a signer twice), values strictly increasing inside each container,
 * offsets where the data is, cardinalities that match, and no bytes after the end. Anything else is refused.
 */
const COOKIE_NO_RUNS = 12346;
const COOKIE_RUNS = 12347;
/** With runs, a serialization of fewer containers than this carries no offset table. */
const NO_OFFSET_THRESHOLD = 4;
const ARRAY_LIMIT = 4096;
const BITMAP_BYTES = 8192;

export class BitmapFormatError extends Error {}

export function decodeRoaring(bytes: Uint8Array): number[] {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let at = 0;
  const need = (n: number) => {
    if (at + n > bytes.length) throw new BitmapFormatError(`bitmap ends early (needs ${at + n} bytes, has ${bytes.length})`);
  };
  const u16 = () => { need(2); const v = view.getUint16(at, true); at += 2; return v; };
  const u32 = () => { need(4); const v = view.getUint32(at, true); at += 4; return v; };

  const cookie = u32();
  let size: number;
  let runFlags: Uint8Array | undefined;
  if (cookie === COOKIE_NO_RUNS) {
    size = u32();
  } else if ((cookie & 0xffff) === COOKIE_RUNS) {
    size = (cookie >>> 16) + 1;
    const flagBytes = Math.ceil(size / 8);
    need(flagBytes);
    runFlags = bytes.subarray(at, at + flagBytes);
    at += flagBytes;
  } else {
    throw new BitmapFormatError(`bitmap has an unknown cookie ${cookie}`);
  }
  if (size > 65536) throw new BitmapFormatError(`bitmap declares ${size} containers (at most 65536)`);
  const keys: number[] = [];
  const cardinalities: number[] = [];
  for (let i = 0; i < size; i++) {
    const key = u16();
    if (i > 0 && key <= keys[i - 1]!) throw new BitmapFormatError(`bitmap container ${key} repeats or is out of order`);
    keys.push(key);
    cardinalities.push(u16() + 1);
  }
  const isRun = (i: number) => runFlags !== undefined && (runFlags[i >> 3]! & (1 << (i & 7))) !== 0;
  let offsets: number[] | undefined;
  if (runFlags === undefined || size >= NO_OFFSET_THRESHOLD) offsets = Array.from({ length: size }, u32);

  const values: number[] = [];
  for (let i = 0; i < size; i++) {
    if (offsets !== undefined && offsets[i] !== at) throw new BitmapFormatError(`bitmap container ${i} is not at its offset`);
    const high = keys[i]! * 65536;
    const cardinality = cardinalities[i]!;
    const before = values.length;
    if (isRun(i)) {
      const runs = u16();
      let next = 0;
      for (let r = 0; r < runs; r++) {
        const start = u16();
        const length = u16() + 1;
        if (start < next || start + length > 65536) throw new BitmapFormatError('bitmap runs overlap or are out of order');
        for (let v = start; v < start + length; v++) values.push(high + v);
        next = start + length + 1;
      }
    } else if (cardinality <= ARRAY_LIMIT) {
      let previous = -1;
      for (let c = 0; c < cardinality; c++) {
        const low = u16();
        if (low <= previous) throw new BitmapFormatError('bitmap values repeat or are out of order');
        previous = low;
        values.push(high + low);
      }
    } else {
      need(BITMAP_BYTES);
      for (let byte = 0; byte < BITMAP_BYTES; byte++) {
        const bits = bytes[at + byte]!;
        for (let bit = 0; bit < 8; bit++) if (bits & (1 << bit)) values.push(high + byte * 8 + bit);
      }
      at += BITMAP_BYTES;
    }
    if (values.length - before !== cardinality) throw new BitmapFormatError(`bitmap container ${keys[i]} holds ${values.length - before} values, not the ${cardinality} it declares`);
  }
  if (at !== bytes.length) throw new BitmapFormatError(`${bytes.length - at} bytes follow the bitmap`);
  return values;
}

/** The serialization without runs (what Sui's validators produce for small committees), for a set of indices. */
export function encodeRoaring(indices: Iterable<number>): Uint8Array {
  const sorted = [...new Set(indices)].sort((a, b) => a - b);
  const containers = new Map<number, number[]>();
  for (const value of sorted) {
    const key = Math.floor(value / 65536);
    const list = containers.get(key) ?? [];
    list.push(value % 65536);
    containers.set(key, list);
  }
  const entries = [...containers];
  const dataSize = entries.reduce((total, [, list]) => total + (list.length <= ARRAY_LIMIT ? 2 * list.length : BITMAP_BYTES), 0);
  const header = 8 + 8 * entries.length;
  const out = new Uint8Array(header + dataSize);
  const view = new DataView(out.buffer);
  view.setUint32(0, COOKIE_NO_RUNS, true);
  view.setUint32(4, entries.length, true);
  let at = header;
  entries.forEach(([key, list], i) => {
    view.setUint16(8 + 4 * i, key, true);
    view.setUint16(10 + 4 * i, list.length - 1, true);
    view.setUint32(8 + 4 * entries.length + 4 * i, at, true);
    if (list.length <= ARRAY_LIMIT) {
      for (const low of list) { view.setUint16(at, low, true); at += 2; }
    } else {
      for (const low of list) out[at + (low >> 3)] = out[at + (low >> 3)]! | (1 << (low & 7));
      at += BITMAP_BYTES;
    }
  });
  return out;
}
