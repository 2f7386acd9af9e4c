import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdirSync, writeFileSync, statSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { tempDirs } from '../../scripts/harness/git-env.ts';
import { Ed25519Keypair } from '@mysten/sui/keypairs/ed25519';
import { Secp256k1Keypair } from '@mysten/sui/keypairs/secp256k1';
import { Secp256r1Keypair } from '@mysten/sui/keypairs/secp256r1';
import { decodeSuiPrivateKey } from '@mysten/sui/cryptography';
import type { Keypair } from '@mysten/sui/cryptography';
import { verifyPersonalMessageSignature } from '@mysten/sui/verify';
import { addressOfKey, KeyFormatError } from '../../src/config/key-material.ts';
import type { KeyMaterial } from '../../src/config/key-material.ts';
import { keypairOf, loadKeyMaterial } from '../../src/config/keys.ts';
import { encodeKeystore } from '../../src/config/keystore.ts';

const keysRoot = tempDirs('walrus-keys-');
const sandbox = () => {
  const root = keysRoot();
  return { userHome: join(root, 'user'), home: join(root, 'user', '.git-walrus') };
};

const materialOf = (keypair: Keypair): KeyMaterial => decodeSuiPrivateKey(keypair.getSecretKey()) as KeyMaterial;

const load = suite('loadKeyMaterial');

load('creates a 0600 Sui-format keystore on first use and returns the same key afterwards', async () => {
  const { userHome, home } = sandbox();
  const first = await loadKeyMaterial({ env: { HOME: userHome }, home });
  assert.is(first.source, 'keystore');
  assert.is(first.path, join(home, 'keystore'));
  assert.is(statSync(join(home, 'keystore')).mode & 0o777, 0o600);
  const entries = JSON.parse(readFileSync(join(home, 'keystore'), 'utf8')) as string[];
  assert.is(entries.length, 1);
  const entry = Buffer.from(entries[0]!, 'base64');
  assert.is(entry[0], 0, 'flag 0 = Ed25519');
  assert.is(Ed25519Keypair.fromSecretKey(entry.subarray(1)).toSuiAddress(), first.address, 'the SDK reads the new key, with the same address');
  const again = await loadKeyMaterial({ env: { HOME: userHome }, home });
  assert.equal(again, first);
});

load('concurrent first uses agree on one key', async () => {
  const { userHome, home } = sandbox();
  const loaded = await Promise.all([1, 2, 3, 4].map(() => loadKeyMaterial({ env: { HOME: userHome }, home })));
  assert.is(new Set(loaded.map((l) => l.address)).size, 1);
});

load("uses the Sui CLI's active address when client.yaml exists", async () => {
  const { userHome, home } = sandbox();
  const dir = join(userHome, '.sui', 'sui_config');
  mkdirSync(dir, { recursive: true });
  const keys = [Ed25519Keypair.generate(), Secp256k1Keypair.generate()];
  writeFileSync(join(dir, 'sui.keystore'), encodeKeystore(keys.map(materialOf)));
  writeFileSync(join(dir, 'client.yaml'), [
    '---',
    'keystore:',
    `  File: ${join(dir, 'sui.keystore')}`,
    'external_keys: ~',
    'envs:',
    '  - alias: testnet',
    '    rpc: "https://fullnode.testnet.sui.io:443"',
    '    ws: ~',
    '    basic_auth: ~',
    'active_env: testnet',
    `active_address: "${keys[1]!.toSuiAddress()}"`,
    '',
  ].join('\n'));
  const loaded = await loadKeyMaterial({ env: { HOME: userHome }, home });
  assert.equal({ source: loaded.source, address: loaded.address }, { source: 'sui-cli', address: keys[1]!.toSuiAddress() });
  assert.equal(loaded.material, materialOf(keys[1]!));
});

load('GIT_WALRUS_KEY overrides both', async () => {
  const { userHome, home } = sandbox();
  const key = Ed25519Keypair.generate();
  const loaded = await loadKeyMaterial({ env: { HOME: userHome, GIT_WALRUS_KEY: key.getSecretKey() }, home });
  assert.equal(loaded, { material: materialOf(key), address: key.toSuiAddress(), source: 'env' });
});

load('malformed keys and keystores are typed errors that name their source', async () => {
  const { userHome, home } = sandbox();
  await loadKeyMaterial({ env: { HOME: userHome, GIT_WALRUS_KEY: 'suiprivkey1nope' }, home }).then(() => assert.unreachable(), (e: Error) => {
    assert.instance(e, KeyFormatError);
    assert.match(e.message, /GIT_WALRUS_KEY/);
  });
  mkdirSync(home, { recursive: true });
  writeFileSync(join(home, 'keystore'), '["AAAA"]');
  await loadKeyMaterial({ env: { HOME: userHome }, home }).then(() => assert.unreachable(), (e: Error) => assert.instance(e, KeyFormatError));
  writeFileSync(join(home, 'keystore'), encodeKeystore([materialOf(Ed25519Keypair.generate())]));
  writeFileSync(join(home, 'config.json'), JSON.stringify({ activeAddress: `0x${'1'.repeat(64)}` }));
  await loadKeyMaterial({ env: { HOME: userHome }, home }).then(() => assert.unreachable(), (e: Error) => assert.match(e.message, /no key in this keystore/));
});

load.run();

const keypair = suite('keypairOf');

keypair("makes the SDK keypair of every scheme, whose address is the key's and whose signatures verify", async () => {
  for (const original of [Ed25519Keypair.generate(), Secp256k1Keypair.generate(), Secp256r1Keypair.generate()]) {
    const material = materialOf(original);
    const signer = await keypairOf(material);
    assert.is(signer.getKeyScheme(), original.getKeyScheme());
    assert.is(signer.toSuiAddress(), addressOfKey(material));
    const message = new TextEncoder().encode('hi');
    const { signature } = await signer.signPersonalMessage(message);
    assert.is((await verifyPersonalMessageSignature(message, signature)).toSuiAddress(), original.toSuiAddress());
  }
});

keypair('an Ed25519 key signs through Node\'s crypto exactly what the SDK\'s keypair signs, and exports the same key', async () => {
  for (let i = 0; i < 8; i++) {
    const original = Ed25519Keypair.generate();
    const signer = await keypairOf(materialOf(original));
    assert.is(signer.constructor.name, 'NodeEd25519Keypair');
    assert.is(signer.getSecretKey(), original.getSecretKey());
    assert.equal(signer.getPublicKey().toRawBytes(), original.getPublicKey().toRawBytes());
    // Ed25519 is deterministic: the same key and bytes give the same signature, transactions and messages alike.
    const bytes = Uint8Array.from({ length: 300 + i * 977 }, (_, n) => (n * 31 + i) & 0xff);
    assert.equal(await signer.sign(bytes), await original.sign(bytes));
    assert.is((await signer.signTransaction(bytes)).signature, (await original.signTransaction(bytes)).signature);
    assert.is((await signer.signPersonalMessage(bytes)).signature, (await original.signPersonalMessage(bytes)).signature);
  }
});

keypair.run();
