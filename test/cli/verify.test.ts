import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { verifyCommand } from '../../src/cli/verify.ts';
import { buildHistory } from '../remote/history/fixture.ts';
import { ScratchRepo } from '../remote/history/scratch-repo.ts';
import { runReviewerCli } from '../remote/history/cli-app.ts';

const repo = new ScratchRepo();
const c1 = repo.commit('one', { 'a.txt': 'a\n' });
const c2 = repo.commit('two', { 'a.txt': 'b\n' });
const build = () =>
  buildHistory([
    { updates: [{ name: 'refs/heads/main', old: null, new: c1, force: false }], chunks: [repo.pack([c1])] },
    { updates: [{ name: 'refs/heads/main', old: c1, new: c2, force: false }], chunks: [repo.pack([c2, `^${c1}`], { thin: true })] },
  ]);

const VerifyCommand = suite('verifyCommand');

VerifyCommand('is `verify <remote>`', () => {
  assert.is(verifyCommand.command, 'verify <remote>');
});

VerifyCommand('exits 0 when every check holds, with --deep too', async () => {
  const history = build();
  const plain = await runReviewerCli(history, ['verify', 'origin']);
  assert.is(plain.code, 0, plain.stdout);
  assert.ok(plain.stdout.endsWith('verified: every check holds\n'));
  assert.not.ok(plain.stdout.includes('history'));
  const deep = await runReviewerCli(history, ['verify', 'origin', '--deep']);
  assert.is(deep.code, 0, deep.stdout);
  assert.ok(deep.stdout.includes('ok      history: 2 commits that refs pointed to are present with their whole history\nhistory rewrites: none\n'));
});

VerifyCommand('exits 1 with every problem on stdout, and nothing more on stderr than progress', async () => {
  const history = build();
  history.blobs.delete(history.packs[1]!.chunks[0]!);
  const run = await runReviewerCli(history, ['verify', 'origin']);
  assert.is(run.code, 1);
  assert.ok(run.stdout.includes(`FAILED  packs: 1 problem\n        push 2, pack #1, blob ${history.packs[1]!.chunks[0]}: Walrus blob `));
  assert.ok(run.stdout.endsWith('FAILED: 1 problem found\n'));
  assert.not.ok(run.stderr.includes('fatal'));
  assert.equal([run.opened, run.closed], [1, 1]);
});

VerifyCommand('--json gives the report with ok and the findings', async () => {
  const history = build();
  history.events[0]!.timestampMs += 1;
  const run = await runReviewerCli(history, ['verify', 'origin', '--json']);
  assert.is(run.code, 1);
  const json = JSON.parse(run.stdout);
  assert.is(json.ok, false);
  assert.equal(json.findings.map((f: { code: string; seq: number | null }) => [f.code, f.seq]), [['LOG_RECORD_MISMATCH', 1], ['LOG_HEAD_MISMATCH', null]]);
});

// uvu runs a file's suites in order: the last one removes the scratch repository every suite above shares.
VerifyCommand.after(() => repo.remove());
VerifyCommand.run();
