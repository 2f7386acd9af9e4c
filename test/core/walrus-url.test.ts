import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { UsageError } from '../../src/core/errors.ts';
import { checkRepositoryName, formatWalrusUrl, isWalrusUrl, normalizeSuiId, parseWalrusUrl } from '../../src/core/walrus-url.ts';

const id = `0x${'ab'.repeat(32)}`;
const owner = `0x${'0'.repeat(62)}2a`;

const parse = suite('parseWalrusUrl');

parse('reads the object id form', () => {
  assert.equal(parseWalrusUrl(`walrus://${id}`), { id });
  assert.equal(parseWalrusUrl(`walrus://${id.toUpperCase().replace('0X', '0x')}/`), { id });
});

parse('reads the owner/name form, padding short addresses and dropping a .git suffix', () => {
  assert.equal(parseWalrusUrl('walrus://0x2a/myapp'), { owner, name: 'myapp' });
  assert.equal(parseWalrusUrl('walrus://0x2a/my.app-2.git'), { owner, name: 'my.app-2' });
});

parse('rejects malformed URLs with a usage error that shows the valid forms', () => {
  for (const bad of ['https://x/y', 'walrus://', 'walrus://nothex', 'walrus://0x2a/a/b', 'walrus://0xZZ/app', 'walrus://0x2a/-bad', `walrus://0x${'1'.repeat(65)}`]) {
    const error = (() => { try { parseWalrusUrl(bad); } catch (e) { return e; } })();
    assert.instance(error, UsageError, bad);
    assert.match((error as Error).message, /walrus:\/\/<repository id> or walrus:\/\/<owner address>\/<name>/);
    assert.not.match((error as Error).message, /\n/);
  }
});

const format = suite('formatWalrusUrl');

format('round-trips both forms', () => {
  for (const url of [`walrus://${id}`, `walrus://${owner}/myapp`]) assert.is(formatWalrusUrl(parseWalrusUrl(url)), url);
});

const normalize = suite('normalizeSuiId');

normalize('pads and lowercases', () => {
  assert.is(normalizeSuiId('0xAB'), `0x${'0'.repeat(62)}ab`);
  assert.throws(() => normalizeSuiId('ab'), (e: unknown) => e instanceof UsageError);
});

const names = suite('checkRepositoryName');

names('accepts ordinary names and rejects the rest', () => {
  assert.is(checkRepositoryName('my_app.v2'), 'my_app.v2');
  for (const bad of ['', '.hidden', 'a/b', 'a b', 'x.git', 'é']) assert.throws(() => checkRepositoryName(bad), (e: unknown) => e instanceof UsageError, bad);
});

const detect = suite('isWalrusUrl');

detect('tells URLs from remote names', () => {
  assert.ok(isWalrusUrl('walrus://0x1'));
  assert.not.ok(isWalrusUrl('walrus'));
});

parse.run();
format.run();
normalize.run();
names.run();
detect.run();
