/**
 * The build puts src/cli/string-width.ts in place of the string-width package that yargs measures help text with
 * (scripts/build.ts): on every line and every word of every command's help, it must measure what the package does,
 * so the installed tool wraps its help exactly as the sources do (and as the man page, generated from them, shows).
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import packageWidth from 'string-width';
import { helpOf } from '../../scripts/gen-man.ts';
import stringWidth from '../../src/cli/string-width.ts';
import { commands } from '../../src/cli/commands.ts';

const width = suite('help text width');

width('measures every line and word of every command\'s help as the string-width package does', async () => {
  const texts = [await helpOf([]), ...(await Promise.all(commands.map((c) => helpOf([String(c.command).split(' ')[0]!]))))];
  let measured = 0;
  for (const text of texts) {
    for (const piece of text.split('\n').flatMap((line) => [line, ...line.split(/\s+/)])) {
      assert.is(stringWidth(piece), packageWidth(piece), JSON.stringify(piece));
      measured++;
    }
  }
  assert.ok(measured > 1000, `${measured} pieces measured`);
});

width('leaves out colour codes, counts characters rather than UTF-16 units', () => {
  assert.is(stringWidth('\u001b[31mred\u001b[39m and \u001b[1mbold\u001b[22m'), 12);
  assert.is(stringWidth('‘quoted’ …'), packageWidth('‘quoted’ …'));
  assert.is(stringWidth('𝔸'), 1);
  assert.is(stringWidth(''), 0);
});

width.run();
