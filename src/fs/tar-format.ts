import { MalformedArchiveError } from '../ports/artifact-errors.ts';

/**
 * The tar format, as much of it as an app artifact needs (POSIX.1-2001 "pax": ustar headers, plus `x` extended
 * headers for paths and link targets over 100 bytes and sizes over 8 GiB). Pure: bytes in, bytes or entries out.
 *
 * The writer emits one canonical form, so equal entries give equal bytes: every header field is fixed except name,
 * mode, size, type and link target (uid/gid 0, no user or group names, mtime MTIME, no device numbers, no prefix
 * split: long names always go through a pax record). The reader accepts regular files, directories and symbolic
 * links in ustar or pax form; anything else (hard links, devices, FIFOs, GNU long-name records, base-256 numbers)
 * is refused rather than half-understood.
 */

export const BLOCK = 512;
/** Every entry's modification time: the epoch. The tree's times never reach the archive. */
export const MTIME = 0;
/** The name of every pax extended header (readers use the record's contents, never this name). */
const PAX_NAME = 'PaxHeader';
/** Bounds that keep a hostile archive from making the reader buffer without end. */
const MAX_PAX_BYTES = 64 * 1024;
const MAX_PATH_BYTES = 4096;

export type EntryType = 'file' | 'directory' | 'symlink';

export interface TarEntry {
  /** Relative, `/`-separated, no trailing slash. */
  path: string;
  type: EntryType;
  /** Permission bits only (0644 / 0755 in what we write). */
  mode: number;
  /** Body length; 0 for directories and links. */
  size: number;
  /** Link target, for symlinks. */
  target?: string;
}

const encoder = new TextEncoder();
const decoder = new TextDecoder('utf-8', { fatal: true });

/** The header block(s) announcing `entry`: a pax header first when a field does not fit ustar. */
export function entryHeader(entry: TarEntry): Uint8Array {
  const name = entry.type === 'directory' ? `${entry.path}/` : entry.path;
  const nameBytes = encoder.encode(name);
  const targetBytes = encoder.encode(entry.target ?? '');
  const pax: Array<[string, string]> = [];
  if (nameBytes.byteLength > 100) pax.push(['path', name]);
  if (targetBytes.byteLength > 100) pax.push(['linkpath', entry.target!]);
  if (entry.size > MAX_OCTAL_SIZE) pax.push(['size', String(entry.size)]);
  const main = ustarHeader({
    name: nameBytes.byteLength > 100 ? encoder.encode(asciiFallback(name)) : nameBytes,
    mode: entry.mode,
    size: entry.size > MAX_OCTAL_SIZE ? 0 : entry.size,
    typeflag: entry.type === 'file' ? '0' : entry.type === 'directory' ? '5' : '2',
    linkname: targetBytes.byteLength > 100 ? new Uint8Array(0) : targetBytes,
  });
  if (pax.length === 0) return main;
  const records = encoder.encode(pax.map(([key, value]) => paxRecord(key, value)).join(''));
  const paxHeader = ustarHeader({ name: encoder.encode(PAX_NAME), mode: 0o644, size: records.byteLength, typeflag: 'x', linkname: new Uint8Array(0) });
  const out = new Uint8Array(BLOCK + padded(records.byteLength) + BLOCK);
  out.set(paxHeader, 0);
  out.set(records, BLOCK);
  out.set(main, BLOCK + padded(records.byteLength));
  return out;
}

/** Zeros that fill a body of `size` bytes up to the next block boundary. */
export function bodyPadding(size: number): Uint8Array {
  return new Uint8Array(padded(size) - size);
}

/** The end-of-archive marker: two zero blocks. */
export function endOfArchive(): Uint8Array {
  return new Uint8Array(2 * BLOCK);
}

/** 11 octal digits: the largest size a ustar header holds. */
const MAX_OCTAL_SIZE = 0o77777777777;

function padded(size: number): number {
  return Math.ceil(size / BLOCK) * BLOCK;
}

/** The ustar name field of an entry whose real name is in a pax record: its first 100 bytes, cut at a character. */
function asciiFallback(name: string): string {
  let out = '';
  for (const char of name) {
    if (encoder.encode(out + char).byteLength > 100) break;
    out += char;
  }
  return out;
}

/** `"<length> <key>=<value>\n"`, where length counts the whole record, its own digits included. */
function paxRecord(key: string, value: string): string {
  const body = ` ${key}=${value}\n`;
  const bodyLength = encoder.encode(body).byteLength;
  let length = bodyLength + String(bodyLength).length;
  if (String(length).length !== String(bodyLength).length) length = bodyLength + String(length).length;
  return `${length}${body}`;
}

