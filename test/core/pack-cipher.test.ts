import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { randomBytes } from 'node:crypto';
import {
  encryptedSize, HEADER_BYTES, isIdentityOf, newDataKey, newPackIdentity, PackDecryptionError, PackDecryptor, PackEncryptor, TAG_BYTES,
} from '../../src/core/pack-cipher.ts';

const REPO = `0x${'ab'.repeat(32)}`;
const SHIFT = 12; // 4 KiB frames keep the cases small
const FRAME = 2 ** SHIFT;

/** Encrypts `plain` the way push does: full frames, the last one flagged (and present even when empty). */
function encrypt(key: Uint8Array, identity: Uint8Array, plain: Uint8Array, shift = SHIFT): Uint8Array {
  const encryptor = new PackEncryptor(key, identity, shift);
  const parts = [encryptor.header];
  const size = encryptor.frameSize;
  let at = 0;
  do {
    const last = plain.length - at <= size;
    parts.push(encryptor.frame(plain.subarray(at, Math.min(at + size, plain.length)), last));
    at += size;
  } while (at < plain.length);
  return new Uint8Array(Buffer.concat(parts)); // a copy that .slice() copies again (Buffer.slice would share it)
}

/** Feeds `stored` to a decryptor in pieces of `piece` bytes and returns the plaintext. */
function decrypt(key: Uint8Array, identity: Uint8Array, stored: Uint8Array, piece = stored.length): Uint8Array {
  const decryptor = new PackDecryptor(key, identity, 'pack 0 of repository test');
  const out: Uint8Array[] = [];
  for (let at = 0; at < stored.length; at += piece) out.push(...decryptor.update(stored.subarray(at, at + piece)));
  out.push(decryptor.end());
  return Buffer.concat(out);
}

const same = (actual: Uint8Array, expected: Uint8Array, message?: string) => assert.ok(Buffer.from(actual).equals(Buffer.from(expected)), message);

function refused(run: () => unknown, reason: RegExp): void {
  try {
    run();
  } catch (error) {
    assert.instance(error, PackDecryptionError);
    assert.match((error as Error).message, reason, (error as Error).message);
    assert.match((error as Error).message, /nothing was applied/);
    return;
  }
  assert.unreachable('the stored pack was accepted');
}

const cipher = suite('pack cipher');
const key = newDataKey();
const identity = newPackIdentity(REPO);

cipher('update/end write, from pieces of any size, exactly what frame-by-frame encryption writes', () => {
  for (const size of [0, 1, FRAME - 1, FRAME, FRAME + 1, 3 * FRAME, 3 * FRAME + 17]) {
    const plain = new Uint8Array(randomBytes(size));
    for (const piece of [size || 1, 1, 1000, FRAME, FRAME + 1]) {
      // The same key and identity: AES-GCM with the per-frame nonce is deterministic, so the bytes must match.
      const encryptor = new PackEncryptor(key, identity, SHIFT);
      const out: Uint8Array[] = [];
      for (let at = 0; at < plain.length; at += piece) out.push(...encryptor.update(plain.subarray(at, at + piece)));
      out.push(encryptor.end());
      same(Buffer.concat(out), encrypt(key, identity, plain), `${size} bytes in pieces of ${piece}`);
    }
  }
});

cipher('round-trips every size around frame boundaries, fed whole or in odd pieces', () => {
  for (const size of [0, 1, FRAME - 1, FRAME, FRAME + 1, 3 * FRAME, 3 * FRAME + 17]) {
    const plain = new Uint8Array(randomBytes(size));
    const stored = encrypt(key, identity, plain);
    assert.is(stored.length, encryptedSize(size, SHIFT), `size of ${size}`);
    for (const piece of [stored.length || 1, 1, 7, FRAME + TAG_BYTES, FRAME + TAG_BYTES + 1]) {
      same(decrypt(key, identity, stored, piece), plain, `${size} bytes in pieces of ${piece}`);
    }
  }
});

cipher('the default format: a 6-byte header and 64 KiB frames, 16 bytes of tag each', () => {
  const plain = new Uint8Array(randomBytes(150_000));
  const encryptor = new PackEncryptor(key, identity);
  assert.is(encryptor.frameSize, 65_536);
  assert.equal([...encryptor.header], [0x77, 0x67, 0x70, 0x65, 1, 16]);
  const stored = encrypt(key, identity, plain, 16);
  assert.is(stored.length, HEADER_BYTES + 150_000 + 3 * TAG_BYTES);
  same(new PackDecryptor(key, identity, 'p').all(stored), plain);
});

cipher('identities are the repository id bytes and a fresh nonce', () => {
  const other = newPackIdentity(REPO);
  assert.is(identity.length, 64);
  same(identity.subarray(0, 32), Buffer.from('ab'.repeat(32), 'hex'));
  assert.not.ok(Buffer.from(identity).equals(other));
  assert.ok(isIdentityOf(identity, REPO));
  assert.not.ok(isIdentityOf(identity, `0x${'cd'.repeat(32)}`));
  assert.not.ok(isIdentityOf(identity.subarray(0, 40), REPO));
});

