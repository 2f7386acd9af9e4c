import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { listLines, optionLine, pushLines, quoteC } from '../../src/protocol/answers.ts';
import { unquoteC } from '../../src/protocol/parse.ts';

const A = 'a'.repeat(40);
const B = 'b'.repeat(40);

const options = suite('optionLine');
options('answers ok, unsupported or a one-line error', () => {
  assert.is(optionLine('ok'), 'ok\n');
  assert.is(optionLine('unsupported'), 'unsupported\n');
  assert.is(optionLine({ error: 'bad value\nfor x' }), 'error bad value for x\n');
});

const list = suite('listLines');
list('puts the format keyword, then HEAD, then sorted refs, then the blank line', () => {
  const refs = new Map([['refs/tags/v1', B], ['refs/heads/main', A]]);
  assert.is(listLines({ objectFormat: 'sha1', head: 'refs/heads/main', refs }), `:object-format sha1\n@refs/heads/main HEAD\n${A} refs/heads/main\n${B} refs/tags/v1\n\n`);
});
list('an empty repository lists nothing, and a dangling HEAD is left out', () => {
  assert.is(listLines({ objectFormat: null, head: 'refs/heads/main', refs: new Map() }), '\n');
  assert.is(listLines({ objectFormat: null, head: 'refs/heads/gone', refs: new Map([['refs/heads/x', A]]) }), `${A} refs/heads/x\n\n`);
});

const push = suite('pushLines');
push('reports each ref in git words and ends the batch', () => {
  assert.is(pushLines([{ dst: 'refs/heads/a', ok: true }, { dst: 'refs/heads/b', ok: false, reason: 'fetch first' }]), 'ok refs/heads/a\nerror refs/heads/b fetch first\n\n');
});

const quote = suite('quoteC');
quote('quotes only when needed and round-trips through unquoteC', () => {
  assert.is(quoteC('non-fast forward'), 'non-fast forward');
  for (const text of ['two\nlines', 'a "quoted" \\ word', 'tab\there']) assert.is(unquoteC(quoteC(text)), text);
});

options.run();
list.run();
push.run();
quote.run();
