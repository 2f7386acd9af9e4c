import { builtWith } from '../../api/build-config.ts';
import { jobOutcome } from '../build-result.ts';
import { NEXT, type StepResult } from '../outcome.ts';
import type { Pass } from '../pass.ts';

/** Finished build Jobs whose outcome the status already holds, and Jobs for anything but the wanted build, go. */
export async function cleanUpJobs(pass: Pass): Promise<StepResult> {
  const { app, deps } = pass;
  const planned = pass.fact('build');
  const { commit, jobName } = planned;
  const recorded = (app.status?.artifact?.commit === commit && builtWith(app.status.artifact, planned)) || app.status?.failedRevision === commit;
  for (const job of deps.ownedJobs(app)) {
    const name = job.metadata!.name!;
    if (name !== jobName || (jobOutcome(job) !== 'running' && recorded)) {
      await deps.cluster.deleteJob(pass.ref(name));
      deps.log(`${pass.key}: deleted build job ${name}`);
    }
  }
  return NEXT;
}
