/**
 * `git walrus deployments --verify`: checks each `Deployed` record against what the record itself cannot prove.
 * The artifact is fetched from Walrus (an untrusted aggregator) and its tar stream must hash to the recorded sha256
 * (the artifact's identity, as the build reports it and run pods check it); the commit
 * must have been pushed to the lease's ref before the record (from the push log on chain), so a provider cannot
 * claim to run a commit the repository never had there. (The contract already refused any commit that was not the
 * ref's value at recording time; this check needs no trust in the contract's deployment.) The artifact of a private
 * repository is encrypted: its members decrypt and check it; for anyone else the line says it was not checked.
 */
import { NotReaderError } from '../../core/read-access.ts';
import type { Ledger } from '../../ports/ledger.ts';
import type { DeployedRecord } from '../../ports/market.ts';
import type { DeploymentLine } from './format.ts';

export interface VerifyDeploymentsDeps {
  ledger: Pick<Ledger, 'listPushes'>;
  /** The sha256 of an artifact's tar stream, fetched from Walrus (artifacts.ts: one blob or an index of chunks). */
  artifactSha256(blobId: string): Promise<string>;
}

export async function verifyDeployments(deps: VerifyDeploymentsDeps, repositoryId: string, records: DeployedRecord[]): Promise<DeploymentLine[]> {
  const pushes = await deps.ledger.listPushes(repositoryId);
  const lines: DeploymentLine[] = [];
  for (const record of records) {
    const problems: string[] = [];
    const pushed = pushes.some((push) => push.timestampMs <= record.atMs && push.updates.some((u) => u.name === record.ref && u.new === record.commit));
    if (!pushed) problems.push(`commit ${record.commit} was never pushed to ${record.ref} before the record`);
    let unchecked: string | undefined;
    try {
      const sha256 = await deps.artifactSha256(record.artifact);
      if (sha256 !== record.sha256) problems.push(`artifact ${record.artifact} has sha256 ${sha256}, not the recorded ${record.sha256}`);
    } catch (error) {
      if (error instanceof NotReaderError) {
        const { address } = error.data as { address: string };
        unchecked = `the artifact is encrypted (a private repository's build) and ${address} may not read it: only the repository's readers and the lease's provider can check its sha256`;
      } else if ((error as { code?: unknown }).code === 'BLOB_NOT_FOUND') {
        // Not evidence against the record: providers keep the artifacts of recent releases only.
        unchecked = `artifact ${record.artifact} is no longer on Walrus (its storage ended, or the provider reclaimed it as an old release): the record stands on chain, but its sha256 can no longer be checked`;
      } else {
        problems.push(`artifact ${record.artifact} could not be read from Walrus: ${(error as Error).message}`);
      }
    }
    lines.push({ record, problems, ...(unchecked ? { unchecked } : {}) });
  }
  return lines;
}
