import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { applyOption, defaultOptions, endPushBatch } from '../../src/remote/options.ts';

const apply = suite('applyOption');

apply('answers every option git sends', () => {
  const o = defaultOptions();
  assert.is(applyOption(o, 'verbosity', '0'), 'ok');
  assert.is(o.verbosity, 0);
  assert.is(applyOption(o, 'progress', 'false'), 'ok');
  assert.is(o.progress, false);
  assert.is(applyOption(o, 'dry-run', 'true'), 'ok');
  assert.is(applyOption(o, 'atomic', 'true'), 'ok');
  assert.is(applyOption(o, 'followtags', 'true'), 'ok');
  assert.is(applyOption(o, 'push-option', 'ci.skip'), 'ok');
  assert.ok(o.dryRun && o.atomic && o.followTags);
  assert.equal(o.pushOptions, ['ci.skip']);
  assert.is(applyOption(o, 'check-connectivity', 'true'), 'ok');
  assert.ok(o.checkConnectivity);
  assert.is(applyOption(o, 'depth', '1'), 'unsupported');
  assert.equal(applyOption(o, 'progress', 'maybe'), { error: 'invalid value for progress: expected true or false' });
});

apply('object-format: bare or true asks for the keyword; a name must be known', () => {
  const o = defaultOptions();
  assert.is(applyOption(o, 'object-format', null), 'ok');
  assert.ok(o.reportObjectFormat);
  assert.is(applyOption(o, 'object-format', 'sha256'), 'ok');
  assert.is(o.objectFormat, 'sha256');
  assert.ok(typeof applyOption(o, 'object-format', 'md5') === 'object');
});

apply('cas records leases, the null id meaning "must not exist"', () => {
  const o = defaultOptions();
  assert.is(applyOption(o, 'cas', `refs/heads/main:${'a'.repeat(40)}`), 'ok');
  assert.is(applyOption(o, 'cas', `refs/heads/new:${'0'.repeat(40)}`), 'ok');
  assert.equal(o.leases, new Map([['refs/heads/main', 'a'.repeat(40)], ['refs/heads/new', null]]));
  assert.ok(typeof applyOption(o, 'cas', 'refs/heads/main') === 'object');
  endPushBatch(o);
  assert.is(o.leases.size, 0);
});

apply.run();
