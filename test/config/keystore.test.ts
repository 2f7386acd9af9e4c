import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { Ed25519Keypair } from '@mysten/sui/keypairs/ed25519';
import { Secp256k1Keypair } from '@mysten/sui/keypairs/secp256k1';
import { Secp256r1Keypair } from '@mysten/sui/keypairs/secp256r1';
import { decodeSuiPrivateKey } from '@mysten/sui/cryptography';
import { addressOfKey, KeyFormatError } from '../../src/config/key-material.ts';
import type { KeyMaterial } from '../../src/config/key-material.ts';
import { encodeKeystore, parseKeystore } from '../../src/config/keystore.ts';

const keystore = suite('parseKeystore / encodeKeystore');

keystore('round-trips all three key schemes with the Sui flags, as keys the SDK reads back', () => {
  const keypairs = [Ed25519Keypair.generate(), Secp256k1Keypair.generate(), Secp256r1Keypair.generate()];
  const keys = keypairs.map((k) => decodeSuiPrivateKey(k.getSecretKey()) as KeyMaterial);
  const text = encodeKeystore(keys);
  const flags = (JSON.parse(text) as string[]).map((entry) => Buffer.from(entry, 'base64')[0]);
  assert.equal(flags, [0, 1, 2]);
  const parsed = parseKeystore(text, 'test');
  assert.equal(parsed, keys);
  assert.equal(parsed.map(addressOfKey), keypairs.map((k) => k.toSuiAddress()));
});

keystore('an entry is base64(flag ‖ the 32-byte secret key), as the Sui CLI writes it', () => {
  const key = Secp256k1Keypair.generate();
  const { secretKey } = decodeSuiPrivateKey(key.getSecretKey());
  const entry = Buffer.concat([Buffer.of(1), secretKey]).toString('base64');
  const [parsed] = parseKeystore(JSON.stringify([entry]), 'cli');
  assert.equal(parsed, { scheme: 'Secp256k1', secretKey: new Uint8Array(secretKey) });
  assert.is(addressOfKey(parsed!), key.toSuiAddress());
});

keystore('refuses what is not a keystore, naming the file and the entry', () => {
  const cases: [string, RegExp][] = [
    ['{}', /^bad: not a Sui keystore \(expected a JSON array/],
    ['not json', /^bad: not a Sui keystore: not valid JSON/],
    ['[1]', /^bad: entry 0 is not a base64 string/],
    [`["${Buffer.alloc(33, 9).toString('base64')}"]`, /^bad: entry 0 is not flag ‖ 32-byte key/],
    [JSON.stringify([Buffer.alloc(33, 0).toString('base64'), Buffer.alloc(33, 0).fill(1, 0, 1).toString('base64')]), /^bad: entry 1 /],
  ];
  for (const [text, message] of cases) {
    assert.throws(() => parseKeystore(text, 'bad'), (e: unknown) => e instanceof KeyFormatError && message.test(e.message), text);
  }
});

keystore.run();
