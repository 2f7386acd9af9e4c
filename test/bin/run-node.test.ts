import { spawnSync } from 'node:child_process';
import { chmodSync, copyFileSync, mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, unlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';

const root = fileURLToPath(new URL('../..', import.meta.url));
const projectNode = realpathSync(join(root, 'node_modules', '.bin', 'node'));

// Both entries print which tree ran, with their arguments, and exit with the code given as the first argument.
// The source has a type annotation, so it only runs through Node's type stripping.
const SOURCE = `const args: string[] = process.argv.slice(2);\nconsole.log('source ' + JSON.stringify(args));\nprocess.exitCode = Number(args[0]);\n`;
const BUILT = `const args = process.argv.slice(2);\nconsole.log('built ' + JSON.stringify(args));\nprocess.exitCode = Number(args[0]);\n`;
const HOUR_AGO = Date.now() / 1000 - 3600;

/** A minimal installed package: bin/run-node, the project's Node as node_modules/.bin/node, src/ and a built dist/. */
function makePackage(): string {
  const dir = mkdtempSync(join(tmpdir(), 'run-node-'));
  mkdirSync(join(dir, 'bin'));
  copyFileSync(join(root, 'bin', 'run-node'), join(dir, 'bin', 'run-node'));
  chmodSync(join(dir, 'bin', 'run-node'), 0o755);
  mkdirSync(join(dir, 'node_modules', '.bin'), { recursive: true });
  symlinkSync(projectNode, join(dir, 'node_modules', '.bin', 'node'));
  writeFileSync(join(dir, 'package.json'), '{ "type": "module" }\n');
  mkdirSync(join(dir, 'src', 'main'), { recursive: true });
  mkdirSync(join(dir, 'dist', 'main'), { recursive: true });
  writeFileSync(join(dir, 'src', 'main', 'x.ts'), SOURCE);
  writeFileSync(join(dir, 'src', 'main', 'other.ts'), 'export {};\n');
  writeFileSync(join(dir, 'dist', 'main', 'x.js'), BUILT);
  writeFileSync(join(dir, 'dist', '.built'), '');
  writeFileSync(join(dir, 'node_modules', '.package-lock.json'), '{}\n');
  // Sources and dependencies installed an hour ago, built ten seconds later: a current build.
  for (const path of ['src', 'src/main', 'src/main/x.ts', 'src/main/other.ts', 'node_modules/.package-lock.json']) touch(dir, path, HOUR_AGO);
  touch(dir, 'dist/.built', HOUR_AGO + 10);
  return dir;
}

function touch(dir: string, path: string, seconds: number): void {
  utimesSync(join(dir, path), seconds, seconds);
}

function runNode(runner: string, args: string[], env: NodeJS.ProcessEnv = process.env) {
  const run = spawnSync(runner, args, { encoding: 'utf8', env });
  return { status: run.status, stdout: run.stdout, stderr: run.stderr };
}

function withPackage(test: (dir: string) => void): () => void {
  return () => {
    const dir = makePackage();
    try {
      test(dir);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  };
}

const runNodeSuite = suite('bin/run-node');

runNodeSuite('runs the built JavaScript when dist/ is current, passing arguments and the exit code through', withPackage((dir) => {
  const run = runNode(join(dir, 'bin', 'run-node'), ['src/main/x.ts', '3', 'two words', '--flag', '']);
  assert.is(run.stderr, '');
  assert.is(run.stdout, `built ${JSON.stringify(['3', 'two words', '--flag', ''])}\n`);
  assert.is(run.status, 3);
}));

runNodeSuite('runs the source when a file under src/ is newer than the stamp', withPackage((dir) => {
  touch(dir, 'src/main/other.ts', HOUR_AGO + 20);
  const run = runNode(join(dir, 'bin', 'run-node'), ['src/main/x.ts', '4', 'two words']);
  assert.is(run.stdout, `source ${JSON.stringify(['4', 'two words'])}\n`);
  assert.is(run.status, 4);
}));

runNodeSuite('runs the source when the dependencies were installed after the build (the bundle holds their old code)', withPackage((dir) => {
  touch(dir, 'node_modules/.package-lock.json', HOUR_AGO + 20);
  const run = runNode(join(dir, 'bin', 'run-node'), ['src/main/x.ts', '5']);
  assert.is(run.stdout, 'source ["5"]\n');
  assert.is(run.status, 5);
}));

runNodeSuite('starts Node from the snapshot of it the build makes through run-node, until an install is newer', withPackage((dir) => {
  const blob = join(realpathSync(dir), 'dist', 'node.blob');
  const made = spawnSync(join(dir, 'bin', 'run-node'), [], { env: { ...process.env, RUN_NODE_BUILD_SNAPSHOT: blob }, encoding: 'utf8' });
  assert.is(made.status, 0, made.stderr);
  const printFlags = 'console.log(JSON.stringify(process.execArgv));\n';
  writeFileSync(join(dir, 'src', 'main', 'flags.ts'), printFlags);
  writeFileSync(join(dir, 'dist', 'main', 'flags.js'), printFlags);
  const flags = () => JSON.parse(runNode(join(dir, 'bin', 'run-node'), ['src/main/flags.ts']).stdout) as string[];
  assert.equal(flags(), ['--max-semi-space-size=1', '--snapshot-blob', blob]);
  // npm may have replaced Node: a snapshot of another Node would not load.
  touch(dir, 'node_modules/.package-lock.json', Date.now() / 1000 + 60);
  assert.equal(flags(), ['--max-semi-space-size=1']);
}));

runNodeSuite('runs the source when a file was deleted from src/ after the build', withPackage((dir) => {
  unlinkSync(join(dir, 'src', 'main', 'other.ts'));
  assert.is(runNode(join(dir, 'bin', 'run-node'), ['src/main/x.ts', '0']).stdout, 'source ["0"]\n');
}));

runNodeSuite('runs the source when there is no stamp (never built, or a build failed)', withPackage((dir) => {
  unlinkSync(join(dir, 'dist', '.built'));
  const run = runNode(join(dir, 'bin', 'run-node'), ['src/main/x.ts', '0']);
  assert.is(run.stdout, 'source ["0"]\n');
  assert.is(run.status, 0);
}));

runNodeSuite('runs the source when the build has no such entry', withPackage((dir) => {
  unlinkSync(join(dir, 'dist', 'main', 'x.js'));
  assert.is(runNode(join(dir, 'bin', 'run-node'), ['src/main/x.ts', '0']).stdout, 'source ["0"]\n');
}));

runNodeSuite('finds the package through a symlink to it, as an install links its executables', withPackage((dir) => {
  mkdirSync(join(dir, 'elsewhere'));
  symlinkSync(join(dir, 'bin', 'run-node'), join(dir, 'elsewhere', 'run-node'));
  assert.is(runNode(join(dir, 'elsewhere', 'run-node'), ['src/main/x.ts', '0']).stdout, 'built ["0"]\n');
}));

runNodeSuite('without the project\'s Node, refuses a system node older than 22 and says how to install', withPackage((dir) => {
  unlinkSync(join(dir, 'node_modules', '.bin', 'node'));
  // A stand-in for an old system node: the version query is all run-node asks of it before refusing.
  mkdirSync(join(dir, 'old-node'));
  writeFileSync(join(dir, 'old-node', 'node'), '#!/bin/sh\necho 20\n');
  chmodSync(join(dir, 'old-node', 'node'), 0o755);
  const run = runNode(join(dir, 'bin', 'run-node'), ['src/main/x.ts', '0'], { PATH: `${join(dir, 'old-node')}:/usr/bin:/bin` });
  assert.is(run.status, 128);
  assert.is(run.stdout, '');
  assert.match(run.stderr, `needs Node 22.19 or newer; run 'npm ci' in ${realpathSync(dir)}`);
}));

runNodeSuite.run();
