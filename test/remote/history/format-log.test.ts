import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { abbreviate, ansiStyle, formatAccessText, formatLogJson, formatLogText, formatPushText, formatTime, plainStyle, pushToJson, selectPushes, styleFor } from '../../../src/remote/history/format-log.ts';
import { BOB, buildHistory, chunk, oid } from './fixture.ts';

const history = () =>
  buildHistory([
    { timestampMs: Date.UTC(2026, 10, 21, 9, 30, 5), updates: [{ name: 'refs/heads/main', old: null, new: oid(1), force: false }], chunks: [chunk('a')] },
    { updates: [{ name: 'refs/tags/v1', old: null, new: oid(1), force: false }] },
    { sender: BOB, updates: [{ name: 'refs/heads/main', old: oid(1), new: oid(2), force: true }, { name: 'refs/heads/old', old: null, new: oid(1), force: false }], chunks: [chunk('b'), chunk('c')] },
    { updates: [{ name: 'refs/heads/old', old: oid(1), new: null, force: false }] },
  ]);

// ---
const SelectPushes = suite('selectPushes');
SelectPushes('newest first, limited, filtered by full or short ref name', () => {
  const { events } = history();
  assert.equal(selectPushes(events).map((e) => e.seq), [4, 3, 2, 1]);
  assert.equal(selectPushes(events, { limit: 2 }).map((e) => e.seq), [4, 3]);
  assert.equal(selectPushes(events, { ref: 'main' }).map((e) => e.seq), [3, 1]);
  assert.equal(selectPushes(events, { ref: 'refs/heads/main', limit: 1 }).map((e) => e.seq), [3]);
  assert.equal(selectPushes(events, { ref: 'v1' }).map((e) => e.seq), [2]);
  assert.equal(selectPushes(events, { ref: 'nothing' }), []);
  assert.equal(events.map((e) => e.seq), [1, 2, 3, 4], 'the input is not reordered');
});
SelectPushes.run();

// ---
const FormatTime = suite('formatTime');
FormatTime('UTC, to the second', () => {
  assert.is(formatTime(Date.UTC(2026, 10, 21, 9, 30, 5, 999)), '2026-11-21 09:30:05 UTC');
});
FormatTime.run();

// ---
const Abbreviate = suite('abbreviate');
Abbreviate('keeps twelve hex digits', () => assert.is(abbreviate('0123456789abcdef0123'), '0123456789ab'));
Abbreviate.run();

// ---
const FormatPushText = suite('formatPushText');
FormatPushText('shows seq, time, pusher, tx, each update with forced and deleted marked, pack and blobs', () => {
  const { events } = history();
  const [first, , third, fourth] = events;
  assert.is(formatPushText(first!, plainStyle), [
    'push 1  2026-11-21 09:30:05 UTC',
    `Pusher: ${first!.sender}`,
    `Tx:     ${first!.txDigest}`,
    `    refs/heads/main  (new) → ${oid(1).slice(0, 12)}`,
    `Pack:   #0, 1 bytes, sha256 ${first!.pack!.sha256}`,
    `        blob ${first!.pack!.chunks[0]}`,
    '',
  ].join('\n'));
  const text = formatPushText(third!, plainStyle);
  assert.ok(text.includes(`Pusher: ${BOB}\n`));
  assert.ok(text.includes(`    refs/heads/main  ${oid(1).slice(0, 12)} → ${oid(2).slice(0, 12)}  [forced]\n`));
  assert.ok(text.includes(`    refs/heads/old   (new) → ${oid(1).slice(0, 12)}\n`));
  assert.ok(text.includes(`Pack:   #1, 2 bytes, sha256 ${third!.pack!.sha256}\n        blob ${third!.pack!.chunks[0]}\n        blob ${third!.pack!.chunks[1]}\n`));
  assert.ok(formatPushText(fourth!, plainStyle).includes(`    refs/heads/old  ${oid(1).slice(0, 12)} → (none)  [deleted]\nPack:   none\n`));
});
FormatPushText('colours the header and the rewrite markers only with the ANSI style', () => {
  const third = history().events[2]!;
  const text = formatPushText(third, ansiStyle);
  assert.ok(text.startsWith('\x1b[33mpush 3\x1b[0m  '));
  assert.ok(text.includes('\x1b[31m[forced]\x1b[0m'));
  assert.not.ok(formatPushText(third, plainStyle).includes('\x1b['));
});
FormatPushText.run();

