import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { adjustableLog, streamLog } from '../../src/core/log.ts';

const stream = suite('streamLog');

stream('levels follow git verbosity; warnings always show; progress lines only when done off a terminal', () => {
  let out = '';
  const log = streamLog((t) => { out += t; }, 1);
  log.info('hello');
  log.debug('hidden');
  log.progress('50%');
  log.progress('100%, done.', true);
  log.warn('careful');
  assert.is(out, 'hello\n100%, done.\nwarning: careful\n');
});

const adjustable = suite('adjustableLog');

adjustable('reads the level at each call, as `option verbosity` changes it', () => {
  let out = '';
  let level = 1;
  const log = adjustableLog((t) => { out += t; }, () => level);
  log.info('one');
  level = 0;
  log.info('quiet');
  assert.is(log.verbosity, 0);
  level = 2;
  log.debug('verbose');
  assert.is(out, 'one\nverbose\n');
});

stream.run();
adjustable.run();
