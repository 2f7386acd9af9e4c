import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdirSync, writeFileSync } from 'node:fs';
import { bech32 } from '@scure/base';
import { encodeFlaggedKey, generateEd25519Key } from '../../src/config/key-material.ts';
import { createWorld } from '../../scripts/harness/world.ts';
import type { RunResult, World } from '../../scripts/harness/world.ts';

/**
 * A broken key, fed through every way a key reaches git walrus (GIT_WALRUS_KEY, as the provider's key Secret also
 * reaches the controller and its pack step; our keystore; the Sui CLI's keystore), is named in the error and never
 * shown: no run of the real CLI may print 6 characters in a row of the secret text.
 */
const WINDOW = 6;

/** The secret part of a key's text: every window of WINDOW characters of it that must not be printed. */
function windows(secret: string): string[] {
  return Array.from({ length: secret.length - WINDOW + 1 }, (_, at) => secret.slice(at, at + WINDOW));
}

function assertNoSecret(result: RunResult, secret: string, what: string): void {
  const output = `${result.stdout}\n${result.stderr}`;
  const leaked = windows(secret).find((window) => output.includes(window));
  assert.is(leaked, undefined, `${what} printed part of the secret (${leaked}):\n${output}`);
}

const flagged = () => encodeFlaggedKey(generateEd25519Key());
const suiprivkey = () => bech32.encode('suiprivkey', bech32.toWords(flagged()));
/** The Bech32 data part: what follows `suiprivkey1`, which every such key starts with. */
const dataOf = (text: string) => text.slice('suiprivkey1'.length);
/** A last character changed: the checksum no longer matches. */
const mistyped = (text: string) => `${text.slice(0, -1)}${text.endsWith('q') ? 'p' : 'q'}`;
const base64Key = () => Buffer.from(flagged()).toString('base64');
/** Two neighbouring characters swapped, from the 21st on: the first pair that differs (a random key may repeat one). */
const swapTwo = (text: string) => {
  let at = 20;
  while (text[at] === text[at + 1]) at++;
  return `${text.slice(0, at)}${text[at + 1]}${text[at]}${text.slice(at + 2)}`;
};

const redaction = suite('key material is never printed');
let w: World;
redaction.before(() => { w = createWorld('walrus-redaction-'); });
redaction.after(() => w.remove());

const BROKEN_ENV_KEYS: Array<[string, (key: string) => string]> = [
  ['its last character changed', mistyped],
  ['two characters swapped', swapTwo],
  ['an upper-case character among lower-case ones', (key) => `${key.slice(0, 30)}${key[30]!.toUpperCase() === key[30] ? 'A' : key[30]!.toUpperCase()}${key.slice(31)}`],
  ['a character cut off', (key) => key.slice(0, -1)],
  ['a wrong prefix', (key) => `suiprivkez1${dataOf(key)}`],
  ['a space inside', (key) => `${key.slice(0, 25)} ${key.slice(25)}`],
  ['a character outside Bech32', (key) => `${key.slice(0, 25)}b${key.slice(26)}`],
];

for (const [how, breakKey] of BROKEN_ENV_KEYS) {
  redaction(`GIT_WALRUS_KEY with ${how}: whoami names the variable and shows none of the key`, async () => {
    const key = breakKey(suiprivkey());
    const result = await w.run('.', ['walrus', 'whoami'], { env: { GIT_WALRUS_KEY: key } });
    assert.is.not(result.code, 0);
    assert.match(result.stderr, 'GIT_WALRUS_KEY');
    assert.not.match(result.stderr, 'internal error');
    assertNoSecret(result, dataOf(key), 'whoami');
  });
}

redaction("a broken provider key (the Secret's GIT_WALRUS_KEY) in the controller and the pack step shows none of it", async () => {
  const key = mistyped(suiprivkey());
  mkdirSync(w.path('tree'), { recursive: true });
  writeFileSync(w.path('tree', 'index.html'), 'hello\n');
  const pack = await w.run('.', ['walrus', 'artifact', 'pack', 'tree'], { env: { GIT_WALRUS_KEY: key } });
  assert.is.not(pack.code, 0);
  assert.match(pack.stderr, 'GIT_WALRUS_KEY');
  assertNoSecret(pack, dataOf(key), 'artifact pack');
  const controller = await w.run('.', ['walrus', 'controller', '--no-leader-elect', '--provider', '0x1'], { env: { GIT_WALRUS_KEY: key } });
  assert.is.not(controller.code, 0);
  assert.match(controller.stderr, 'GIT_WALRUS_KEY');
  assertNoSecret(controller, dataOf(key), 'controller');
});

/** Keystore texts that are not a valid keystore, each holding a real key's base64 text. */
const BROKEN_KEYSTORES: Array<[string, (key: string) => string]> = [
  ['a trailing comma', (key) => `[\n  "${key}",\n]\n`],
  ['a missing closing quote', (key) => `[\n  "${key}\n]\n`],
  ['a missing bracket', (key) => `[\n  "${key}"\n`],
  ['an unquoted key', (key) => `[\n  ${key}\n]\n`],
  ['a key cut short', (key) => `[\n  "${key.slice(0, -6)}"\n]\n`],
  ['an object instead of an array', (key) => `{"key": "${key}"}\n`],
];

for (const [how, keystore] of BROKEN_KEYSTORES) {
  redaction(`our keystore with ${how}: the error names the file and shows none of the key`, async () => {
    const key = base64Key();
    const home = w.path(`home-${how.replaceAll(' ', '-')}`);
    mkdirSync(home, { recursive: true });
    writeFileSync(`${home}/keystore`, keystore(key));
    const result = await w.run('.', ['walrus', 'whoami'], { env: { GIT_WALRUS_HOME: home } });
    assert.is.not(result.code, 0);
    assert.match(result.stderr, `${home}/keystore`);
    assert.not.match(result.stderr, 'internal error');
    assertNoSecret(result, key, 'whoami');
  });

  redaction(`the Sui CLI's keystore with ${how}: the error names the file and shows none of the key`, async () => {
    const key = base64Key();
    const config = w.path(`sui-${how.replaceAll(' ', '-')}`);
    mkdirSync(config, { recursive: true });
    writeFileSync(`${config}/client.yaml`, `keystore:\n  File: ${config}/sui.keystore\nactive_env: testnet\n`);
    writeFileSync(`${config}/sui.keystore`, keystore(key));
    const result = await w.run('.', ['walrus', 'whoami'], { env: { SUI_CONFIG_DIR: config } });
    assert.is.not(result.code, 0);
    assert.match(result.stderr, `${config}/sui.keystore`);
    assertNoSecret(result, key, 'whoami');
  });
}

redaction.run();
