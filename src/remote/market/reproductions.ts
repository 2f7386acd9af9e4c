/**
 * "Reproduced by N" for deploy records (`git walrus deployments`, `lease show`, the web front end's deployments and
 * lease pages): each record's
 * commit's tallies, under every build key anyone attested it under, judged against the record's digest. One scan of
 * the repository's commitments, then one tally read per (commit, build key).
 */
import { reproductionOfRecord, type RecordReproduction, type TallyView } from '../../core/attestation.ts';
import type { AttestationLedger } from '../../ports/attestations.ts';
import type { DeployedRecord } from '../../ports/market.ts';

export async function reproductionsOf(attestations: Pick<AttestationLedger, 'buildKeysOf' | 'tally'>, repositoryId: string, records: ReadonlyArray<Pick<DeployedRecord, 'commit' | 'provider' | 'sha256'>>): Promise<RecordReproduction[]> {
  const keysByCommit = await attestations.buildKeysOf(repositoryId);
  const talliesByCommit = new Map<string, Array<{ buildKey: string; tally: TallyView }>>();
  for (const commit of new Set(records.map((record) => record.commit))) {
    const keys = keysByCommit.get(commit) ?? [];
    const tallies = await Promise.all(keys.map(async (buildKey) => ({ buildKey, tally: await attestations.tally({ repositoryId, commit, buildKey }) })));
    talliesByCommit.set(commit, tallies.flatMap((t) => (t.tally === null ? [] : [{ buildKey: t.buildKey, tally: t.tally }])));
  }
  return records.map((record) => reproductionOfRecord(record, talliesByCommit.get(record.commit) ?? []));
}
