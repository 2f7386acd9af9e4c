import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { Ed25519Keypair } from '@mysten/sui/keypairs/ed25519';
import { Secp256k1Keypair } from '@mysten/sui/keypairs/secp256k1';
import { Secp256r1Keypair } from '@mysten/sui/keypairs/secp256r1';
import { decodeSuiPrivateKey } from '@mysten/sui/cryptography';
import { encodeKeystore, keypairFromSuiPrivateKey, KeyFormatError, parseKeystore } from '../../src/config/keystore.ts';

const keystore = suite('parseKeystore / encodeKeystore');

keystore('round-trips all three key schemes with the Sui flags', () => {
  const keys = [Ed25519Keypair.generate(), Secp256k1Keypair.generate(), Secp256r1Keypair.generate()];
  const text = encodeKeystore(keys);
  const flags = (JSON.parse(text) as string[]).map((entry) => Buffer.from(entry, 'base64')[0]);
  assert.equal(flags, [0, 1, 2]);
  const parsed = parseKeystore(text, 'test');
  assert.equal(parsed.map((k) => k.toSuiAddress()), keys.map((k) => k.toSuiAddress()));
});

keystore('an entry is base64(flag ‖ the 32-byte secret key), as the Sui CLI writes it', () => {
  const key = Ed25519Keypair.generate();
  const entry = Buffer.concat([Buffer.of(0), decodeSuiPrivateKey(key.getSecretKey()).secretKey]).toString('base64');
  assert.is(parseKeystore(JSON.stringify([entry]), 'cli')[0]!.toSuiAddress(), key.toSuiAddress());
});

keystore('refuses what is not a keystore', () => {
  for (const text of ['{}', 'not json', '[1]', `["${Buffer.alloc(33, 9).toString('base64')}"]`]) {
    assert.throws(() => parseKeystore(text, 'bad'), (e: unknown) => e instanceof KeyFormatError);
  }
});

keystore.run();

const privkey = suite('keypairFromSuiPrivateKey');

privkey('accepts suiprivkey1… of every supported scheme', () => {
  for (const key of [Ed25519Keypair.generate(), Secp256k1Keypair.generate(), Secp256r1Keypair.generate()]) {
    assert.is(keypairFromSuiPrivateKey(` ${key.getSecretKey()}\n`, 'env').toSuiAddress(), key.toSuiAddress());
  }
  assert.throws(() => keypairFromSuiPrivateKey('0xdeadbeef', 'env'), (e: unknown) => e instanceof KeyFormatError);
});

privkey.run();
