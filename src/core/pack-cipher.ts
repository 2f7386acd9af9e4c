/**
 * Envelope encryption of the packs of a private repository (docs/architecture.md, Private repositories (Seal)). The one
 * definition of the format.
 *
 * Each pack gets a 256-bit data key of its own, fresh or derived from its identity's shared key with a salt of its own
 * (only that key is Seal-encrypted: src/core/shared-pack-key.ts, src/ports/key-service.ts) and
 * an identity, the Seal id of that key: the repository's 32 id bytes followed by a 32-byte nonce, random or shared by
 * the packs of one access state (src/core/pack-identity.ts). The stored
 * pack (what the chain's size and sha256 and the Walrus blob ids describe) is:
 *
 *     header = "wgpe" ‖ version (u8, 1) ‖ log2 of the frame size (u8, 16: 64 KiB frames)
 *     frame i = AES-256-GCM(key = data key, nonce = u64be(i) ‖ 00 00 00 ‖ last, aad, plaintext bytes
 *               [i·F, i·F + F)) ‖ its 16-byte tag
 *     aad     = header ‖ u16be(identity length) ‖ identity ‖ u64be(i) ‖ last
 *
 * where `last` is 1 for the final frame and 0 otherwise. Every frame but the last holds exactly F plaintext bytes;
 * the last holds 0 to F (0 only when the whole pack is empty) and is always present. Binding the index refuses
 * reordered frames, the data key (one per pack) refuses frames of another pack, the identity binds the frames to
 * the key the key servers released (and to the repository), and the `last` flag
 * refuses a pack cut short at a frame boundary or extended past its end. Frames are independent of the Walrus
 * chunks the stored bytes are cut into (≤ 10 MiB each): a decryptor takes the bytes as they arrive, in any pieces.
 *
 * A decryptor releases a frame's plaintext only after its tag verified, so nothing unauthenticated ever reaches git.
 */
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { WalrusGitError } from './errors.ts';

export const DATA_KEY_BYTES = 32;
/** The random part of a pack's identity (after the repository's id bytes). */
export const IDENTITY_NONCE_BYTES = 32;
export const TAG_BYTES = 16;
const MAGIC = [0x77, 0x67, 0x70, 0x65]; // "wgpe": walrus git pack, encrypted
const VERSION = 1;
export const HEADER_BYTES = 6;
/** log2 of the plaintext bytes per frame this version writes (64 KiB: 0.02% overhead, a small buffer to hold). */
export const FRAME_SHIFT = 16;
/** The frame sizes a reader accepts (4 KiB to 4 MiB): what it buffers is bounded whatever the header says. */
const MIN_FRAME_SHIFT = 12;
const MAX_FRAME_SHIFT = 22;

/**
 * A stored pack that does not decrypt: altered, reordered, truncated, extended, or not this pack's at all.
 * What to do: fetch again; if it persists the stored pack was altered, and a writer with the objects runs `git walrus gc`.
 */
export class PackDecryptionError extends WalrusGitError {
  constructor(pack: string, reason: string) {
    super('PACK_DECRYPTION_FAILED', `${pack} does not decrypt: ${reason}; nothing was applied and no ref was changed`, { pack, reason });
  }
}

/** A fresh data key for one pack. */
export function newDataKey(): Uint8Array {
  return new Uint8Array(randomBytes(DATA_KEY_BYTES));
}

/** A fresh identity for one pack of repository `repositoryId` (0x + 64 hex): its id bytes ‖ a random nonce. */
export function newPackIdentity(repositoryId: string): Uint8Array {
  return packIdentityWith(repositoryId, randomBytes(IDENTITY_NONCE_BYTES));
}

/** The identity of repository `repositoryId` with `nonce` (IDENTITY_NONCE_BYTES bytes) after its id bytes. */
export function packIdentityWith(repositoryId: string, nonce: Uint8Array): Uint8Array {
  if (nonce.length !== IDENTITY_NONCE_BYTES) throw new TypeError(`an identity nonce has ${IDENTITY_NONCE_BYTES} bytes, not ${nonce.length}`);
  const id = repositoryIdBytes(repositoryId);
  const identity = new Uint8Array(id.length + IDENTITY_NONCE_BYTES);
  identity.set(id);
  identity.set(nonce, id.length);
  return identity;
}

/** Whether `identity` names a pack of repository `repositoryId` (starts with its id bytes, then a nonce). */
export function isIdentityOf(identity: Uint8Array, repositoryId: string): boolean {
  const id = repositoryIdBytes(repositoryId);
  return identity.length === id.length + IDENTITY_NONCE_BYTES && id.every((byte, i) => identity[i] === byte);
}

function repositoryIdBytes(repositoryId: string): Uint8Array {
  const hex = repositoryId.toLowerCase().replace(/^0x/, '').padStart(64, '0');
  if (!/^[0-9a-f]{64}$/.test(hex)) throw new TypeError(`not an object id: ${repositoryId}`);
  return Uint8Array.from(Buffer.from(hex, 'hex'));
}

