import type { CertifiedReads } from '../ports/certified.ts';
import type { Ledger } from '../ports/ledger.ts';
import { UncertifiedHeadsError } from './errors.ts';
import { verifyPushLog } from './history/verify-log.ts';
import { verifyRefs } from './history/verify-state.ts';
import type { RemoteSnapshot } from './remote-state.ts';

/**
 * A listing's heads, proved: the highest Repository version the validators certified (over every configured RPC)
 * fixes `seq` and `log_head`; the push events must replay to exactly that head, and the refs the node listed must be
 * the refs those events leave. Anything else is refused (walrus.requireCertified): a node may serve a stale or
 * forged listing, never one that passes this.
 */
export async function certifyHeads(certified: CertifiedReads, ledger: Ledger, id: string, listed: RemoteSnapshot): Promise<void> {
  const [{ best }, events] = await Promise.all([certified.repository(id).catch((error: Error) => { throw new UncertifiedHeadsError(id, [error.message]); }), ledger.listPushes(id)]);
  const problems = [
    ...(listed.info.seq !== best.repository.seq ? [`the node lists the refs at push ${listed.info.seq}, the certified state is at push ${best.repository.seq}`] : []),
    ...verifyPushLog(best.repository, events).findings.map((finding) => finding.message),
    ...verifyRefs(events, listed.refs).map((finding) => finding.message),
  ];
  if (problems.length > 0) throw new UncertifiedHeadsError(id, problems);
}
