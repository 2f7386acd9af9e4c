/**
 * `git walrus whoami` reads the key and resolves the network without opening it: on a new home it creates the key and
 * nothing of the embedded network, and a network it cannot resolve is still refused.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';

const bin = fileURLToPath(new URL('../../bin/git-walrus', import.meta.url));

const whoami = suite('git walrus whoami');

whoami('prints the key\'s address and the network, and leaves the embedded network unopened', () => {
  const home = mkdtempSync(join(tmpdir(), 'whoami-'));
  try {
    const env = { PATH: process.env.PATH, HOME: home, GIT_WALRUS_HOME: join(home, 'walrus'), GIT_WALRUS_STATS: join(home, 'stats') };
    const first = spawnSync(bin, ['whoami'], { cwd: home, env, encoding: 'utf8' });
    assert.is(first.status, 0, first.stderr);
    assert.match(first.stdout, /^0x[0-9a-f]{64}\nnetwork: local\n$/);
    // The key it made is the one it reads next time; the embedded network's state directory was never created.
    assert.equal(readdirSync(join(home, 'walrus')), ['keystore']);
    assert.is(spawnSync(bin, ['whoami'], { cwd: home, env, encoding: 'utf8' }).stdout, first.stdout);
    // With no network opened, the process still writes its stats line (the bench reads its start-up marks).
    const lines = readFileSync(env.GIT_WALRUS_STATS, 'utf8').trim().split('\n').map((line) => JSON.parse(line));
    assert.equal(lines.map((line) => [line.role, typeof line.marks.entry, typeof line.marks.exit]), [['cli', 'number', 'number'], ['cli', 'number', 'number']]);
    const devnet = spawnSync(bin, ['whoami', '--network', 'devnet'], { cwd: home, env, encoding: 'utf8' });
    assert.is(devnet.status, 129);
    assert.match(devnet.stderr, /^fatal: network devnet needs the URL that `git walrus devnet` prints/);
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
});

whoami.run();