const plain = new Uint8Array(randomBytes(4 * FRAME + 100));
const stored = encrypt(key, identity, plain);
const frameAt = (i: number) => HEADER_BYTES + i * (FRAME + TAG_BYTES);

cipher('a flipped bit anywhere is refused, at the frame it is in', () => {
  for (const [at, reason] of [[frameAt(1) + 5, /frame 1 fails authentication/], [frameAt(4) + 3, /last frame \(4\) fails/], [frameAt(2) - 1, /frame 1 fails/]] as const) {
    const tampered = stored.slice();
    tampered[at]! ^= 1;
    refused(() => decrypt(key, identity, tampered), reason);
  }
  const header = stored.slice();
  header[5] = 13; // the frame size is authenticated too: a changed header parses, then no frame verifies
  refused(() => decrypt(key, identity, header), /fails authentication/);
});

cipher('swapped or reordered frames are refused', () => {
  const frames = [0, 1, 2, 3].map((i) => stored.subarray(frameAt(i), frameAt(i + 1)));
  const reordered = new Uint8Array(Buffer.concat([stored.subarray(0, HEADER_BYTES), frames[1]!, frames[0]!, frames[2]!, frames[3]!, stored.subarray(frameAt(4))]));
  refused(() => decrypt(key, identity, reordered), /frame 0 fails authentication/);
  const duplicated = Buffer.concat([stored.subarray(0, frameAt(2)), frames[1]!, stored.subarray(frameAt(3))]);
  refused(() => decrypt(key, identity, duplicated), /frame 2 fails/);
});

cipher('frames of another pack, or the same bytes under another identity or key, are refused', () => {
  const otherIdentity = newPackIdentity(REPO);
  const sameKeyOtherPack = encrypt(key, otherIdentity, plain);
  const spliced = Buffer.concat([stored.subarray(0, frameAt(2)), sameKeyOtherPack.subarray(frameAt(2))]);
  refused(() => decrypt(key, identity, spliced), /frame 2 fails/);
  refused(() => decrypt(key, otherIdentity, stored), /frame 0 fails/);
  refused(() => decrypt(newDataKey(), identity, stored), /frame 0 fails/);
});

cipher('a pack cut short or extended is refused', () => {
  refused(() => decrypt(key, identity, stored.subarray(0, frameAt(4))), /last frame \(3\) fails authentication.*cut short/);
  refused(() => decrypt(key, identity, stored.subarray(0, frameAt(4) + 10)), /ends inside frame 4/);
  refused(() => decrypt(key, identity, stored.subarray(0, 3)), /inside its 6-byte header/);
  refused(() => decrypt(key, identity, new Uint8Array(0)), /it is empty/);
  refused(() => decrypt(key, identity, Buffer.concat([stored, Buffer.from('x')])), /fails authentication/);
  // An extra empty "last" frame after a real one cannot be forged without the key either.
  const exact = encrypt(key, identity, plain.subarray(0, 2 * FRAME));
  const extra = new PackEncryptor(key, identity, SHIFT);
  extra.frame(plain.subarray(0, FRAME), false);
  extra.frame(plain.subarray(FRAME, 2 * FRAME), false);
  refused(() => decrypt(key, identity, Buffer.concat([exact.subarray(0, frameAt(2)), extra.frame(new Uint8Array(0), true)])), /fails authentication/);
});

cipher('no plaintext leaves the decryptor before its frame verified', () => {
  const tampered = stored.slice();
  tampered[frameAt(2) + 1]! ^= 1;
  const decryptor = new PackDecryptor(key, identity, 'p');
  const released: Uint8Array[] = [];
  try {
    for (const part of decryptor.update(tampered)) released.push(part);
  } catch (error) {
    assert.instance(error, PackDecryptionError);
  }
  assert.is(released.length, 2);
  same(Buffer.concat(released), plain.subarray(0, 2 * FRAME));
});

cipher('not an encrypted pack, another version, or an absurd frame size', () => {
  refused(() => decrypt(key, identity, Buffer.concat([Buffer.from('PACK\0\0'), stored.subarray(6)])), /not an encrypted pack/);
  const v2 = stored.slice();
  v2[4] = 2;
  refused(() => decrypt(key, identity, v2), /format version 2/);
  const huge = stored.slice();
  huge[5] = 40;
  refused(() => decrypt(key, identity, huge), /frame size 2\^40/);
});

cipher('the encryptor refuses frames of the wrong size and anything after the last', () => {
  const encryptor = new PackEncryptor(key, identity, SHIFT);
  assert.throws(() => encryptor.frame(new Uint8Array(FRAME - 1), false), /every frame but the last/);
  encryptor.frame(new Uint8Array(10), true);
  assert.throws(() => encryptor.frame(new Uint8Array(0), true), /already/);
  assert.throws(() => new PackEncryptor(new Uint8Array(16), identity), /32 bytes/);
});

cipher.run();
