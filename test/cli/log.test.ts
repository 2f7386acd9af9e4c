import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { logCommand } from '../../src/cli/log.ts';
import { buildHistory, chunk, oid } from '../remote/history/fixture.ts';
import { runReviewerCli } from '../remote/history/cli-app.ts';

const history = buildHistory([
  { updates: [{ name: 'refs/heads/main', old: null, new: oid(1), force: false }], chunks: [chunk('a')] },
  { updates: [{ name: 'refs/heads/main', old: oid(1), new: oid(2), force: true }], chunks: [chunk('b')] },
  { updates: [{ name: 'refs/tags/v1', old: null, new: oid(2), force: false }] },
]);

const LogCommand = suite('logCommand');

LogCommand('is `log <remote>`', () => {
  assert.is(logCommand.command, 'log <remote>');
});

LogCommand('prints every push newest first, by remote name or URL, and closes the network', async () => {
  const run = await runReviewerCli(history, ['log', 'origin']);
  assert.is(run.code, 0);
  assert.equal([...run.stdout.matchAll(/^push (\d+) {2}/gm)].map((m) => Number(m[1])), [3, 2, 1]);
  assert.ok(run.stdout.includes('[forced]'));
  assert.not.ok(run.stdout.includes('\x1b['));
  assert.equal([run.opened, run.closed], [1, 1]);
  assert.is((await runReviewerCli(history, ['log', `walrus://${history.repository.id}`])).stdout, run.stdout);
});

LogCommand('colours only when the app says stdout takes colour', async () => {
  assert.ok((await runReviewerCli(history, ['log', 'origin'], { color: true })).stdout.startsWith('\x1b[33mpush 3'));
});

LogCommand('--ref, --limit and --json', async () => {
  const run = await runReviewerCli(history, ['log', 'origin', '--ref', 'main', '--limit', '1', '--json']);
  const json = JSON.parse(run.stdout);
  assert.is(json.repository, history.repository.id);
  assert.equal(json.pushes.map((p: { seq: number }) => p.seq), [2]);
  // -n, as git log spells it.
  assert.is((await runReviewerCli(history, ['log', 'origin', '--ref', 'main', '-n', '1', '--json'])).stdout, run.stdout);
});

LogCommand('says so when nothing matches', async () => {
  const run = await runReviewerCli(history, ['log', 'origin', '--ref', 'nope']);
  assert.is(run.code, 0);
  assert.is(run.stdout, '');
  assert.is(run.stderr, 'No push updated nope.\n');
});

LogCommand('refuses a bad --limit and an unknown remote as usage errors', async () => {
  const bad = await runReviewerCli(history, ['log', 'origin', '--limit', '0']);
  assert.equal([bad.code, bad.stderr], [129, 'fatal: --limit must be a whole number of 1 or more, got 0\n']);
  const unknown = await runReviewerCli(history, ['log', 'upstream']);
  assert.equal([unknown.code, unknown.stderr], [129, "fatal: 'upstream' is neither a walrus:// URL nor a git remote of this repository\n"]);
  assert.is(unknown.closed, unknown.opened, 'the network is closed after a failure too');
});

LogCommand('asks Walrus for the live packs\' lifetimes beside the log\'s own reads, and warns before the log', async () => {
  const asked: string[] = [];
  const run = await runReviewerCli(history, ['log', 'origin', '--expiry-warning', '3'], {
    ports: ({ ledger, blobStore }) => ({
      ledger: {
        ...ledger,
        getRepository: (id) => { asked.push('getRepository'); return ledger.getRepository(id); },
        listPushes: (id) => { asked.push('listPushes'); return ledger.listPushes(id); },
      },
      blobStore: {
        ...blobStore,
        lifetimes: async (blobIds) => {
          asked.push('lifetimes');
          return { epoch: 10, endEpochs: new Map(blobIds.map((blobId) => [blobId, 12])) };
        },
      },
    }),
  });
  assert.is(run.code, 0);
  // On a real network each read is a round trip: the push log is not read after the Walrus answer, and the repository
  // is read once for both.
  assert.equal(asked, ['getRepository', 'listPushes', 'lifetimes']);
  assert.match(run.stderr, /^warning: live pack #0 expires at Walrus epoch 12 \(now 10: 2 epoch\(s\) left/);
  assert.equal([...run.stdout.matchAll(/^push (\d+) {2}/gm)].map((m) => Number(m[1])), [3, 2, 1]);
});

LogCommand.run();
