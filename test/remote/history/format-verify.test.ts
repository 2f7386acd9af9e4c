import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { ansiStyle, plainStyle } from '../../../src/remote/history/format-log.ts';
import { formatVerifyJson, formatVerifyText } from '../../../src/remote/history/format-verify.ts';
import type { VerifyReport } from '../../../src/remote/history/verify-repository.ts';

const head = 'ab'.repeat(32);
const base = (): VerifyReport => ({
  repository: `0x${'12'.repeat(32)}`,
  seq: 3,
  logHead: head,
  recomputedLogHead: head,
  pushes: 3,
  packsChecked: 2,
  bytesChecked: 1234,
  findings: [],
});

const FormatVerifyText = suite('formatVerifyText');

FormatVerifyText('one line per check that held, and a last line to grep', () => {
  assert.is(formatVerifyText(base(), plainStyle), [
    `repository 0x${'12'.repeat(32)}: seq 3, log_head ${head}`,
    'not certified: the state is as one RPC node reports it',
    `ok      push log: 3 push events replay to the on-chain log_head ${head}`,
    'ok      chain state: refs and pack table agree with the push events',
    'ok      packs: 2 live packs (1234 bytes): blob ids, sizes and sha256 match',
    'verified: every check holds',
    '',
  ].join('\n'));
});

FormatVerifyText('failed checks list their findings; deep adds history and rewrites', () => {
  const report: VerifyReport = {
    ...base(),
    commitsChecked: 2,
    rewrites: [{ seq: 2, kind: 'deleted', ref: 'refs/heads/x', old: 'c'.repeat(40), new: null, sender: '0xabc', timestampMs: Date.UTC(2026, 0, 2, 3, 4, 5), txDigest: 'D1' }],
    findings: [
      { code: 'BLOB_UNAVAILABLE', seq: 2, blobId: 'B', message: 'push 2, pack #1, blob B: gone' },
      { code: 'COMMIT_MISSING', seq: 2, message: 'push 2: missing' },
    ],
  };
  const text = formatVerifyText(report, plainStyle);
  assert.ok(text.includes('FAILED  packs: 1 problem\n        push 2, pack #1, blob B: gone\n'));
  assert.ok(text.includes('FAILED  history: 1 problem\n        push 2: missing\n'));
  assert.ok(text.includes(`history rewrites: 1\n        push 2  2026-01-02 03:04:05 UTC  deleted  refs/heads/x  ${'c'.repeat(12)} → (none)  by 0xabc  tx D1\n`));
  assert.ok(text.endsWith('FAILED: 2 problems found\n'));
  assert.ok(formatVerifyText(report, ansiStyle).includes('\x1b[31mFAILED\x1b[0m  packs'));
});

FormatVerifyText.run();

const FormatVerifyJson = suite('formatVerifyJson');

FormatVerifyJson('ok first, then the whole report', () => {
  const json = JSON.parse(formatVerifyJson(base()));
  assert.equal(Object.keys(json)[0], 'ok');
  assert.is(json.ok, true);
  assert.is(json.logHead, head);
  const failed = JSON.parse(formatVerifyJson({ ...base(), findings: [{ code: 'LOG_HEAD_MISMATCH', seq: null, message: 'm' }] }));
  assert.is(failed.ok, false);
  assert.equal(failed.findings, [{ code: 'LOG_HEAD_MISMATCH', seq: null, message: 'm' }]);
});

FormatVerifyJson.run();
