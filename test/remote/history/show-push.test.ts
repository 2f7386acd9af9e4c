import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { silentLog } from '../../../src/core/log.ts';
import { PackObjectReader } from '../../../src/git/pack-reader.ts';
import { PackCheckFailedError, showPush, type ShowDeps } from '../../../src/remote/history/show-push.ts';
import { formatGitDate, formatShowJson, formatShowText } from '../../../src/remote/history/format-show.ts';
import { plainStyle } from '../../../src/remote/history/format-log.ts';
import { buildHistory, chunk, fakeBlobId, historyLedger, mapBlobStore, type History } from './fixture.ts';
import { ScratchRepo } from './scratch-repo.ts';

const repo = new ScratchRepo();
const lines = Array.from({ length: 500 }, (_, i) => `line ${i}: text long enough to be stored as a delta`);
const c1 = repo.commit('first', { 'a.txt': lines.join('\n') });
lines[7] = 'changed';
const c2 = repo.commit('second\n\nbody text', { 'a.txt': lines.join('\n') });
const c3 = repo.commit('third', { 'b.txt': 'new file\n' });
const thin = repo.pack([c3, `^${c1}`], { thin: true });

const history = (): History =>
  buildHistory([
    { updates: [{ name: 'refs/heads/main', old: null, new: c1, force: false }], chunks: [repo.pack([c1])] },
    { updates: [{ name: 'refs/heads/main', old: c1, new: c3, force: false }], chunks: [thin.subarray(0, 100), thin.subarray(100)] },
    { updates: [{ name: 'refs/tags/v1', old: null, new: c3, force: false }] },
  ]);

let opened = 0;
function deps(h: History): ShowDeps {
  return {
    ledger: historyLedger(h),
    blobStore: mapBlobStore(h.blobs),
    blobIdOf: fakeBlobId,
    openPackObjects: async () => {
      opened += 1;
      return PackObjectReader.open();
    },
    log: silentLog,
  };
}

const ShowPush = suite('showPush');

ShowPush('lists the commits a push introduced, reading a thin, chunked pack over the earlier packs', async () => {
  const h = history();
  opened = 0;
  const details = await showPush(deps(h), h.repository.id, 2);
  assert.is(details.event.seq, 2);
  assert.equal(details.commits.map((c) => [c.oid, c.subject, c.parents]), [[c3, 'third', [c2]], [c2, 'second', [c1]]]);
  assert.equal(details.commits[0]!.author, { name: 'Ada Lovelace', email: 'ada@example.org', timestamp: 1_700_000_180, timezoneOffset: -60 });
  assert.is(opened, 2, 'read alone first, then again over the earlier pack');
});

ShowPush('a pack that is not thin is read alone', async () => {
  const h = history();
  opened = 0;
  assert.equal((await showPush(deps(h), h.repository.id, 1)).commits.map((c) => c.oid), [c1]);
  assert.is(opened, 1);
});

ShowPush('a push without a pack has no commits', async () => {
  const h = history();
  assert.equal((await showPush(deps(h), h.repository.id, 3)).commits, []);
});

ShowPush('an unknown seq is a usage error that says which pushes exist', async () => {
  const h = history();
  try {
    await showPush(deps(h), h.repository.id, 9);
    assert.unreachable();
  } catch (error) {
    assert.is((error as Error).message, 'no push 9: pushes are numbered 1 to 3');
  }
});

ShowPush('a pack whose bytes differ from the chain is refused with the findings', async () => {
  const h = history();
  h.blobs.set(h.packs[1]!.chunks[1]!, chunk('garbage'));
  try {
    await showPush(deps(h), h.repository.id, 2);
    assert.unreachable();
  } catch (error) {
    assert.instance(error, PackCheckFailedError);
    assert.match((error as Error).message, new RegExp(`^push 2, pack #1, blob ${h.packs[1]!.chunks[1]} \\(chunk 2 of 2\\): the 7 bytes Walrus serves have blob id `));
  }
});

ShowPush('the commits of a SHA-256 repository are refused with a reason, its pushes without a pack still shown', async () => {
  const h = history();
  h.repository.hashLength = 32;
  assert.equal((await showPush(deps(h), h.repository.id, 3)).commits, []);
  try {
    await showPush(deps(h), h.repository.id, 2);
    assert.unreachable();
  } catch (error) {
    assert.is((error as { code: string }).code, 'USAGE');
    assert.match((error as Error).message, /SHA-1 repositories only/);
  }
});

ShowPush.run();

// ---
const FormatShowText = suite('formatShowText');
FormatShowText('the push, then each commit with author, date and subject', async () => {
  const h = history();
  const text = formatShowText(await showPush(deps(h), h.repository.id, 2), plainStyle);
  assert.ok(text.startsWith('push 2  '));
  assert.ok(text.includes(`\nCommits: 2\n  ${c3}\n      Ada Lovelace <ada@example.org>  2023-11-14 23:16:20 +0100\n      third\n  ${c2}\n`));
  assert.not.ok(formatShowText(await showPush(deps(h), h.repository.id, 3), plainStyle).includes('Commits'));
});
FormatShowText('an author\'s name and a subject are shown with their control characters visible, on one line each', async () => {
  const h = history();
  const details = await showPush(deps(h), h.repository.id, 1);
  const forged = { ...details, commits: details.commits.map((commit) => ({ ...commit, author: { ...commit.author, name: 'Ada\u001b]0;title\u0007', email: 'ada@example.org\r' }, subject: '\u001b[2Jfirst\u202e' })) };
  const text = formatShowText(forged, plainStyle);
  assert.ok(text.includes('\n      Ada\\x1b]0;title\\x07 <ada@example.org\\x0d>  '), text);
  assert.ok(text.includes('\n      \\x1b[2Jfirst\\u202e\n'), text);
});
FormatShowText.run();

// ---
const FormatShowJson = suite('formatShowJson');
FormatShowJson('the push JSON of log, plus the commits', async () => {
  const h = history();
  const json = JSON.parse(formatShowJson(await showPush(deps(h), h.repository.id, 1)));
  assert.is(json.seq, 1);
  assert.equal(json.commits, [{ oid: c1, parents: [], author: { name: 'Ada Lovelace', email: 'ada@example.org', date: '2023-11-14 23:14:20 +0100' }, subject: 'first' }]);
});
FormatShowJson.run();

// ---
const FormatGitDate = suite('formatGitDate');
FormatGitDate('the author’s wall time and zone', () => {
  assert.is(formatGitDate(1_700_000_000, -60), '2023-11-14 23:13:20 +0100');
  assert.is(formatGitDate(1_700_000_000, 330), '2023-11-14 16:43:20 -0530');
  assert.is(formatGitDate(1_700_000_000, 0), '2023-11-14 22:13:20 +0000');
});
// uvu runs a file's suites in order: the last one removes the scratch repository every suite above shares.
FormatGitDate.after(() => repo.remove());
FormatGitDate.run();
