import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { checkMovePaths, checkMoveSource } from '../../scripts/check-move.ts';
import { generatedFiles, staleGeneratedFiles } from '../../scripts/gen-move-tests.ts';

const root = fileURLToPath(new URL('../..', import.meta.url));
const script = join(root, 'scripts', 'check-move.ts');

const source = suite('checkMoveSource');

source('accepts Move 2024 and reports nothing', async () => {
  const ok = `module a::m;\n\nuse std::string::String;\n\npublic struct S has copy, drop { name: String, n: u64 }\n\npublic(package) fun f(s: &S): u64 {\n    let mut x = s.n;\n    x = x + 1;\n    x\n}\n`;
  assert.equal(await checkMoveSource('m.move', ok), []);
});

source('reports a missing semicolon and an unclosed brace at their lines', async () => {
  const broken = `module a::m;\n\npublic fun f(): u64 {\n    let x = 1\n    x\n}\n\npublic fun g() {\n    if (true) {\n`;
  const findings = await checkMoveSource('m.move', broken);
  assert.ok(findings.some((f) => f.line === 5 && /missing `;`/.test(f.message)), JSON.stringify(findings));
  assert.ok(findings.some((f) => /missing `}`|syntax error/.test(f.message)));
});

source('rejects legacy struct declarations and friend', async () => {
  const legacy = `module a::m;\n\nfriend a::n;\n\nstruct S has drop { x: u64 }\n`;
  const findings = await checkMoveSource('m.move', legacy);
  assert.equal(findings.map((f) => [f.line, f.column]), [[3, 1], [5, 1]]);
  assert.match(findings[1]!.message, /public struct/);
});

source.run();

const cli = suite('check-move CLI');

cli('fails on a broken file and names the file and line', () => {
  const dir = mkdtempSync(join(tmpdir(), 'check-move-'));
  try {
    mkdirSync(join(dir, 'sources'));
    writeFileSync(join(dir, 'sources', 'good.move'), 'module a::good;\n\npublic fun f(): u64 { 1 }\n');
    writeFileSync(join(dir, 'sources', 'bad.move'), 'module a::bad;\n\npublic fun f(): u64 {\n    let x = 1\n    x\n}\n');
    const run = spawnSync(process.execPath, [script, dir], { encoding: 'utf8' });
    assert.is(run.status, 1, run.stderr);
    assert.match(run.stderr, new RegExp(`${join(dir, 'sources', 'bad.move').replace(/[/\\]/g, '.')}:5:5: missing \`;\``));
    assert.not.match(run.stderr, /good\.move/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

cli('passes on the package in contracts/ with fresh generated tests', async () => {
  assert.equal(await checkMovePaths([join(root, 'contracts')]), []);
  assert.equal(staleGeneratedFiles(root), []);
});

cli.run();

const stale = suite('staleGeneratedFiles');

stale('names a generated Move file that no longer matches its JSON', () => {
  const dir = mkdtempSync(join(tmpdir(), 'gen-move-'));
  try {
    mkdirSync(join(dir, 'contracts', 'tests'), { recursive: true });
    for (const f of ['scenarios.json', 'push_log_vectors.json', 'name_vectors.json', 'market_scenarios.json', 'lease_access_scenarios.json', 'lease_secrets_scenarios.json', 'attestation_scenarios.json']) {
      copyFileSync(join(root, 'contracts', 'tests', f), join(dir, 'contracts', 'tests', f));
    }
    for (const { path, content } of generatedFiles(dir)) writeFileSync(path, content);
    assert.equal(staleGeneratedFiles(dir), []);
    const target = join(dir, 'contracts', 'tests', 'scenarios_tests.move');
    writeFileSync(target, '// edited by hand\n');
    assert.equal(staleGeneratedFiles(dir), [target]);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

stale.run();
