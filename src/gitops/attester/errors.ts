import { WalrusGitError } from '../../core/errors.ts';

/**
 * The app's own build or tests failed where the attester built it: its commit is not attested (there is no digest to
 * vouch for). What to do: nothing here; the app's authors see the same failure in their own build.
 */
export class AttesterBuildFailedError extends WalrusGitError {
  constructor(commit: string, detail: string) {
    super('ATTESTER_BUILD_FAILED', `the build of ${commit.slice(0, 12)} failed here, so it is not attested: ${detail}`, { commit });
  }
}

/**
 * The attester's build Job could not run or ended for a reason that is not the app's (the namespace's quota or limits
 * refused its pod, a tool step failed, the pod was lost). What to do: read the message; the attester builds the commit
 * again on its next pass, in a new Job.
 */
export class AttesterBuildInterruptedError extends WalrusGitError {
  constructor(commit: string, detail: string) {
    super('ATTESTER_BUILD_INTERRUPTED', `the build of ${commit.slice(0, 12)} did not finish: ${detail}; it is built again next pass`, { commit });
  }
}
