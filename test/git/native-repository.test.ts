import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { copyFileSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { NativeGitRepository } from '../../src/git/native-repository.ts';
import { execFileSync } from 'node:child_process';
import { GitCommandError } from '../../src/git/run-git.ts';
import { commitFile, gitIn, initRepo } from '../support/git-fixture.ts';
import { hermeticGitEnv, tempDir } from '../../scripts/harness/git-env.ts';

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

const spool = suite('NativeGitRepository.packObjects');

spool('spools the pack git writes; read in any chunk size it is a pack git indexes; discard leaves nothing', async () => {
  const dir = tempDir('native-spool-test-');
  try {
    const env = hermeticGitEnv(dir.path);
    mkdirSync(join(dir.path, 'work'));
    const work = initRepo(join(dir.path, 'work'), env);
    let head = '';
    for (let i = 0; i < 5; i++) head = commitFile(work, env, `f${i}.txt`, `line ${i}\n`.repeat(2000 + i));
    const repo = new NativeGitRepository(join(work, '.git'), env);
    const pack = await repo.packObjects([head], [], false);
    const pieces: Buffer[] = [];
    const buffer = new Uint8Array(1000);
    let offset = 0;
    for (let n = await pack.read(0, buffer); n > 0; n = await pack.read(offset, buffer)) {
      assert.ok(n === buffer.length || (await pack.read(offset + n, buffer)) === 0, 'only the last read is short');
      pieces.push(Buffer.from(buffer.subarray(0, n)));
      offset += n;
    }
    assert.is(await pack.read(offset + 5, buffer), 0);
    await pack.discard();
    const bytes = Buffer.concat(pieces);
    assert.is(bytes.subarray(0, 4).toString(), 'PACK');
    mkdirSync(join(dir.path, 'other'));
    const other = initRepo(join(dir.path, 'other'), env);
    execFileSync('git', ['index-pack', '--stdin', '--fix-thin'], { cwd: other, env, input: bytes });
    assert.is(execFileSync('git', ['cat-file', '-t', head], { cwd: other, env, encoding: 'utf8' }).trim(), 'commit');
    assert.equal(readdirSync(join(work, '.git', 'objects', 'pack')).filter((name) => name.startsWith('tmp_')), []);
  } finally {
    dir.remove();
  }
});

spool('a pack git cannot make fails the read with git\'s error, and discard still cleans up', async () => {
  const dir = tempDir('native-spool-test-');
  try {
    const env = hermeticGitEnv(dir.path);
    mkdirSync(join(dir.path, 'work'));
    const work = initRepo(join(dir.path, 'work'), env);
    const repo = new NativeGitRepository(join(work, '.git'), env);
    const pack = await repo.packObjects(['1'.repeat(40)], [], false);
    await pack.read(0, new Uint8Array(100)).then(() => assert.unreachable(), (e) => assert.instance(e, GitCommandError));
    await pack.discard();
    assert.equal(readdirSync(join(work, '.git', 'objects', 'pack')).filter((name) => name.startsWith('tmp_')), []);
  } finally {
    dir.remove();
  }
});

spool.run();

const ancestry = suite('NativeGitRepository.ancestry');

ancestry('answers every pair as git merge-base does, in one walk for most and git for the rest', async () => {
  const dir = tempDir('native-ancestry-test-');
  try {
    const env = hermeticGitEnv(dir.path);
    const work = initRepo(dir.path, env);
    const line = Array.from({ length: 6 }, (_, i) => commitFile(work, env, 'a.txt', `${i}\n`));
    gitIn(work, env, 'checkout', '-q', '-b', 'side', line[2]!);
    const side = [commitFile(work, env, 'b.txt', 'side 1\n'), commitFile(work, env, 'b.txt', 'side 2\n')];
    gitIn(work, env, 'checkout', '-q', 'main');
    gitIn(work, env, 'merge', '-q', '--no-edit', 'side');
    const merge = gitIn(work, env, 'rev-parse', 'HEAD');
    const tree = gitIn(work, env, 'rev-parse', 'HEAD^{tree}');
    const absent = 'f'.repeat(40);
    const pairs = [
      { old: line[4]!, new: line[5]! }, // one commit ahead: the walk reaches old on its boundary
      { old: line[1]!, new: line[5]! }, // fast-forward through another pair's old (line[4]): git decides
      { old: side[1]!, new: merge }, // through a merge
      { old: line[5]!, new: side[1]! }, // diverged, sharing history
      { old: line[5]!, new: line[3]! }, // moved back: new is reachable from an old value
      { old: side[0]!, new: line[2]! }, // new older than old's branch point
      { old: absent, new: line[5]! }, // someone pushed what we do not have
      { old: tree, new: line[5]! }, // not a commit
      { old: line[0]!, new: tree },
    ];
    const repo = new NativeGitRepository(join(work, '.git'), env);
    const answers = await repo.ancestry(pairs);
    const expected = pairs.map(({ old, new: next }) => {
      if (old === absent) return 'missing-old';
      if (old === tree || next === tree) return 'not-commits';
      try {
        execFileSync('git', ['merge-base', '--is-ancestor', old, next], { cwd: work, env });
        return 'fast-forward';
      } catch {
        return 'diverged';
      }
    });
    assert.equal(answers, expected);
    assert.equal(answers.slice(0, 6), ['fast-forward', 'fast-forward', 'fast-forward', 'diverged', 'diverged', 'diverged']);
    assert.equal(await repo.ancestry([]), []);
  } finally {
    dir.remove();
  }
});

ancestry.run();
