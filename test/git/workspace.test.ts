import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { gitWorkspace } from '../../src/git/workspace.ts';
import { commitFile, gitIn } from '../support/git-fixture.ts';
import { hermeticGitEnv, tempDir } from '../../scripts/harness/git-env.ts';

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

GitWorkspace('answers the walrus and remote sections from one git process, as `git config --get` would', async () => {
  gitIn(repo, env, 'config', 'remote.Fork.url', 'walrus://0xF');
  gitIn(repo, env, 'config', 'remote.fork.url', 'walrus://0xf');
  gitIn(repo, env, 'config', 'remote.my.mirror.url', 'walrus://0xm');
  gitIn(repo, env, 'config', 'walrus.expiryWarningEpochs', '4');
  gitIn(repo, env, 'config', '--add', 'walrus.expiryWarningEpochs', '6');
  gitIn(repo, env, 'config', 'init.defaultBranch', 'trunk');
  const trace = join(dir.path, 'trace');
  const workspace = gitWorkspace({ cwd: repo, env: { ...env, GIT_TRACE: trace } });
  // A remote's name keeps its case; section and variable names do not (git prints `walrus.expirywarningepochs`).
  assert.is(await workspace.remoteUrl('Fork'), 'walrus://0xF');
  assert.is(await workspace.remoteUrl('fork'), 'walrus://0xf');
  assert.is(await workspace.remoteUrl('my.mirror'), 'walrus://0xm');
  assert.is(await workspace.remoteUrl('FORK'), null);
  assert.is(await workspace.getConfig!('walrus.expiryWarningEpochs'), gitIn(repo, env, 'config', '--get', 'walrus.expiryWarningEpochs').trim());
  assert.is(await workspace.getConfig!('Walrus.ExpiryWarningEpochs'), '6');
  assert.is((await workspace.configSnapshot()).get('walrus.network'), 'devnet');
  assert.equal(gitProcesses(trace), ['config --null --get-regexp ^(walrus|remote)\\.']);
  // Other sections are asked one by one.
  assert.is(await workspace.getConfig!('init.defaultBranch'), 'trunk');
  assert.equal(gitProcesses(trace).slice(1), ['config --get init.defaultBranch']);
  rmSync(trace);
});

/** The git commands GIT_TRACE recorded (`trace: built-in: git <args>`). */
function gitProcesses(trace: string): string[] {
  return [...readFileSync(trace, 'utf8').matchAll(/trace: built-in: git (.*)$/gm)].map((m) => m[1]!.replace(/'/g, ''));
}

GitWorkspace.after(() => dir.remove());
GitWorkspace.run();
