/**
 * `git walrus deployments --verify`: checks each `Deployed` record against what the record itself cannot prove.
 * The artifact is fetched from Walrus (an untrusted aggregator) and must hash to the recorded sha256; the commit
 * must have been pushed to the lease's ref before the record (from the push log on chain), so a provider cannot
 * claim to run a commit the repository never had there. (The contract already refused any commit that was not the
 * ref's value at recording time; this check needs no trust in the contract's deployment.)
 */
import { createHash } from 'node:crypto';
import type { BlobStore } from '../../ports/blob-store.ts';
import type { Ledger } from '../../ports/ledger.ts';
import type { DeployedRecord } from '../../ports/market.ts';
import type { DeploymentLine } from './format.ts';

export interface VerifyDeploymentsDeps {
  ledger: Pick<Ledger, 'listPushes'>;
  blobStore: Pick<BlobStore, 'read'>;
}

export async function verifyDeployments(deps: VerifyDeploymentsDeps, repositoryId: string, records: DeployedRecord[]): Promise<DeploymentLine[]> {
  const pushes = await deps.ledger.listPushes(repositoryId);
  const lines: DeploymentLine[] = [];
  for (const record of records) {
    const problems: string[] = [];
    const pushed = pushes.some((push) => push.timestampMs <= record.atMs && push.updates.some((u) => u.name === record.ref && u.new === record.commit));
    if (!pushed) problems.push(`commit ${record.commit} was never pushed to ${record.ref} before the record`);
    try {
      const bytes = await deps.blobStore.read(record.artifact);
      const sha256 = createHash('sha256').update(bytes).digest('hex');
      if (sha256 !== record.sha256) problems.push(`artifact ${record.artifact} has sha256 ${sha256}, not the recorded ${record.sha256}`);
    } catch (error) {
      problems.push(`artifact ${record.artifact} could not be read from Walrus: ${(error as Error).message}`);
    }
    lines.push({ record, problems });
  }
  return lines;
}
