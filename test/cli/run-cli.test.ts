import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { CliApp } from '../../src/cli/app.ts';
import { runCli } from '../../src/cli/index.ts';
import { InternalError, UsageError } from '../../src/core/errors.ts';
import { streamLog } from '../../src/core/log.ts';
import { readingBlobs } from '../support/memory-cli.ts';

/** `git walrus whoami` with an app whose key fails with `error`, at a log verbosity (-q 0, default 1, -v 2). */
async function failing(error: Error, verbosity: number): Promise<{ code: number; stderr: string }> {
  let stderr = '';
  const app: CliApp = {
    open: () => Promise.reject(new Error('whoami opens no network')),
    identity: () => Promise.reject(error),
    workspace: { isRepository: async () => false, remoteUrl: async () => null, addRemote: async () => {} },
    stdout: () => {},
    stdoutColor: false,
    log: streamLog((text) => { stderr += text; }, verbosity),
    stderr: (text) => { stderr += text; },
  };
  return { code: await runCli(['whoami'], app), stderr };
}

const errors = suite('runCli: how a failure is reported');

errors('an InternalError is a bug: one line, and its stack under -v', async () => {
  const bug = new InternalError('the plan lost a ref');
  const quiet = await failing(bug, 1);
  assert.is(quiet.code, 1);
  assert.is(quiet.stderr, `fatal: ${bug.message}\n`);
  const verbose = await failing(bug, 2);
  assert.is(verbose.code, 1);
  assert.ok(verbose.stderr.startsWith(`fatal: ${bug.message}\n`));
  assert.match(verbose.stderr, /\n {4}at .*run-cli\.test\.ts/);
});

errors('anything untyped is reported as an internal error, with its stack under -v', async () => {
  const verbose = await failing(new TypeError('x is undefined'), 2);
  assert.match(verbose.stderr, /^fatal: internal error: x is undefined \(please report this\)\nTypeError: x is undefined\n {4}at /);
  assert.is((await failing(new TypeError('x is undefined'), 1)).stderr, 'fatal: internal error: x is undefined (please report this)\n');
});

errors('an expected error is one line even under -v', async () => {
  const verbose = await failing(new UsageError('unknown network'), 2);
  assert.is(verbose.code, 129);
  assert.is(verbose.stderr, 'fatal: unknown network\n');
});

errors.run();

/** A blob id that begins with '-' (one in 64 does) and has an `h` in it, so yargs alone would read it as `-h` among others. */
const DASHED_BLOB_ID = '-mssw5xSiu4NhBLlB6Z3Fp4tFZq7S7mrc1Nio653kzA';
const SHA256 = 'b'.repeat(64);

const operands = suite('runCli: `--` ends the options');

operands('a blob id that begins with - is fetched when it comes after --', async () => {
  const fetched = await readingBlobs(['artifact', 'fetch', '--sha256', SHA256, '--', DASHED_BLOB_ID, 'app']);
  assert.equal(fetched.read, [DASHED_BLOB_ID]);
  assert.is(fetched.code, 3);
});

operands('a blob id that begins with - is an operand without -- too, wherever it stands', async () => {
  const first = await readingBlobs(['artifact', 'fetch', DASHED_BLOB_ID, '--sha256', SHA256, 'app']);
  assert.equal(first.read, [DASHED_BLOB_ID]);
  assert.is(first.code, 3);
  const last = await readingBlobs(['artifact', 'fetch', '--sha256', SHA256, DASHED_BLOB_ID, 'app']);
  assert.equal(last.read, [DASHED_BLOB_ID]);
});

operands('an operand after -- is never an option: -h is not the help, and a usage error names the operand', async () => {
  const help = await readingBlobs(['artifact', 'fetch', '--sha256', SHA256, '--', '-h', 'app']);
  assert.is(help.code, 1);
  assert.is(help.stderr, "fatal: '-h' is not a Walrus blob id (43 characters of URL-safe base64)\n");
  const extra = await readingBlobs(['artifact', 'fetch', '--sha256', SHA256, '--', DASHED_BLOB_ID, 'app', '-x']);
  assert.is(extra.code, 129);
  assert.is(extra.stderr, 'fatal: Unknown argument: -x\n');
  assert.equal(extra.read, []);
});

operands('options before -- and operands that do not begin with - work as without it', async () => {
  const plain = await readingBlobs(['artifact', 'fetch', '--sha256', SHA256, '--', 'Q'.repeat(43), 'app']);
  assert.equal(plain.read, ['Q'.repeat(43)]);
  const without = await readingBlobs(['artifact', 'fetch', 'Q'.repeat(43), '--sha256', SHA256, 'app']);
  assert.equal(without.read, ['Q'.repeat(43)]);
});

operands.run();
