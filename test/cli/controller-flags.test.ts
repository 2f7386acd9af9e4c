/**
 * `git walrus controller`'s attester flags: a combination that cannot work is refused before anything opens, with
 * what to change.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';

const root = fileURLToPath(new URL('../..', import.meta.url));
const home = mkdtempSync(join(tmpdir(), 'controller-flags-'));
const test = suite('git walrus controller: attester flags');

const controller = (args: string[]) => spawnSync(join(root, 'bin', 'git-walrus'), ['controller', ...args], { encoding: 'utf8', env: { ...process.env, GIT_WALRUS_HOME: home } });

test.after(() => rmSync(home, { recursive: true, force: true }));

test('refused combinations name the flag to add or drop', () => {
  const provider = `0x${'1'.repeat(64)}`;
  const cases: Array<[string[], string]> = [
    [['--attest'], '--attest and --no-serve need --provider (the provider that attests)'],
    [['--no-serve'], '--attest and --no-serve need --provider (the provider that attests)'],
    [['--provider', provider, '--no-serve'], '--no-serve leaves the provider nothing to do: add --attest'],
    [['--provider', provider, '--attest-image', 'node:22'], '--attest-image needs --attest'],
    [['--provider', provider, '--namespace', 'apps'], '--provider serves leases in a namespace per tenant: drop --namespace'],
    [['--provider', provider, '--no-serve', '--attest', '--namespace', 'apps'], '--no-serve reconciles no WalrusApps: drop --namespace'],
  ];
  for (const [args, message] of cases) {
    const run = controller(args);
    assert.is(run.status, 129, `${args.join(' ')}: ${run.stderr}`);
    assert.ok(run.stderr.includes(message), `${args.join(' ')}: ${run.stderr}`);
  }
});

test.run();
