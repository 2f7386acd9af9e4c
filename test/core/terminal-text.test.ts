import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { streamLog } from '../../src/core/log.ts';
import { visibleLine, visibleText } from '../../src/core/terminal-text.ts';

test('control characters are shown, not obeyed: escapes, OSC 8/52, CR/LF, C1 and bidirectional overrides', () => {
  assert.is(visibleLine('\u001b[2J\u001b]0;pwned\u0007'), '\\x1b[2J\\x1b]0;pwned\\x07');
  assert.is(visibleLine('\u001b]8;;https://evil.example\u001b\\link\u001b]8;;\u001b\\'), '\\x1b]8;;https://evil.example\\x1b\\link\\x1b]8;;\\x1b\\');
  assert.is(visibleLine('eu\n0xFAKEPROVIDER  999 SUI  trusted'), 'eu\\x0a0xFAKEPROVIDER  999 SUI  trusted');
  assert.is(visibleLine('a\rb\tc\u007f\u009b'), 'a\\x0db\\x09c\\x7f\\x9b');
  assert.is(visibleLine('txt.\u202egnp'), 'txt.\\u202egnp');
  assert.is(visibleText('subject\n\n\tbody \u001b[31mred'), 'subject\n\n\tbody \\x1b[31mred');
  assert.is(visibleLine('Zürich — 東京 ✓'), 'Zürich — 東京 ✓');
});

test('the log shows what it quotes (a key server\'s or publisher\'s words) with control characters visible', () => {
  let written = '';
  const log = streamLog((text) => { written += text; }, 1, () => true);
  log.warn('the publisher said: \u001b]52;c;ZXZpbA==\u0007');
  log.progress('Receiving \u001b[2J', true);
  assert.is(written, 'warning: the publisher said: \\x1b]52;c;ZXZpbA==\\x07\n\rReceiving \\x1b[2J\n');
});

test.run();
