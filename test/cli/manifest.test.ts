import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runMemoryCli } from '../support/memory-cli.ts';
import { MemoryLedger } from '../support/memory-ports.ts';

const OWNER = `0x${'1'.repeat(64)}`;
const workspace = { remoteUrl: async () => null };
const run = (args: string[]) => runMemoryCli({ ledger: new MemoryLedger(OWNER) }, workspace as never, args);

test('git walrus manifest: prints the settings, writes the plan and the termination message', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'manifest-cli-'));
  try {
    writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'a', walrus: { port: 3000, test: 'npm test' } }));
    writeFileSync(join(dir, 'package-lock.json'), '{}');
    const result = await run(['manifest', dir, '--plan', join(dir, 'plan'), '--termination-message', join(dir, 'report')]);
    assert.is(result.code, 0, result.stderr);
    assert.equal(JSON.parse(result.stdout), { source: 'package.json', lockfile: true, port: 3000, test: 'npm test' });
    assert.is(readFileSync(join(dir, 'report'), 'utf8'), result.stdout);
    assert.match(readFileSync(join(dir, 'plan', 'build.sh'), 'utf8'), /^npm ci --ignore-scripts$/m, 'install scripts are held back unless the manifest allows them');
    assert.match(readFileSync(join(dir, 'plan', 'test.sh'), 'utf8'), /^npm test$/m);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('git walrus manifest: a field it cannot use fails the command, naming it; no package.json is the defaults', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'manifest-cli-'));
  try {
    assert.equal(JSON.parse((await run(['manifest', dir])).stdout), { source: 'defaults', lockfile: false });
    writeFileSync(join(dir, 'package.json'), JSON.stringify({ walrus: { replicas: 'two' } }));
    const result = await run(['manifest', dir]);
    assert.is.not(result.code, 0);
    assert.match(result.stderr, /package\.json walrus\.replicas: expected a whole number from 1 to 1000, got "two"/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test.run();
