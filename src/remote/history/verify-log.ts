/**
 * Replays the push log (docs/architecture.md, The push log) from the `Pushed` events and compares it with the
 * repository's on-chain `log_head`, the one value the chain itself vouches for. Two checks run side by side:
 * - the full replay from genesis, which must end at the on-chain `log_head` (any altered, dropped, added or
 *   reordered event breaks it);
 * - each event against its predecessor's claimed head, which pinpoints the first push whose record does not hash
 *   to what the chain recorded.
 */
import { GENESIS_LOG_HEAD, nextLogHead } from '../../contract/push-log.ts';
import type { PushEvent, RepositoryInfo } from '../../ports/ledger.ts';
import type { Finding } from './finding.ts';
import { bytesToHex, hexToBytes, pushRecordOf } from './push-record.ts';

export interface LogReplay {
  /** The head the replay of every event from genesis arrives at, hex. */
  recomputedLogHead: string;
  findings: Finding[];
}

export function verifyPushLog(repository: Pick<RepositoryInfo, 'id' | 'seq' | 'logHead'>, events: readonly PushEvent[]): LogReplay {
  const findings: Finding[] = [];
  let replayed = GENESIS_LOG_HEAD;
  let previousClaim = GENESIS_LOG_HEAD;
  // The contract numbers pushes 1, 2, …: `seq` is the count of records so far.
  let previousSeq = 0;
  for (const event of events) {
    if (event.repository !== repository.id) {
      findings.push({
        code: 'LOG_FOREIGN_EVENT',
        seq: event.seq,
        message: `push ${event.seq}: event belongs to repository ${event.repository}, not ${repository.id}`,
      });
      continue;
    }
    const expectedSeq = previousSeq + 1;
    if (event.seq !== expectedSeq) {
      findings.push({
        code: 'LOG_SEQ_GAP',
        seq: expectedSeq,
        message: event.seq > expectedSeq
          ? `push ${expectedSeq}${event.seq - expectedSeq > 1 ? `..${event.seq - 1}` : ''}: no event (${previousSeq === 0 ? `the first event has seq ${event.seq}` : `events jump from seq ${previousSeq} to ${event.seq}`})`
          : `push ${event.seq}: event out of order or repeated (after seq ${previousSeq})`,
      });
    }
    previousSeq = event.seq;
    const record = pushRecordOf(event);
    replayed = nextLogHead(replayed, record);
    const fromClaim = bytesToHex(nextLogHead(previousClaim, record));
    if (fromClaim !== event.logHead) {
      findings.push({
        code: 'LOG_RECORD_MISMATCH',
        seq: event.seq,
        message: `push ${event.seq}: the event's record and the previous log head hash to ${fromClaim}, but the event's log_head is ${event.logHead}`,
      });
    }
    previousClaim = hexToBytes(event.logHead);
  }
  const recomputedLogHead = bytesToHex(replayed);
  if (previousSeq !== repository.seq) {
    findings.push({
      code: 'LOG_SEQ_MISMATCH',
      seq: null,
      message: `repository: the chain's seq is ${repository.seq}, but the events end at seq ${previousSeq}`,
    });
  }
  if (recomputedLogHead !== repository.logHead) {
    findings.push({
      code: 'LOG_HEAD_MISMATCH',
      seq: null,
      message: `repository: replaying ${events.length} push events gives log head ${recomputedLogHead}, but the chain's log_head is ${repository.logHead}`,
    });
  }
  return { recomputedLogHead, findings };
}
