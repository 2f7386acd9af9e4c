/**
 * What a newcomer types first: `git walrus --version`, `git walrus <command> -h` (with examples), and
 * `git walrus --help` / `git help walrus`, which git turns into `man git-walrus`: the page generated from the CLI's
 * definitions must be current and found from a checkout on PATH, with no MANPATH set.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { MAN_PAGE, helpOf, manPage } from '../../scripts/gen-man.ts';
import yargs from 'yargs';
import type { CliApp } from '../../src/cli/app.ts';
import { commands } from '../../src/cli/commands.ts';
import { cliParser, type YargsUsageInternals } from '../../src/cli/index.ts';
import { silentLog } from '../../src/core/log.ts';

const root = fileURLToPath(new URL('../..', import.meta.url));
const { version } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { version: string };
const env = (extra: NodeJS.ProcessEnv = {}) => {
  const clean: NodeJS.ProcessEnv = { ...process.env, PATH: `${root}:${process.env.PATH}`, MANPAGER: 'cat', PAGER: 'cat', MANWIDTH: '100', ...extra };
  delete clean.MANPATH;
  return clean;
};
const run = (command: string, args: string[], extra: NodeJS.ProcessEnv = {}) =>
  spawnSync(command, args, { cwd: tmpdir(), env: env(extra), encoding: 'utf8' });
const names = commands.map((c) => String(c.command).split(' ')[0]!);

const help = suite('git walrus help');

help('--version prints the package version', () => {
  const result = run('git', ['walrus', '--version']);
  assert.is(result.status, 0, result.stderr);
  assert.is(result.stdout, `${version}\n`);
});

help('-h lists every command and the global options with the networks to choose from', () => {
  const result = run('git', ['walrus', '-h']);
  assert.is(result.status, 0, result.stderr);
  for (const name of names) assert.match(result.stdout, `git walrus ${name}`);
  assert.match(result.stdout, /-v, --verbose/);
  assert.match(result.stdout, /-q, --quiet/);
  assert.match(result.stdout, /--network .*\n.*\[choices: "local", "devnet", "testnet", "mainnet"\]/);
});

help('every command\'s -h shows at least one example', async () => {
  for (const name of names) assert.match(await helpOf([name]), /\nExamples:\n {2}git walrus /, name);
});

help('--json is offered by every listing command', async () => {
  for (const name of ['log', 'deployments', 'providers', 'provider', 'lease']) assert.match(await helpOf([name]), /--json/, name);
});

help('running a command renders no help text (yargs keeps one for a showHelp() that no handler makes)', async () => {
  const cached = (parser: unknown) => (parser as YargsUsageInternals).getInternalMethods?.().getUsageInstance?.().hasCachedHelpMessage?.();
  // yargs as it comes renders and keeps the running command's help: what the check below would see.
  const plain = yargs(['x']).command('x', 'a command', () => {}, () => {});
  await plain.parseAsync();
  assert.is(cached(plain), true);
  let printed = '';
  const app = {
    open: () => Promise.reject(new Error('whoami opens no network')),
    identity: async () => ({ address: `0x${'1'.repeat(64)}`, networkName: 'local' }),
    workspace: { isRepository: async () => false, remoteUrl: async () => null, addRemote: async () => {} },
    stdout: (text: string) => { printed += text; },
    stdoutColor: false,
    log: silentLog,
    stderr: () => {},
  } as unknown as CliApp;
  const parser = cliParser(['whoami'], app);
  await parser.parseAsync();
  assert.is(printed, `0x${'1'.repeat(64)}\nnetwork: local\n`);
  assert.is(cached(parser), false);
});

help('the man page is current with the CLI', async () => {
  assert.is(readFileSync(MAN_PAGE, 'utf8'), await manPage(), 'run node scripts/gen-man.ts');
});

help('git walrus --help and git help walrus open the man page from a checkout on PATH', () => {
  for (const args of [['walrus', '--help'], ['help', 'walrus']]) {
    const result = run('git', args);
    assert.is(result.status, 0, result.stderr);
    assert.match(result.stdout, /GIT-WALRUS\(1\)/);
    for (const name of names) assert.match(result.stdout, `git walrus ${name}`);
  }
  // The same with bin/ on PATH instead of the checkout's root.
  const fromBin = spawnSync('git', ['help', 'walrus'], { cwd: tmpdir(), env: { ...env(), PATH: `${join(root, 'bin')}:${process.env.PATH}` }, encoding: 'utf8' });
  assert.match(fromBin.stdout, /GIT-WALRUS\(1\)/, fromBin.stderr);
});

help.run();
