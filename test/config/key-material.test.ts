import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { bech32 } from '@scure/base';
import { Ed25519Keypair } from '@mysten/sui/keypairs/ed25519';
import { Secp256k1Keypair } from '@mysten/sui/keypairs/secp256k1';
import { Secp256r1Keypair } from '@mysten/sui/keypairs/secp256r1';
import { decodeSuiPrivateKey } from '@mysten/sui/cryptography';
import type { Keypair } from '@mysten/sui/cryptography';
import { addressOfKey, decodeFlaggedKey, encodeFlaggedKey, generateEd25519Key, KeyFormatError, parseSuiPrivateKey } from '../../src/config/key-material.ts';
import type { KeyMaterial } from '../../src/config/key-material.ts';

/** Random keys of every scheme, made by the SDK, which is what the light derivations must agree with. */
const randomKeypairs = (perScheme: number): Keypair[] =>
  Array.from({ length: perScheme }, () => [Ed25519Keypair.generate(), Secp256k1Keypair.generate(), Secp256r1Keypair.generate()]).flat();

const materialOf = (keypair: Keypair): KeyMaterial => decodeSuiPrivateKey(keypair.getSecretKey()) as KeyMaterial;

/** The order of secp256k1's group: a secret key must lie in [1, n-1]. */
const SECP256K1_N = Buffer.from('fffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141', 'hex');
const suiprivkey = (bytes: Uint8Array, prefix = 'suiprivkey') => bech32.encode(prefix, bech32.toWords(bytes));

const address = suite('addressOfKey');

address("equals the SDK keypair's toSuiAddress() for random keys of every scheme", () => {
  for (const keypair of randomKeypairs(20)) {
    assert.is(addressOfKey(materialOf(keypair)), keypair.toSuiAddress(), keypair.getKeyScheme());
  }
});

address('is the normalized form: 0x and 64 lowercase hex digits', () => {
  assert.match(addressOfKey(generateEd25519Key()), /^0x[0-9a-f]{64}$/);
});

address.run();

const parse = suite('parseSuiPrivateKey');

parse("decodes suiprivkey1… of every scheme as the SDK's decodeSuiPrivateKey does", () => {
  for (const keypair of randomKeypairs(5)) {
    const text = keypair.getSecretKey();
    assert.equal(parseSuiPrivateKey(` ${text}\n`, 'env'), decodeSuiPrivateKey(text));
  }
});

parse('a corrupt, foreign or unsupported key is a KeyFormatError naming its source', () => {
  const valid = Ed25519Keypair.generate().getSecretKey();
  const flipped = valid.slice(0, -1) + (valid.endsWith('q') ? 'p' : 'q');
  const cases: [string, RegExp][] = [
    ['0xdeadbeef', /^GIT_WALRUS_KEY: not a Sui private key: it does not start with suiprivkey1; copy it again from `sui keytool export/],
    [flipped, /^GIT_WALRUS_KEY: not a Sui private key: its checksum does not match/],
    [suiprivkey(encodeFlaggedKey(generateEd25519Key()), 'suipubkey'), /does not start with suiprivkey1/],
    [suiprivkey(Uint8Array.of(5, ...new Uint8Array(32).fill(7))), /^GIT_WALRUS_KEY: unsupported key scheme .*flag 5/],
    [suiprivkey(Uint8Array.of(0, ...new Uint8Array(31).fill(7))), /31-byte secret/],
    [suiprivkey(Uint8Array.of(1, ...SECP256K1_N)), /flag 1/],
  ];
  for (const [text, message] of cases) {
    assert.throws(() => parseSuiPrivateKey(text, 'GIT_WALRUS_KEY'), (e: unknown) => e instanceof KeyFormatError && e.code === 'KEY_FORMAT' && message.test(e.message), text);
  }
});

parse.run();

const generate = suite('generateEd25519Key');

generate('makes a fresh Ed25519 key the SDK accepts, with the same address', () => {
  const keys = [generateEd25519Key(), generateEd25519Key()];
  for (const key of keys) {
    assert.is(key.scheme, 'ED25519');
    assert.is(key.secretKey.length, 32);
    assert.is(Ed25519Keypair.fromSecretKey(key.secretKey).toSuiAddress(), addressOfKey(key));
  }
  assert.not.equal(keys[0]!.secretKey, keys[1]!.secretKey);
});

generate.run();

const flagged = suite('decodeFlaggedKey / encodeFlaggedKey');

flagged('round-trip flag ‖ secret with the Sui flags (0 Ed25519, 1 Secp256k1, 2 Secp256r1)', () => {
  for (const keypair of randomKeypairs(3)) {
    const material = materialOf(keypair);
    const bytes = encodeFlaggedKey(material);
    assert.is(bytes[0], keypair.getPublicKey().flag());
    assert.equal(bytes.subarray(1), material.secretKey);
    assert.equal(decodeFlaggedKey(bytes), material);
  }
});

flagged('refuses other flags and lengths, and secrets outside the curve order', () => {
  const secret = new Uint8Array(32).fill(1);
  for (const bytes of [Uint8Array.of(3, ...secret), Uint8Array.of(0, ...secret, 0), Uint8Array.of(0), new Uint8Array(0),
    Uint8Array.of(1, ...new Uint8Array(32)), Uint8Array.of(1, ...SECP256K1_N), Uint8Array.of(2, ...new Uint8Array(32).fill(0xff))]) {
    assert.is(decodeFlaggedKey(bytes), undefined, Buffer.from(bytes).toString('hex'));
  }
  assert.ok(decodeFlaggedKey(Uint8Array.of(1, ...secret)));
});

flagged.run();