function ustarHeader(fields: { name: Uint8Array; mode: number; size: number; typeflag: string; linkname: Uint8Array }): Uint8Array {
  const header = new Uint8Array(BLOCK);
  header.set(fields.name, 0);
  writeOctal(header, 100, 8, fields.mode);
  writeOctal(header, 108, 8, 0); // uid
  writeOctal(header, 116, 8, 0); // gid
  writeOctal(header, 124, 12, fields.size);
  writeOctal(header, 136, 12, MTIME);
  header.fill(0x20, 148, 156); // checksum field counts as spaces while summing
  header[156] = fields.typeflag.charCodeAt(0);
  header.set(fields.linkname, 157);
  header.set(encoder.encode('ustar\u000000'), 257);
  // uname, gname, devmajor, devminor and prefix stay zero-filled.
  writeOctal(header, 148, 7, checksum(header));
  header[155] = 0x20;
  return header;
}

/** `width - 1` zero-padded octal digits and a NUL. */
function writeOctal(header: Uint8Array, offset: number, width: number, value: number): void {
  const digits = value.toString(8).padStart(width - 1, '0');
  if (digits.length > width - 1) throw new RangeError(`${value} does not fit a ${width}-byte tar field`);
  header.set(encoder.encode(digits), offset);
  header[offset + width - 1] = 0;
}

function checksum(header: Uint8Array): number {
  let sum = 0;
  for (let i = 0; i < BLOCK; i++) sum += i >= 148 && i < 156 ? 0x20 : header[i];
  return sum;
}

export type TarEvent = { kind: 'entry'; entry: TarEntry } | { kind: 'data'; bytes: Uint8Array } | { kind: 'end-entry' };

/**
 * A streaming tar reader: `push` bytes in any pieces, get back the events they complete (an entry's header, pieces
 * of its body, its end). `finish` checks the archive ended properly. Bodies are never buffered.
 */
export class TarReader {
  #pending: Uint8Array = new Uint8Array(0);
  #state: 'header' | 'pax' | 'body' | 'padding' | 'end' = 'header';
  #remaining = 0;
  #padding = 0;
  /** The pending pax header's records, for the entry that follows it; null when there is none. */
  #pax: Record<string, string> | null = null;
  #paxBody: Uint8Array[] = [];
  #zeroBlocks = 0;

