import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { verifyPushLog } from '../../../src/remote/history/verify-log.ts';
import { BOB, buildHistory, chunk, oid } from './fixture.ts';

const history = () =>
  buildHistory([
    { updates: [{ name: 'refs/heads/main', old: null, new: oid(1), force: false }], chunks: [chunk('pack one')] },
    { updates: [{ name: 'refs/heads/main', old: oid(1), new: oid(2), force: false }], chunks: [chunk('pack two, part a'), chunk('part b')] },
    { sender: BOB, updates: [{ name: 'refs/heads/main', old: oid(2), new: oid(3), force: true }, { name: 'refs/tags/v1', old: null, new: oid(2), force: false }], chunks: [chunk('pack three')] },
    { updates: [{ name: 'refs/tags/v1', old: oid(2), new: null, force: false }] },
  ]);

const VerifyPushLog = suite('verifyPushLog');

VerifyPushLog('replays the contract model’s events to its on-chain log head with no findings', () => {
  const { repository, events } = history();
  const replay = verifyPushLog(repository, events);
  assert.equal(replay.findings, []);
  assert.is(replay.recomputedLogHead, repository.logHead);
  assert.is(repository.seq, 4);
});

VerifyPushLog('an empty repository replays to the genesis head', () => {
  const { repository } = buildHistory([]);
  assert.equal(verifyPushLog(repository, []), { recomputedLogHead: '0'.repeat(64), findings: [] });
});

VerifyPushLog('an altered event is pinpointed by seq, and the replay misses the chain’s head', () => {
  const { repository, events } = history();
  events[1]!.updates[0]!.new = oid(9);
  const { findings } = verifyPushLog(repository, events);
  assert.equal(findings.map((f) => [f.code, f.seq]), [['LOG_RECORD_MISMATCH', 2], ['LOG_HEAD_MISMATCH', null]]);
  assert.match(findings[0]!.message, new RegExp(`^push 2: the event's record and the previous log head hash to [0-9a-f]{64}, but the event's log_head is ${events[1]!.logHead}$`));
  assert.match(findings[1]!.message, new RegExp(`^repository: replaying 4 push events gives log head [0-9a-f]{64}, but the chain's log_head is ${repository.logHead}$`));
});

VerifyPushLog('an event whose log_head was forged to match its altered record shows at the next push', () => {
  const { repository, events } = history();
  events[1]!.sender = BOB;
  events[1]!.logHead = verifyPushLog({ ...repository, seq: 2 }, events.slice(0, 2)).recomputedLogHead;
  const { findings } = verifyPushLog(repository, events);
  assert.equal(findings.map((f) => [f.code, f.seq]), [['LOG_RECORD_MISMATCH', 3], ['LOG_HEAD_MISMATCH', null]]);
});

VerifyPushLog('a dropped event shows as a seq gap and a broken chain', () => {
  const { repository, events } = history();
  events.splice(1, 1);
  const { findings } = verifyPushLog(repository, events);
  assert.equal(findings.map((f) => [f.code, f.seq]), [['LOG_SEQ_GAP', 2], ['LOG_RECORD_MISMATCH', 3], ['LOG_HEAD_MISMATCH', null]]);
  assert.is(findings[0]!.message, 'push 2: no event (events jump from seq 1 to 3)');
});

VerifyPushLog('dropped first and last events are named', () => {
  const { repository, events } = history();
  const { findings } = verifyPushLog(repository, events.slice(1, 3));
  assert.equal(findings.map((f) => [f.code, f.seq]), [['LOG_SEQ_GAP', 1], ['LOG_RECORD_MISMATCH', 2], ['LOG_SEQ_MISMATCH', null], ['LOG_HEAD_MISMATCH', null]]);
  assert.is(findings[0]!.message, 'push 1: no event (the first event has seq 2)');
  assert.is(findings[2]!.message, "repository: the chain's seq is 4, but the events end at seq 3");
});

VerifyPushLog('an event of another repository is refused', () => {
  const { repository, events } = history();
  const other = `0x${'99'.repeat(32)}`;
  events[3]!.repository = other;
  const { findings } = verifyPushLog(repository, events);
  assert.equal(findings[0], { code: 'LOG_FOREIGN_EVENT', seq: 4, message: `push 4: event belongs to repository ${other}, not ${repository.id}` });
});

VerifyPushLog('a pack entry altered in an event breaks the chain at that push', () => {
  const { repository, events } = history();
  events[2]!.pack!.sha256 = 'ff'.repeat(32);
  assert.equal(verifyPushLog(repository, events).findings.map((f) => f.seq), [3, null]);
});

VerifyPushLog.run();
