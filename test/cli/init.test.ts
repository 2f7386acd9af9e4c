import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { gitWorkspace } from '../../src/git/workspace.ts';
import { MemoryLedger } from '../support/memory-ports.ts';
import { MemoryKeyService } from '../support/memory-key-service.ts';
import { runMemoryCli } from '../support/memory-cli.ts';
import { gitIn } from '../support/git-fixture.ts';
import { hermeticGitEnv, tempDir } from '../../scripts/harness/git-env.ts';

const dir = tempDir('walrus-init-');
const env = hermeticGitEnv(join(dir.path, 'home'), { GIT_CEILING_DIRECTORIES: dir.path });

/** Runs `git walrus <args>` in `cwd` over a memory ledger and the real git workspace there. */
async function walrus(cwd: string, args: string[], options: { keyServers?: boolean } = {}) {
  const ledger = new MemoryLedger('0xa11ce');
  const keyService = options.keyServers ? new MemoryKeyService(ledger) : undefined;
  return { ...(await runMemoryCli({ ledger, keyService }, gitWorkspace({ cwd, env }), args)), ledger };
}

function repository(name: string, ...initArgs: string[]): string {
  const path = join(dir.path, name);
  mkdirSync(path);
  gitIn(path, env, 'init', '-q', ...initArgs, '.');
  return path;
}

const headOf = (run: Awaited<ReturnType<typeof walrus>>) => [...run.ledger.repositories.values()][0]!.head;

const InitCommand = suite('initCommand');

InitCommand('HEAD follows the current branch, and the push hint names it', async () => {
  const repo = repository('on-master', '-b', 'master');
  const run = await walrus(repo, ['init', 'on-master']);
  assert.is(run.code, 0, run.stderr);
  assert.is(headOf(run), 'refs/heads/master');
  assert.match(run.stderr, "Added remote 'walrus'. Push with: git push walrus master\n");
  assert.is(gitIn(repo, env, 'config', 'remote.walrus.url'), run.stdout.trim());
});

InitCommand('a detached HEAD falls back to init.defaultBranch, then main', async () => {
  const repo = repository('detached', '-b', 'work');
  gitIn(repo, env, 'commit', '-q', '--allow-empty', '-m', 'first');
  gitIn(repo, env, 'checkout', '-q', '--detach');
  const unconfigured = await walrus(repo, ['init', 'detached', '--remote', 'one']);
  assert.is(headOf(unconfigured), 'refs/heads/main');
  assert.match(unconfigured.stderr, 'Push with: git push one main\n');
  gitIn(repo, env, 'config', 'init.defaultBranch', 'trunk');
  const configured = await walrus(repo, ['init', 'detached', '--remote', 'two']);
  assert.is(headOf(configured), 'refs/heads/trunk');
  assert.match(configured.stderr, 'Push with: git push two trunk\n');
});

InitCommand('--head wins over the current branch', async () => {
  const repo = repository('explicit', '-b', 'master');
  const run = await walrus(repo, ['init', 'explicit', '--head', 'release']);
  assert.is(headOf(run), 'refs/heads/release');
  assert.match(run.stderr, 'Push with: git push walrus release\n');
});

InitCommand('outside a repository HEAD is main and no remote is added', async () => {
  const outside = join(dir.path, 'outside');
  mkdirSync(outside);
  const run = await walrus(outside, ['init', 'bare']);
  assert.is(run.code, 0, run.stderr);
  assert.is(headOf(run), 'refs/heads/main');
  assert.not.match(run.stderr, 'Push with');
});

InitCommand('--private makes a private repository and says how to add readers; without key servers it creates nothing', async () => {
  const repo = repository('secret', '-b', 'main');
  const refused = await walrus(repo, ['init', 'secret', '--private']);
  assert.is(refused.code, 129);
  assert.match(refused.stderr, /^fatal: network local has no Seal key servers configured, so it cannot hold a private repository/);
  assert.is(refused.ledger.repositories.size, 0);
  const run = await walrus(repo, ['init', 'secret', '--private'], { keyServers: true });
  assert.is(run.code, 0, run.stderr);
  assert.is([...run.ledger.repositories.values()][0]!.private, true);
  assert.match(run.stderr, `Created private repository 'secret' on local`);
  assert.match(run.stderr, `let others read it with: git walrus readers add ${run.stdout.trim()} <address>`);
});

InitCommand.after(() => dir.remove());
InitCommand.run();