  push(bytes: Uint8Array): TarEvent[] {
    const events: TarEvent[] = [];
    let input = bytes;
    while (input.byteLength > 0) {
      if (this.#state === 'end') {
        if (input.some((byte) => byte !== 0)) throw new MalformedArchiveError('data after the end-of-archive marker');
        return events;
      }
      if (this.#state === 'body') {
        const take = Math.min(this.#remaining, input.byteLength);
        events.push({ kind: 'data', bytes: input.subarray(0, take) });
        input = input.subarray(take);
        this.#remaining -= take;
        if (this.#remaining === 0) this.#endBody(events);
        continue;
      }
      if (this.#state === 'pax') {
        const take = Math.min(this.#remaining, input.byteLength);
        this.#paxBody.push(input.slice(0, take));
        input = input.subarray(take);
        this.#remaining -= take;
        if (this.#remaining === 0) {
          this.#pax = parsePax(Buffer.concat(this.#paxBody));
          this.#paxBody = [];
          this.#skipPadding();
        }
        continue;
      }
      if (this.#state === 'padding') {
        const take = Math.min(this.#padding, input.byteLength);
        input = input.subarray(take);
        this.#padding -= take;
        if (this.#padding === 0) this.#state = 'header';
        continue;
      }
      // header: gather one block
      const need = BLOCK - this.#pending.byteLength;
      const piece = input.subarray(0, need);
      input = input.subarray(piece.byteLength);
      this.#pending = this.#pending.byteLength === 0 && piece.byteLength === BLOCK ? piece : Buffer.concat([this.#pending, piece]);
      if (this.#pending.byteLength < BLOCK) continue;
      const block = this.#pending;
      this.#pending = new Uint8Array(0);
      this.#header(block, events);
    }
    return events;
  }

  /** Throws unless the archive ended at an entry boundary with its end-of-archive marker. */
  finish(): void {
    if (this.#state !== 'end' || this.#pending.byteLength > 0) throw new MalformedArchiveError('the archive is truncated (no end-of-archive marker)');
  }

  #header(block: Uint8Array, events: TarEvent[]): void {
    if (block.every((byte) => byte === 0)) {
      if (++this.#zeroBlocks === 2) this.#state = 'end';
      return;
    }
    if (this.#zeroBlocks > 0) throw new MalformedArchiveError('a lone zero block inside the archive');
    if (readOctal(block, 148, 8, 'checksum') !== checksum(block)) throw new MalformedArchiveError('a header checksum does not match');
    const magic = String.fromCharCode(...block.subarray(257, 263));
    if (magic !== 'ustar\u0000' && magic !== 'ustar ') throw new MalformedArchiveError('a header is not in ustar form');
    const typeflag = String.fromCharCode(block[156]);
    const size = readOctal(block, 124, 12, 'size');
    if (typeflag === 'x') {
      if (this.#pax !== null) throw new MalformedArchiveError('two pax headers in a row');
      if (size > MAX_PAX_BYTES) throw new MalformedArchiveError(`a pax header of ${size} bytes (at most ${MAX_PAX_BYTES})`);
      this.#remaining = size;
      this.#padding = padded(size) - size;
      this.#paxBody = [];
      this.#pax = {};
      if (size > 0) this.#state = 'pax';
      return;
    }
    const type: EntryType | undefined = typeflag === '0' || typeflag === '\u0000' ? 'file' : typeflag === '5' ? 'directory' : typeflag === '2' ? 'symlink' : undefined;
    if (type === undefined) throw new MalformedArchiveError(`an entry of tar type '${typeflag}' (only files, directories and symbolic links are allowed)`, { typeflag });
    const pax = this.#pax ?? {};
    this.#pax = null;
    const prefix = text(block.subarray(345, 500));
    const rawName = pax.path ?? (prefix ? `${prefix}/${text(block.subarray(0, 100))}` : text(block.subarray(0, 100)));
    if (encoder.encode(rawName).byteLength > MAX_PATH_BYTES) throw new MalformedArchiveError(`a path longer than ${MAX_PATH_BYTES} bytes`);
    const entrySize = type === 'file' ? (pax.size !== undefined ? parseSize(pax.size) : size) : 0;
    const entry: TarEntry = { path: rawName.replace(/\/+$/, ''), type, mode: readOctal(block, 100, 8, 'mode') & 0o7777, size: entrySize };
    if (type === 'symlink') entry.target = pax.linkpath ?? text(block.subarray(157, 257));
    events.push({ kind: 'entry', entry });
    this.#remaining = entrySize;
    this.#padding = padded(entrySize) - entrySize;
    if (entrySize === 0) this.#endBody(events);
    else this.#state = 'body';
  }

  #endBody(events: TarEvent[]): void {
    events.push({ kind: 'end-entry' });
    this.#skipPadding();
  }

  /** After a body, skip the zeros up to the block boundary (#padding bytes). */
  #skipPadding(): void {
    this.#state = this.#padding > 0 ? 'padding' : 'header';
  }
}

function parsePax(bytes: Uint8Array): Record<string, string> {
  const records: Record<string, string> = {};
  let offset = 0;
  while (offset < bytes.byteLength) {
    const space = bytes.indexOf(0x20, offset);
    if (space < 0) throw new MalformedArchiveError('a pax record without a length');
    const length = Number(text(bytes.subarray(offset, space)));
    if (!Number.isInteger(length) || length <= 0 || offset + length > bytes.byteLength || bytes[offset + length - 1] !== 0x0a) {
      throw new MalformedArchiveError('a pax record with a wrong length');
    }
    const record = decodeUtf8(bytes.subarray(space + 1, offset + length - 1));
    const equals = record.indexOf('=');
    if (equals <= 0) throw new MalformedArchiveError('a pax record without a key');
    const key = record.slice(0, equals);
    // Only what changes where or how much is written matters; times, owners and the like are ignored.
    if (key === 'path' || key === 'linkpath' || key === 'size') records[key] = record.slice(equals + 1);
    offset += length;
  }
  return records;
}

function parseSize(value: string): number {
  const size = Number(value);
  if (!/^\d+$/.test(value) || !Number.isSafeInteger(size)) throw new MalformedArchiveError(`a pax size '${value}'`);
  return size;
}

function readOctal(block: Uint8Array, offset: number, width: number, field: string): number {
  const raw = block.subarray(offset, offset + width);
  if (raw[0] & 0x80) throw new MalformedArchiveError(`a base-256 ${field} field`);
  const digits = String.fromCharCode(...raw).replace(/[\u0000 ]+$/, '').replace(/^ +/, '');
  if (digits === '') return 0;
  if (!/^[0-7]+$/.test(digits)) throw new MalformedArchiveError(`a ${field} field that is not octal`);
  return parseInt(digits, 8);
}

/** A NUL-terminated UTF-8 header field. */
function text(field: Uint8Array): string {
  const end = field.indexOf(0);
  return decodeUtf8(end < 0 ? field : field.subarray(0, end));
}

function decodeUtf8(bytes: Uint8Array): string {
  try {
    return decoder.decode(bytes);
  } catch {
    throw new MalformedArchiveError('a name that is not UTF-8');
  }
}
