/** How the Cluster port's calls fail (src/ports/cluster.ts); the Kubernetes adapter throws them. */
import { WalrusGitError } from '../core/errors.ts';

/** Someone else changed the object first (HTTP 409): read again and retry. */
export class ConflictError extends WalrusGitError {
  constructor(what: string, data: Record<string, unknown> = {}) {
    super('K8S_CONFLICT', `${what} was changed by someone else first`, data, { retryable: true });
  }
}

/**
 * The API server refused the controller (401/403): the message names the verb and resource, so a provider can add
 * the missing rule to the controller's Role (deploy/rbac.yaml).
 */
export class ClusterAccessError extends WalrusGitError {
  constructor(verb: string, resource: string, namespace: string | null, detail: string) {
    const where = namespace ? ` in namespace ${namespace}` : ' cluster-wide';
    super('K8S_FORBIDDEN', `the controller may not ${verb} ${resource}${where}: ${detail} (grant it in the controller's RBAC, see deploy/rbac.yaml)`, { verb, resource, namespace }, { retryable: false });
  }
}

/**
 * Any other refusal or failure of a Kubernetes API call, with the server's message.
 * What to do: read the API server's answer in the message; the controller retries the pass with back-off.
 */
export class ClusterRequestError extends WalrusGitError {
  constructor(verb: string, resource: string, status: number | undefined, detail: string) {
    super('K8S_REQUEST', `${verb} ${resource} failed${status ? ` (HTTP ${status})` : ''}: ${detail}`, { verb, resource, status }, { retryable: status === undefined || status >= 500 || status === 429 });
  }
}
