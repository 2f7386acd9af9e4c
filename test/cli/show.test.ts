import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { showCommand } from '../../src/cli/show.ts';
import { buildHistory, oid } from '../remote/history/fixture.ts';
import { ScratchRepo } from '../remote/history/scratch-repo.ts';
import { runReviewerCli } from '../remote/history/cli-app.ts';

const repo = new ScratchRepo();
const c1 = repo.commit('initial import', { 'a.txt': 'a\n' });
const history = buildHistory([
  { updates: [{ name: 'refs/heads/main', old: null, new: c1, force: false }], chunks: [repo.pack([c1])] },
  { updates: [{ name: 'refs/tags/v1', old: null, new: c1, force: false }] },
]);

const ShowCommand = suite('showCommand');

ShowCommand('is `show <remote> <seq>`', () => {
  assert.is(showCommand.command, 'show <remote> <seq>');
});

ShowCommand('prints the push and the commits of its pack', async () => {
  const run = await runReviewerCli(history, ['show', 'origin', '1']);
  assert.is(run.code, 0, run.stderr);
  assert.ok(run.stdout.startsWith('push 1  '));
  assert.ok(run.stdout.endsWith(`Commits: 1\n  ${c1}\n      Ada Lovelace <ada@example.org>  2023-11-14 23:14:20 +0100\n      initial import\n`));
  const json = JSON.parse((await runReviewerCli(history, ['show', 'origin', '1', '--json'])).stdout);
  assert.equal(json.commits.map((c: { subject: string }) => c.subject), ['initial import']);
});

ShowCommand('a push number out of range or malformed is a usage error', async () => {
  const missing = await runReviewerCli(history, ['show', 'origin', '3']);
  assert.equal([missing.code, missing.stderr], [129, 'fatal: no push 3: pushes are numbered 1 to 2\n']);
  const zero = await runReviewerCli(history, ['show', 'origin', '0']);
  assert.equal([zero.code, zero.stderr], [129, 'fatal: the push number must be 1 or more, got 0\n']);
  assert.is(zero.opened, 0, 'checked before opening the network');
});

ShowCommand('a pack Walrus serves altered fails with the finding', async () => {
  const tampered = { ...history, blobs: new Map([...history.blobs].map(([id]) => [id, new TextEncoder().encode('junk')])) };
  const run = await runReviewerCli(tampered, ['show', 'origin', '1']);
  assert.is(run.code, 1);
  assert.match(run.stderr, /^fatal: push 1, pack #0, blob [\w-]{43}: the 4 bytes Walrus serves have blob id [\w-]{43}\n/);
});

ShowCommand.run();

const Cleanup = suite('cleanup');
Cleanup('removes the scratch repository', () => {
  repo.remove();
  assert.ok(oid(1));
});
Cleanup.run();
