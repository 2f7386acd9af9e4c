import { WalrusGitError } from '../../core/errors.ts';

/** The build Job succeeded but its last container reported no usable `{blobId, sha256, size}`. */
export class BuildResultError extends WalrusGitError {
  constructor(job: string, detail: string) {
    super('BUILD_RESULT', `build ${job} finished without a usable artifact: ${detail}`, { job });
  }
}
