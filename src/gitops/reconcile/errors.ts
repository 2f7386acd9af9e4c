import { WalrusGitError } from '../../core/errors.ts';

/**
 * The build Job succeeded but its last container reported no usable `{blobId, sha256, size}`.
 * What to do: read the build Job's logs: its last step must be `git walrus artifact pack --termination-message`; the controller builds the commit again on its next attempt.
 */
export class BuildResultError extends WalrusGitError {
  constructor(job: string, detail: string) {
    super('BUILD_RESULT', `build ${job} finished without a usable artifact: ${detail}`, { job });
  }
}
