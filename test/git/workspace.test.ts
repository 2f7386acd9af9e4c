import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { gitWorkspace } from '../../src/git/workspace.ts';
import { commitFile, gitIn, hermeticGitEnv, tempDir } from '../support/git-fixture.ts';

const dir = tempDir('walrus-workspace-');
const env = hermeticGitEnv(join(dir.path, 'home'));
const repo = join(dir.path, 'repo');
const outside = join(dir.path, 'outside');
mkdirSync(repo);
mkdirSync(outside);
// GIT_CEILING_DIRECTORIES keeps git from finding a repository above the temp dir.
const envOutside = { ...env, GIT_CEILING_DIRECTORIES: dir.path };
gitIn(repo, env, 'init', '-q', '-b', 'trunk', '.');

const GitWorkspace = suite('gitWorkspace');

GitWorkspace('knows whether it is inside a repository', async () => {
  assert.ok(await gitWorkspace({ cwd: repo, env }).isRepository());
  assert.not.ok(await gitWorkspace({ cwd: outside, env: envOutside }).isRepository());
});

GitWorkspace('names the current branch before its first commit, and null on a detached HEAD', async () => {
  const workspace = gitWorkspace({ cwd: repo, env });
  assert.is(await workspace.currentBranch!(), 'refs/heads/trunk');
  commitFile(repo, env, 'a.txt', 'a\n');
  gitIn(repo, env, 'checkout', '-q', '--detach');
  assert.is(await workspace.currentBranch!(), null);
  gitIn(repo, env, 'checkout', '-q', 'trunk');
});

GitWorkspace('reads and writes config and remotes', async () => {
  const workspace = gitWorkspace({ cwd: repo, env });
  assert.is(await workspace.getConfig!('walrus.network'), null);
  await workspace.setConfig!('walrus.network', 'devnet');
  assert.is(await workspace.getConfig!('walrus.network'), 'devnet');
  assert.is(await workspace.remoteUrl('walrus'), null);
  await workspace.addRemote('walrus', 'walrus://0x1');
  assert.is(await workspace.remoteUrl('walrus'), 'walrus://0x1');
  await workspace.addRemote('walrus', 'walrus://0x2').then(() => assert.unreachable(), (e) => assert.is(e.code, 'GIT_COMMAND'));
});

GitWorkspace.after(() => dir.remove());
GitWorkspace.run();
