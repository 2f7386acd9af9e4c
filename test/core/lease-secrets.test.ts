import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { execFileSync } from 'node:child_process';
import {
  InvalidSecretNameError, MAX_SECRET_VALUE_BYTES, MAX_SECRETS, SecretTooLargeError, SecretValueHasNulError, checkSecret, nextSecrets, parseAssignment, shellEnvironmentFile,
} from '../../src/core/lease-secrets.ts';
import { openSecrets, parseSecretsEnvelope, sealSecrets, secretsIdentity } from '../../src/core/secrets-envelope.ts';
import { PackDecryptionError } from '../../src/core/pack-cipher.ts';
import { SecretsEnvelopeError } from '../../src/core/lease-secrets.ts';

const rules = suite('secret names and values');

rules('a name is an environment variable name; a refusal never repeats the argument (it may be a value)', () => {
  assert.equal(parseAssignment('DATABASE_URL=postgres://u:p@h/db?a=b', 'NAME=value 1'), { name: 'DATABASE_URL', value: 'postgres://u:p@h/db?a=b' });
  assert.equal(parseAssignment('_X=', 'NAME=value 1'), { name: '_X', value: '' });
  for (const bad of ['1X=v', 'A-B=v', '=v', 'sk_live_abcdef', 'postgres://u:p@h=x']) {
    const error = (() => { try { parseAssignment(bad, 'NAME=value 2'); } catch (e) { return e as Error; } return null; })();
    assert.instance(error, InvalidSecretNameError, bad);
    // The same words whatever the argument: nothing of it is repeated.
    assert.is(error!.message, new InvalidSecretNameError('NAME=value 2').message);
  }
});

rules(`a value is at most ${MAX_SECRET_VALUE_BYTES} bytes of UTF-8, without NUL; a set at most ${MAX_SECRETS} secrets`, () => {
  checkSecret('A', 'x'.repeat(MAX_SECRET_VALUE_BYTES));
  assert.throws(() => checkSecret('A', 'é'.repeat(MAX_SECRET_VALUE_BYTES / 2 + 1)), (e: Error) => e instanceof SecretTooLargeError && /32770 bytes/.test(e.message));
  assert.throws(() => checkSecret('A', 'a\0b'), (e: Error) => e instanceof SecretValueHasNulError && (e as SecretValueHasNulError).code === 'SECRET_VALUE_HAS_NUL' && /secret A holds a NUL byte/.test(e.message) && !e.message.includes('a\0b'));
  const many = new Map(Array.from({ length: MAX_SECRETS + 1 }, (_, i) => [`S${i}`, 'v']));
  assert.throws(() => nextSecrets([], many, [], 1, 0), (e: Error) => e instanceof SecretTooLargeError);
});

rules('the next set stamps what changed with the new version and keeps the rest', () => {
  const v1 = nextSecrets([], new Map([['B', 'b1'], ['A', 'a1']]), [], 1, 10);
  assert.equal(v1, [{ name: 'A', value: 'a1', version: 1, setAtMs: 10 }, { name: 'B', value: 'b1', version: 1, setAtMs: 10 }]);
  const v2 = nextSecrets(v1, new Map([['A', 'a2']]), ['B'], 2, 20);
  assert.equal(v2, [{ name: 'A', value: 'a2', version: 2, setAtMs: 20 }]);
});

rules('the shell file gives a POSIX shell every value exactly, quotes and newlines included', () => {
  const secrets = nextSecrets([], new Map([['A', "it's $HOME `x`\nline"], ['B', '']]), [], 1, 0);
  const file = shellEnvironmentFile(secrets);
  const out = execFileSync('sh', ['-c', `set -a; eval "$1"; printf '%s|%s' "$A" "$B"`, 'sh', file], { encoding: 'utf8' });
  assert.is(out, "it's $HOME `x`\nline|");
});

rules.run();

const envelope = suite('the sealed secrets envelope');
const LEASE = `0x${'ab'.repeat(32)}`;
const keep = new Map<string, Uint8Array>();
const seal = async (identity: Uint8Array, dataKey: Uint8Array) => {
  const sealed = Buffer.concat([identity, Buffer.from('k')]).toString('hex');
  keep.set(sealed, dataKey);
  return sealed;
};

envelope('round-trips under its lease and version; the stored bytes hold no value; another identity does not open it', async () => {
  const secrets = nextSecrets([], new Map([['TOKEN', 'hunter2-hunter2']]), [], 3, 5);
  const identity = secretsIdentity(LEASE, 3);
  assert.equal(identity.subarray(32, 45), new TextEncoder().encode('lease-secrets'));
  assert.equal([...identity.subarray(45)], [3, 0, 0, 0, 0, 0, 0, 0]);
  const stored = await sealSecrets(secrets, identity, seal);
  assert.not.ok(Buffer.from(stored).includes('hunter2'));
  const { sealedKey, body } = parseSecretsEnvelope('b', stored);
  assert.equal(openSecrets('b', body, keep.get(sealedKey)!, identity), secrets);
  assert.throws(() => openSecrets('b', body, keep.get(sealedKey)!, secretsIdentity(LEASE, 4)), (e: Error) => e instanceof PackDecryptionError);
  assert.throws(() => parseSecretsEnvelope('b', new Uint8Array([1, 2, 3])), (e: Error) => e instanceof SecretsEnvelopeError);
});

envelope('pads the document, so a short and a longer value store the same size', async () => {
  const one = await sealSecrets(nextSecrets([], new Map([['T', 'a']]), [], 1, 0), secretsIdentity(LEASE, 1), seal);
  const two = await sealSecrets(nextSecrets([], new Map([['T', 'a'.repeat(300)]]), [], 1, 0), secretsIdentity(LEASE, 1), seal);
  assert.is(one.length, two.length);
});

envelope.run();