/** Bytes of the stored pack for `plainSize` bytes of pack, with frames of 2^`shift` bytes. */
export function encryptedSize(plainSize: number, shift = FRAME_SHIFT): number {
  const frames = Math.max(1, Math.ceil(plainSize / 2 ** shift));
  return HEADER_BYTES + plainSize + frames * TAG_BYTES;
}

/**
 * Whether `start` (the first bytes of a stored pack) is an encrypted pack's header: what anyone can check of a private
 * repository's packs without a key (a plaintext pack starts with "PACK" instead).
 */
export function isEncryptedPackStart(start: Uint8Array): boolean {
  return start.length >= HEADER_BYTES && MAGIC.every((byte, i) => start[i] === byte) && start[4] === VERSION && start[5]! >= MIN_FRAME_SHIFT && start[5]! <= MAX_FRAME_SHIFT;
}

function headerBytes(shift: number): Uint8Array {
  return Uint8Array.from([...MAGIC, VERSION, shift]);
}

function nonceOf(index: number, last: boolean): Uint8Array {
  const nonce = new Uint8Array(12);
  new DataView(nonce.buffer).setBigUint64(0, BigInt(index));
  nonce[11] = last ? 1 : 0;
  return nonce;
}

function aadOf(header: Uint8Array, identity: Uint8Array, index: number, last: boolean): Uint8Array {
  const aad = new Uint8Array(header.length + 2 + identity.length + 9);
  const view = new DataView(aad.buffer);
  aad.set(header);
  view.setUint16(header.length, identity.length);
  aad.set(identity, header.length + 2);
  view.setBigUint64(header.length + 2 + identity.length, BigInt(index));
  aad[aad.length - 1] = last ? 1 : 0;
  return aad;
}

function checkKey(key: Uint8Array): void {
  if (key.length !== DATA_KEY_BYTES) throw new TypeError(`a data key has ${DATA_KEY_BYTES} bytes, not ${key.length}`);
}

/**
 * Encrypts one pack frame by frame. The caller passes the plaintext in frames of exactly `frameSize` bytes, says
 * which is the last (it may be shorter), and stores `header` followed by every frame's output in order.
 */
export class PackEncryptor {
  readonly header: Uint8Array;
  readonly frameSize: number;
  readonly #key: Uint8Array;
  readonly #identity: Uint8Array;
  #index = 0;
  #finished = false;
  /** For `update`/`end`: whether the header was given out, and the frame being collected. */
  #started = false;
  #pending = new Uint8Array(0);

  constructor(key: Uint8Array, identity: Uint8Array, shift = FRAME_SHIFT) {
    checkKey(key);
    if (shift < MIN_FRAME_SHIFT || shift > MAX_FRAME_SHIFT) throw new RangeError(`frame size 2^${shift} is outside 2^${MIN_FRAME_SHIFT}..2^${MAX_FRAME_SHIFT}`);
    this.#key = key;
    this.#identity = identity;
    this.header = headerBytes(shift);
    this.frameSize = 2 ** shift;
  }

