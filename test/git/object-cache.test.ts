import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseNumstat } from '../../src/git/object-cache.ts';
import { ScratchRepo } from '../remote/history/scratch-repo.ts';

const Numstat = suite('parseNumstat');

Numstat('git\'s numstat of a real commit: line counts, a binary file without any, a rename and an awkward name', () => {
  const repo = new ScratchRepo();
  const lines = Array.from({ length: 40 }, (_, i) => `line ${i} of a file long enough for rename detection`);
  const first = repo.commit('first', { 'old name.txt': lines.join('\n') + '\n', 'keep.txt': 'a\nb\n' });
  repo.git(['mv', 'old name.txt', 'new\tname.txt']);
  writeFileSync(join(repo.dir, 'keep.txt'), 'a\nc\nd\n');
  writeFileSync(join(repo.dir, 'logo.bin'), Buffer.from([0, 1, 2, 0, 255]));
  repo.git(['add', '-A']);
  repo.git(['commit', '-q', '-m', 'second']);
  const out = repo.git(['diff', '--numstat', '-z', '-M', first, 'HEAD', '--']).toString('utf8');
  assert.equal(parseNumstat(out), [
    { path: 'keep.txt', added: 2, deleted: 1 },
    { path: 'logo.bin', added: null, deleted: null },
    { path: 'new\tname.txt', renamedFrom: 'old name.txt', added: 0, deleted: 0 },
  ]);
});

Numstat.run();
