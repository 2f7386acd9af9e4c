import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { copyFileSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { NativeGitRepository } from '../../src/git/native-repository.ts';
import { hermeticGitEnv, initRepo, tempDir } from '../support/git-fixture.ts';

const records = suite('NativeGitRepository records');

const A = `0x${'a'.repeat(64)}`;
const B = `0x${'b'.repeat(64)}`;

records('listed refs round-trip per repository; absent, torn or misplaced records read as none', async () => {
  const dir = tempDir('native-repo-test-');
  try {
    const env = hermeticGitEnv(dir.path);
    initRepo(dir.path, env);
    const gitDir = join(dir.path, '.git');
    const repo = new NativeGitRepository(gitDir, env);
    assert.is(await repo.readListedRefs(A), null);

    const refs = new Map([['refs/heads/main', '1'.repeat(40)], ['refs/tags/v1', '2'.repeat(40)]]);
    await repo.writeListedRefs(A, { seq: 7, refs });
    assert.equal(await repo.readListedRefs(A), { seq: 7, refs });
    await repo.writeListedRefs(A, { seq: 8, refs: new Map() });
    assert.equal(await repo.readListedRefs(A), { seq: 8, refs: new Map() });
    assert.equal(readdirSync(join(gitDir, 'walrus', A)), ['refs.json'], 'no temporary file is left behind');
    assert.is(await repo.readListedRefs(B), null, 'another repository keeps its own record');

    // A record copied under another repository's directory names its own repository: it is not taken.
    mkdirSync(join(gitDir, 'walrus', B));
    copyFileSync(join(gitDir, 'walrus', A, 'refs.json'), join(gitDir, 'walrus', B, 'refs.json'));
    assert.is(await repo.readListedRefs(B), null);
    writeFileSync(join(gitDir, 'walrus', A, 'refs.json'), '{"repository":');
    assert.is(await repo.readListedRefs(A), null);

    // The applied-pack record sits beside it and is independent of it.
    await repo.writeAppliedPacks(A, 3);
    assert.is(await repo.readAppliedPacks(A), 3);
    assert.is(await repo.readAppliedPacks(B), 0);
  } finally { dir.remove(); }
});

records.run();
