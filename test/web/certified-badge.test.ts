import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { certifiedBadge, certifiedBadgeHtml } from '../../src/web/certified-badge.ts';
import type { VerifyJob } from '../../src/web/verify-jobs.ts';
import type { VerifyReport } from '../../src/remote/history/verify-repository.ts';

const report = (certified?: VerifyReport['certified']): VerifyReport => ({
  repository: '0x1', seq: 3, logHead: 'a', recomputedLogHead: 'a', pushes: 3, packsChecked: 3, bytesChecked: 10, findings: [], ...(certified ? { certified } : {}),
});
const job = (state: VerifyJob['state'], extra: Partial<VerifyJob> = {}): VerifyJob => ({ state, deep: false, startedMs: 0, progress: '', seq: 3, logHead: 'a', ...extra });
const proved = {
  version: '19', checkpoint: '17', epoch: '1', timestampMs: Date.UTC(2026, 10, 29, 7), rpc: 'http://node-a',
  answers: [{ rpc: 'http://node-a', version: '19', checkpoint: '17' }, { rpc: 'http://node-b', version: '12', checkpoint: '9' }, { rpc: 'http://liar', problem: 'checkpoint 15 is signed by 4000 of 10000 stake' }],
};

test('the badge per verify state: no anchor, not run, running, proved (with the RPCs that lag or lie), refused', () => {
  assert.equal([certifiedBadge(job('done', { report: report(proved) }), false).state, certifiedBadge(undefined, false).label], ['uncertified', 'uncertified']);
  assert.equal(certifiedBadge(undefined, true), { state: 'pending', label: 'certification', tone: 'unchecked', text: 'not checked yet', notes: [] });
  assert.is(certifiedBadge(job('running'), true).state, 'pending');
  const badge = certifiedBadge(job('done', { report: report(proved) }), true);
  assert.equal([badge.state, badge.label, badge.tone], ['certified', 'certified', 'verified']);
  assert.is(badge.text, 'as of checkpoint 17 (epoch 1, 2026-11-29T07:00:00.000Z; version 19, from http://node-a)');
  assert.equal(badge.notes, ['RPC http://node-b lags: it proves version 12, not 19', 'RPC http://liar served a state that does not verify: checkpoint 15 is signed by 4000 of 10000 stake']);
  const refused = certifiedBadge(job('error', { error: 'no RPC served a certified state of repository 0x1: http://liar: short of the quorum' }), true);
  assert.equal([refused.state, refused.tone, refused.text], ['failed', 'failed', 'no RPC served a certified state of repository 0x1: http://liar: short of the quorum']);
});

test('rendered: what an RPC said is text, never markup', () => {
  const badge = certifiedBadge(job('error', { error: 'http://x: <img src=x>' }), true);
  const markup = certifiedBadgeHtml(badge).text;
  assert.match(markup, /^<div id="certified-badge" data-state="failed"><span class="cert-pill failed">not certified<\/span>/);
  assert.match(markup, /&lt;img src=x&gt;/);
  assert.not.match(markup, /<img/);
});

test.run();