  /**
   * Encrypts a stream fed in pieces of any size, in order (the counterpart of PackDecryptor.update): yields the
   * header first, then each full frame once a byte after it has arrived (only then is it known not to be the last);
   * `end` returns the last frame. Holds at most one frame besides the piece given.
   */
  *update(bytes: Uint8Array): Generator<Uint8Array> {
    if (!this.#started) {
      this.#started = true;
      yield this.header;
    }
    let input = bytes;
    while (input.length > 0) {
      if (this.#pending.length === this.frameSize) {
        yield this.frame(this.#pending, false);
        this.#pending = new Uint8Array(0);
      }
      const take = Math.min(this.frameSize - this.#pending.length, input.length);
      const grown = new Uint8Array(this.#pending.length + take);
      grown.set(this.#pending);
      grown.set(input.subarray(0, take), this.#pending.length);
      this.#pending = grown;
      input = input.subarray(take);
    }
  }

  /** The stream is complete: the header (if nothing was fed) and the last frame. */
  end(): Uint8Array {
    const head = this.#started ? new Uint8Array(0) : this.header;
    this.#started = true;
    const last = this.frame(this.#pending, true);
    this.#pending = new Uint8Array(0);
    return Buffer.concat([head, last]);
  }

  /** The next frame's stored bytes (plaintext length + 16). */
  frame(plaintext: Uint8Array, last: boolean): Uint8Array {
    if (this.#finished) throw new RangeError('the last frame was already encrypted');
    if (last ? plaintext.length > this.frameSize : plaintext.length !== this.frameSize) {
      throw new RangeError(`frame ${this.#index} has ${plaintext.length} bytes; every frame but the last has ${this.frameSize}`);
    }
    const cipher = createCipheriv('aes-256-gcm', this.#key, nonceOf(this.#index, last));
    cipher.setAAD(aadOf(this.header, this.#identity, this.#index, last));
    const out = new Uint8Array(plaintext.length + TAG_BYTES);
    out.set(cipher.update(plaintext));
    cipher.final();
    out.set(cipher.getAuthTag(), plaintext.length);
    this.#index += 1;
    this.#finished = last;
    return out;
  }
}

/**
 * Decrypts a stored pack fed in pieces of any size, in order. `update` yields each frame's plaintext once its tag
 * verified, holding at most one frame besides the piece given; `end` checks that the pack ends with its last frame
 * and returns that frame's plaintext.
 * Every refusal is a PackDecryptionError naming `label` (e.g. `pack 3 of repository 0x…`).
 */
export class PackDecryptor {
  readonly #key: Uint8Array;
  readonly #identity: Uint8Array;
  readonly #label: string;
  #header: Uint8Array | null = null;
  #frameSize = 0;
  /** Bytes of the frame (or header) being collected. */
  #pending = new Uint8Array(0);
  #index = 0;
  #finished = false;

  constructor(key: Uint8Array, identity: Uint8Array, label: string) {
    checkKey(key);
    this.#key = key;
    this.#identity = identity;
    this.#label = label;
  }

  /** The whole stored pack at once (for `show` and `verify --deep`, which hold packs in memory anyway). */
  all(stored: Uint8Array): Uint8Array {
    return Buffer.concat([...this.update(stored), this.end()]);
  }

  *update(bytes: Uint8Array): Generator<Uint8Array> {
    if (this.#finished) throw new RangeError('update after end');
    let input = bytes;
    if (this.#header === null) {
      input = this.#take(input, HEADER_BYTES);
      if (this.#pending.length < HEADER_BYTES) return;
      this.#readHeader(this.#pending);
      this.#pending = new Uint8Array(0);
    }
    const stored = this.#frameSize + TAG_BYTES;
    // A full frame is known not to be the last only once a byte after it has arrived.
    if (this.#pending.length > 0) {
      input = this.#take(input, stored);
      if (this.#pending.length < stored || input.length === 0) return;
      const frame = this.#pending;
      this.#pending = new Uint8Array(0);
      yield this.#open(frame, false);
    }
    while (input.length > stored) {
      yield this.#open(input.subarray(0, stored), false);
      input = input.subarray(stored);
    }
    this.#pending = new Uint8Array(input); // a copy: the caller may reuse its buffer
  }

  /** The stored pack is complete: its last frame must be what remains. Returns that frame's plaintext. */
  end(): Uint8Array {
    if (this.#finished) throw new RangeError('end was already called');
    if (this.#header === null) throw this.#refuse(this.#pending.length === 0 ? 'it is empty' : `it ends inside its ${HEADER_BYTES}-byte header`);
    if (this.#pending.length < TAG_BYTES) throw this.#refuse(`it ends inside frame ${this.#index} (cut short)`);
    const plaintext = this.#open(this.#pending, true);
    this.#pending = new Uint8Array(0);
    // Only a pack with no frame before its last may have an empty last frame: the encryptor writes no other.
    if (plaintext.length === 0 && this.#index > 1) throw this.#refuse(`its last frame (${this.#index - 1}) is empty`);
    this.#finished = true;
    return plaintext;
  }

  /** Appends to #pending from `input` until it holds `want` bytes; returns what is left of `input`. */
  #take(input: Uint8Array, want: number): Uint8Array {
    const need = Math.min(want - this.#pending.length, input.length);
    if (need <= 0) return input;
    const grown = new Uint8Array(this.#pending.length + need);
    grown.set(this.#pending);
    grown.set(input.subarray(0, need), this.#pending.length);
    this.#pending = grown;
    return input.subarray(need);
  }

  #readHeader(header: Uint8Array): void {
    if (!MAGIC.every((byte, i) => header[i] === byte)) throw this.#refuse('it is not an encrypted pack (no "wgpe" header)');
    if (header[4] !== VERSION) throw this.#refuse(`it has format version ${header[4]}; this git-remote-walrus reads version ${VERSION}`);
    const shift = header[5]!;
    if (shift < MIN_FRAME_SHIFT || shift > MAX_FRAME_SHIFT) throw this.#refuse(`its frame size 2^${shift} is outside 2^${MIN_FRAME_SHIFT}..2^${MAX_FRAME_SHIFT}`);
    this.#header = header.slice();
    this.#frameSize = 2 ** shift;
  }

  #open(frame: Uint8Array, last: boolean): Uint8Array {
    const index = this.#index;
    const length = frame.length - TAG_BYTES;
    const decipher = createDecipheriv('aes-256-gcm', this.#key, nonceOf(index, last));
    decipher.setAAD(aadOf(this.#header!, this.#identity, index, last));
    decipher.setAuthTag(frame.subarray(length));
    const out = new Uint8Array(length);
    out.set(decipher.update(frame.subarray(0, length)));
    try {
      decipher.final();
    } catch {
      throw this.#refuse(
        last
          ? `its last frame (${index}) fails authentication: the bytes were altered, reordered, cut short or belong to another pack`
          : `frame ${index} fails authentication: the bytes were altered, reordered or belong to another pack`,
      );
    }
    this.#index += 1;
    return out;
  }

  #refuse(reason: string): PackDecryptionError {
    return new PackDecryptionError(this.#label, reason);
  }
}
