import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { chainLinkBadges, reportBadges } from '../../../src/remote/history/push-badges.ts';
import type { VerifyReport } from '../../../src/remote/history/verify-repository.ts';
import { buildHistory, chunk, oid } from './fixture.ts';

const history = () =>
  buildHistory([
    { updates: [{ name: 'refs/heads/main', old: null, new: oid(1), force: false }], chunks: [chunk('pack one')] },
    { updates: [{ name: 'refs/heads/main', old: oid(1), new: oid(2), force: false }], chunks: [chunk('pack two')] },
    { updates: [{ name: 'refs/tags/v1', old: null, new: oid(2), force: false }] },
  ]);

const report = (overrides: Partial<VerifyReport> = {}): VerifyReport => ({
  repository: '0x1', seq: 3, logHead: '', recomputedLogHead: '', pushes: 3, packsChecked: 2, bytesChecked: 10, commitsChecked: 2, findings: [], ...overrides,
});

const Badges = suite('push badges');

Badges('before a deep run: every push whose record links into the chain is "unchecked", with the one check done', () => {
  const { repository, events } = history();
  const { badges, repository: whole } = chainLinkBadges(repository, events);
  assert.equal([...badges.values()].map((b) => [b.seq, b.state, b.checks.length]), [[1, 'unchecked', 1], [2, 'unchecked', 1], [3, 'unchecked', 1]]);
  assert.equal(whole, []);
});

Badges('a record that does not hash to its log head fails that push at once', () => {
  const { repository, events } = history();
  events[1] = { ...events[1]!, timestampMs: events[1]!.timestampMs + 1 };
  const { badges } = chainLinkBadges(repository, events);
  assert.is(badges.get(2)!.state, 'failed');
  assert.is(badges.get(2)!.findings[0]!.code, 'LOG_RECORD_MISMATCH');
});

Badges('after a deep run: verified with the pack and history checks listed; a finding fails its push only', () => {
  const { events } = history();
  const clean = reportBadges(events, report());
  assert.equal([...clean.badges.values()].map((b) => b.state), ['verified', 'verified', 'verified']);
  assert.equal(clean.badges.get(1)!.checks.length, 3, 'chain link, pack bytes, history');
  assert.equal(clean.badges.get(3)!.checks.length, 2, 'a push with no pack: chain link and history');
  const failed = reportBadges(events, report({ findings: [{ code: 'PACK_SHA256_MISMATCH', seq: 2, message: 'push 2, pack #1: differs' }] }));
  assert.equal([...failed.badges.values()].map((b) => b.state), ['verified', 'failed', 'verified']);
});

Badges('a finding about the repository as a whole fails every push, and is reported apart', () => {
  const { events } = history();
  const whole = { code: 'LOG_HEAD_MISMATCH' as const, seq: null, message: 'repository: the log head differs' };
  const { badges, repository } = reportBadges(events, report({ findings: [whole] }));
  assert.ok([...badges.values()].every((b) => b.state === 'failed'));
  assert.equal(repository, [whole]);
});

Badges('without --deep (a reader-less stranger), the history check is not claimed', () => {
  const { events } = history();
  const { badges } = reportBadges(events, report({ commitsChecked: undefined }));
  assert.equal(badges.get(1)!.checks.length, 2);
});

Badges.run();
