import type { CertifiedReads } from '../ports/certified.ts';
import type { PushEvent } from '../ports/ledger.ts';
import { UncertifiedHeadsError } from './errors.ts';
import { verifyPushLog } from './history/verify-log.ts';
import { verifyRefs } from './history/verify-state.ts';
import type { RemoteSnapshot } from './remote-state.ts';

/**
 * A listing's heads, proved: the highest Repository version the validators certified (over every configured RPC)
 * fixes `seq` and `log_head`; the push events must replay to exactly that head, and the refs the node listed must be
 * the refs those events leave. Anything else is refused (walrus.requireCertified): a node may serve a stale or
 * forged listing, never one that passes this. An RPC whose answer did not verify, or lags, is warned about.
 * `pushes` are the repository's push events as the node serves them (read while the proof is made).
 */
export async function certifyHeads(certified: CertifiedReads, id: string, listed: RemoteSnapshot, pushes: readonly PushEvent[] | Promise<readonly PushEvent[]>, warn: (line: string) => void): Promise<void> {
  const [{ best, answers }, events] = await Promise.all([certified.repository(id).catch((error: Error) => { throw new UncertifiedHeadsError(id, [error.message]); }), pushes]);
  const problems = [
    ...(listed.info.seq !== best.repository.seq ? [`the node lists the refs at push ${listed.info.seq}, the certified state is at push ${best.repository.seq}`] : []),
    ...verifyPushLog(best.repository, events).findings.map((finding) => finding.message),
    ...verifyRefs(events, listed.refs).map((finding) => finding.message),
  ];
  for (const answer of answers) {
    if (answer.problem !== undefined) warn(`RPC ${answer.rpc} served a state that does not verify: ${answer.problem}`);
    else if (answer.version !== best.version) warn(`RPC ${answer.rpc} lags: it proves version ${answer.version}, not ${best.version}`);
  }
  if (problems.length > 0) throw new UncertifiedHeadsError(id, problems);
}