// ---
const FormatLogText = suite('formatLogText');
FormatLogText('separates pushes with a blank line', () => {
  const { events } = history();
  const text = formatLogText(selectPushes(events, { limit: 2 }), plainStyle);
  assert.ok(text.startsWith('push 4  '));
  assert.ok(text.includes('\n\npush 3  '));
});
FormatLogText.run();

// ---
const StyleFor = suite('styleFor');
StyleFor('colour only on a terminal without NO_COLOR', () => {
  assert.is(styleFor(true, {}), ansiStyle);
  assert.is(styleFor(true, { NO_COLOR: '1' }), plainStyle);
  assert.is(styleFor(true, { NO_COLOR: '' }), ansiStyle);
  assert.is(styleFor(false, {}), plainStyle);
});
StyleFor.run();

// ---
const PushToJson = suite('pushToJson');
PushToJson('stable field names, full ids, ISO time', () => {
  const third = history().events[2]!;
  assert.equal(pushToJson(third), {
    seq: 3,
    kind: 'push',
    timestamp: new Date(third.timestampMs).toISOString(),
    timestampMs: third.timestampMs,
    sender: BOB,
    txDigest: third.txDigest,
    logHead: third.logHead,
    updates: [
      { ref: 'refs/heads/main', old: oid(1), new: oid(2), forced: true, deleted: false },
      { ref: 'refs/heads/old', old: null, new: oid(1), forced: false, deleted: false },
    ],
    pack: { index: 1, size: 2, sha256: third.pack!.sha256, blobIds: third.pack!.chunks, encrypted: false },
    liveFrom: 0,
  });
  assert.equal(Object.keys(pushToJson(third)), ['seq', 'kind', 'timestamp', 'timestampMs', 'sender', 'txDigest', 'logHead', 'updates', 'pack', 'liveFrom']);
});
PushToJson.run();

// ---
const FormatLogJson = suite('formatLogJson');
FormatLogJson('one document with the repository id and the pushes as given', () => {
  const { repository, events } = history();
  const parsed = JSON.parse(formatLogJson(repository.id, selectPushes(events)));
  assert.is(parsed.repository, repository.id);
  assert.equal(parsed.pushes.map((p: { seq: number }) => p.seq), [4, 3, 2, 1]);
  assert.equal(parsed.pushes[0].updates, [{ ref: 'refs/heads/old', old: oid(1), new: null, forced: false, deleted: true }]);
  assert.is(parsed.pushes[0].pack, null);
});
FormatLogJson.run();

// ---
const Access = suite('formatAccessText and the access fields of formatLogJson');
Access('a private repository heads its log with who may read; a public one with nothing', () => {
  const { repository, events } = history();
  const access = { owner: repository.owner, writers: [BOB], readers: [`0x${'c'.repeat(64)}`], private: true };
  assert.is(formatAccessText(access, plainStyle), [
    'private repository: packs are encrypted; only these addresses can read them',
    `Owner:  ${repository.owner}`,
    `Writer: ${BOB}`,
    `Reader: ${access.readers[0]}`,
    '',
    '',
  ].join('\n'));
  assert.is(formatAccessText({ ...access, private: false }, plainStyle), '');
  const parsed = JSON.parse(formatLogJson(repository.id, selectPushes(events), access));
  assert.equal(Object.keys(parsed), ['repository', 'private', 'readers', 'pushes']);
  assert.equal([parsed.private, parsed.readers], [true, { owner: repository.owner, writers: [BOB], readers: access.readers }]);
  assert.equal(JSON.parse(formatLogJson(repository.id, [], { ...access, private: false })).readers, null);
});
Access('an encrypted pack is marked in text and JSON', () => {
  const { events } = history();
  const sealed = { ...events[0]!, pack: { ...events[0]!.pack!, sealedKey: 'ab' } };
  assert.match(formatPushText(sealed, plainStyle), / bytes, sha256 [0-9a-f]{64} \(encrypted\)\n/);
  assert.is(pushToJson(sealed).pack!.encrypted, true);
});
Access.run();
