/**
 * A `git walrus` command reads the git config once: the network's settings, the remote's URL and a command's own
 * `walrus.*` option all come from one `git config` process (each used to start one of its own).
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { gitIn } from '../support/git-fixture.ts';
import { hermeticGitEnv } from '../../scripts/harness/git-env.ts';

const bin = fileURLToPath(new URL('../../bin/git-walrus', import.meta.url));

const processes = suite('git processes of a git walrus command');

processes('log and whoami start one git process, and log still honours walrus.expiryWarningEpochs', () => {
  const dir = mkdtempSync(join(tmpdir(), 'git-processes-'));
  try {
    const env = { ...hermeticGitEnv(join(dir, 'home')), GIT_WALRUS_HOME: join(dir, 'walrus') };
    const repo = join(dir, 'repo');
    gitIn(dir, env, 'init', '-q', repo);
    const init = spawnSync(bin, ['init', 'app'], { cwd: repo, env, encoding: 'utf8' });
    assert.is(init.status, 0, init.stderr);
    const trace = join(dir, 'trace');
    const traced = (args: string[]) => {
      rmSync(trace, { force: true });
      const run = spawnSync(bin, args, { cwd: repo, env: { ...env, GIT_TRACE: trace }, encoding: 'utf8' });
      const started = [...readFileSync(trace, 'utf8').matchAll(/trace: built-in: git (.*)$/gm)].map((m) => m[1]!.replace(/'/g, ''));
      return { ...run, started };
    };
    const log = traced(['log', 'walrus']);
    assert.is(log.status, 0, log.stderr);
    assert.is(log.stderr, 'No pushes yet.\n');
    assert.equal(log.started, ['config --null --get-regexp ^(walrus|remote)\\.']);
    assert.equal(traced(['whoami']).started, ['config --null --get-regexp ^(walrus|remote)\\.']);
    // The option is read from that process's answer: a bad value is still refused, in the user's terms.
    gitIn(repo, env, 'config', 'walrus.expiryWarningEpochs', 'soon');
    const refused = traced(['log', 'walrus']);
    assert.equal([refused.status, refused.stderr], [129, "fatal: the expiry warning must be a whole number of epochs (0 or more), got 'soon'\n"]);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

processes.run();
