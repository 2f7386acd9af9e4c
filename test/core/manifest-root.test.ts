import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createHash } from 'node:crypto';
import { diffManifests, manifestRoot } from '../../src/core/manifest-root.ts';

const sha = (text: string) => createHash('sha256').update(text).digest('hex');
const a = { path: 'a.js', mode: 0o644, sha256: sha('a') };
const b = { path: 'bin/run', mode: 0o755, sha256: sha('b') };
const c = { path: 'c.txt', mode: 0o644, sha256: sha('c') };

test('the root depends on the entries, not their order; mode and content each change it', () => {
  assert.is(manifestRoot([c, a, b]), manifestRoot([a, b, c]));
  assert.is.not(manifestRoot([a, { ...b, mode: 0o644 }, c]), manifestRoot([a, b, c]));
  assert.is.not(manifestRoot([a, b, { ...c, sha256: sha('C') }]), manifestRoot([a, b, c]));
  assert.is(manifestRoot([]), sha(''));
  // One leaf is its own root: sha256(0x00 ‖ JSON [path, mode, digest]).
  assert.is(manifestRoot([a]), createHash('sha256').update(Buffer.concat([Buffer.of(0), Buffer.from(JSON.stringify(['a.js', 0o644, sha('a')]))])).digest('hex'));
});

test('a leaf cannot pass for an inner node (domain prefixes)', () => {
  const two = manifestRoot([a, b]);
  assert.is.not(manifestRoot([{ path: 'x', mode: 0, sha256: two }]), two);
});

test('diffManifests names each differing path with both sides, absent ones as null', () => {
  const changed = { ...c, sha256: sha('C') };
  assert.equal(diffManifests([a, b, c], [a, b, c]), []);
  assert.equal(diffManifests([a, c], [changed, b, a]), [
    { path: 'bin/run', ours: null, theirs: { mode: 0o755, sha256: b.sha256 } },
    { path: 'c.txt', ours: { mode: 0o644, sha256: c.sha256 }, theirs: { mode: 0o644, sha256: changed.sha256 } },
  ]);
});

test.run();
