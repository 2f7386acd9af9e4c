import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdtempSync, mkdirSync, writeFileSync, statSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Ed25519Keypair } from '@mysten/sui/keypairs/ed25519';
import { Secp256k1Keypair } from '@mysten/sui/keypairs/secp256k1';
import { verifyPersonalMessageSignature } from '@mysten/sui/verify';
import { loadSigner } from '../../src/config/keys.ts';
import { encodeKeystore, KeyFormatError } from '../../src/config/keystore.ts';

const sandbox = () => {
  const root = mkdtempSync(join(tmpdir(), 'walrus-keys-'));
  return { userHome: join(root, 'user'), home: join(root, 'user', '.git-walrus') };
};

const load = suite('loadSigner');

load('creates a 0600 Sui-format keystore on first use and returns the same key afterwards', async () => {
  const { userHome, home } = sandbox();
  const first = await loadSigner({ env: { HOME: userHome }, home });
  assert.is(first.source, 'keystore');
  assert.is(statSync(join(home, 'keystore')).mode & 0o777, 0o600);
  const entries = JSON.parse(readFileSync(join(home, 'keystore'), 'utf8')) as string[];
  assert.is(entries.length, 1);
  assert.is(Buffer.from(entries[0]!, 'base64')[0], 0, 'flag 0 = Ed25519');
  const again = await loadSigner({ env: { HOME: userHome }, home });
  assert.is(again.address, first.address);
  const { signature } = await again.signer.signPersonalMessage(new TextEncoder().encode('hi'));
  const key = await verifyPersonalMessageSignature(new TextEncoder().encode('hi'), signature);
  assert.is(key.toSuiAddress(), first.address);
});

load('concurrent first uses agree on one key', async () => {
  const { userHome, home } = sandbox();
  const loaded = await Promise.all([1, 2, 3, 4].map(() => loadSigner({ env: { HOME: userHome }, home })));
  assert.is(new Set(loaded.map((l) => l.address)).size, 1);
});

load("uses the Sui CLI's active address when client.yaml exists", async () => {
  const { userHome, home } = sandbox();
  const dir = join(userHome, '.sui', 'sui_config');
  mkdirSync(dir, { recursive: true });
  const keys = [Ed25519Keypair.generate(), Secp256k1Keypair.generate()];
  writeFileSync(join(dir, 'sui.keystore'), encodeKeystore(keys));
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
  const loaded = await loadSigner({ env: { HOME: userHome }, home });
  assert.equal({ source: loaded.source, address: loaded.address }, { source: 'sui-cli', address: keys[1]!.toSuiAddress() });
  assert.is(loaded.signer.getKeyScheme(), 'Secp256k1');
});

load('GIT_WALRUS_KEY overrides both', async () => {
  const { userHome, home } = sandbox();
  const key = Ed25519Keypair.generate();
  const loaded = await loadSigner({ env: { HOME: userHome, GIT_WALRUS_KEY: key.getSecretKey() }, home });
  assert.equal({ source: loaded.source, address: loaded.address }, { source: 'env', address: key.toSuiAddress() });
});

load('malformed keys and keystores are typed errors that name their source', async () => {
  const { userHome, home } = sandbox();
  await loadSigner({ env: { HOME: userHome, GIT_WALRUS_KEY: 'suiprivkey1nope' }, home }).then(() => assert.unreachable(), (e) => {
    assert.instance(e, KeyFormatError);
    assert.match(e.message, /GIT_WALRUS_KEY/);
  });
  mkdirSync(home, { recursive: true });
  writeFileSync(join(home, 'keystore'), '["AAAA"]');
  await loadSigner({ env: { HOME: userHome }, home }).then(() => assert.unreachable(), (e) => assert.instance(e, KeyFormatError));
  writeFileSync(join(home, 'keystore'), encodeKeystore([Ed25519Keypair.generate()]));
  writeFileSync(join(home, 'config.json'), JSON.stringify({ activeAddress: `0x${'1'.repeat(64)}` }));
  await loadSigner({ env: { HOME: userHome }, home }).then(() => assert.unreachable(), (e) => assert.match(e.message, /no key in this keystore/));
});

load.run();
