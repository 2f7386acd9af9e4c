import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { parseCommand, unquoteC } from '../../src/protocol/parse.ts';

const parse = suite('parseCommand');

parse('reads every command git sends', () => {
  assert.equal(parseCommand(''), { kind: 'blank' });
  assert.equal(parseCommand('capabilities'), { kind: 'capabilities' });
  assert.equal(parseCommand('list'), { kind: 'list', forPush: false });
  assert.equal(parseCommand('list for-push'), { kind: 'list', forPush: true });
  assert.equal(parseCommand('option verbosity 2'), { kind: 'option', name: 'verbosity', value: '2' });
  assert.equal(parseCommand('option object-format'), { kind: 'option', name: 'object-format', value: null });
  assert.equal(parseCommand(`fetch ${'a'.repeat(40)} refs/heads/main`), { kind: 'fetch', id: 'a'.repeat(40), name: 'refs/heads/main' });
});

parse('reads push refspecs: plain, forced, deletes and raw ids', () => {
  assert.equal(parseCommand('push refs/heads/main:refs/heads/main'), { kind: 'push', force: false, src: 'refs/heads/main', dst: 'refs/heads/main' });
  assert.equal(parseCommand('push +HEAD:refs/heads/x'), { kind: 'push', force: true, src: 'HEAD', dst: 'refs/heads/x' });
  assert.equal(parseCommand('push :refs/tags/v1'), { kind: 'push', force: false, src: null, dst: 'refs/tags/v1' });
  assert.equal(parseCommand(`push ${'b'.repeat(40)}:refs/heads/y`), { kind: 'push', force: false, src: 'b'.repeat(40), dst: 'refs/heads/y' });
});

parse('unquotes C-quoted option values such as a lease', () => {
  assert.equal(parseCommand('option cas "refs/heads/a b:0000"'), { kind: 'option', name: 'cas', value: 'refs/heads/a b:0000' });
  assert.equal(parseCommand('option push-option "x\\ty"'), { kind: 'option', name: 'push-option', value: 'x\ty' });
});

parse('flags what it does not know', () => {
  for (const line of ['connect git-upload-pack', 'push nocolon', 'fetch onlyid', 'import refs/heads/x', 'option']) {
    assert.equal(parseCommand(line), { kind: 'unknown', line });
  }
});

const unquote = suite('unquoteC');

unquote('decodes escapes and octal UTF-8 bytes, passes plain text through', () => {
  assert.is(unquoteC('plain'), 'plain');
  assert.is(unquoteC('"a\\"b\\\\c\\n"'), 'a"b\\c\n');
  assert.is(unquoteC('"caf\\303\\251"'), 'café');
});

parse.run();
unquote.run();
