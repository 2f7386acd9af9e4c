/**
 * What the provider's gateway answers (docs/architecture.md, The provider's gateway, API): the JSON shapes of its
 * status, releases and events paths, shared by the gateway that writes them and the tenant's CLI that reads them.
 */

export interface StepOutput {
  /** The build pod's container: checkout, manifest, build, test, pack. */
  name: string;
  /** How it ended; absent when it never ran (an earlier step failed). */
  exitCode?: number;
  /** The kubelet's reason (Completed, Error, OOMKilled…). */
  reason?: string;
  /** Its last output, with the build environment's values masked; '' when it printed nothing. */
  output: string;
  /** How many bytes of its output were cut from the front. */
  cutBytes?: number;
}

export interface ReleaseOutput {
  commit: string;
  /** The build settings' hash (buildConfigHash) it ran with. */
  configHash: string;
  attempt: number;
  /** Built, or the refusal's reason: BuildFailed, TestsFailed, ManifestInvalid, BuildTimedOut… */
  result: string;
  /** RFC 3339: when the build ended. */
  time: string;
  steps: StepOutput[];
}

export interface ContainerView {
  name: string;
  /** running, waiting or terminated. */
  state: string;
  /** Why it waits or ended: CrashLoopBackOff, OOMKilled, Error, Completed… */
  reason?: string;
  exitCode?: number;
  message?: string;
  restarts: number;
  /** How its previous run ended (the crash a restart followed). */
  lastTermination?: { reason?: string; exitCode: number; finishedAt?: string };
}

export interface PodView {
  name: string;
  phase: string;
  ready: boolean;
  restarts: number;
  /** The commit the pod runs. */
  commit?: string;
  containers: ContainerView[];
}

export interface StatusView {
  lease: string;
  app: { namespace: string; name: string };
  /** One word: Live, Building, RollingOut, Refused, Failing, Waiting, NotDeployed, Ended. */
  phase: string;
  message: string;
  /**
   * How the lease ended, as its close recorded it on chain (`reason` as the market names it: closed_by_tenant,
   * closed_by_provider, funds_ran_out, provider_unbonding; `by` the address that closed it; `at` RFC 3339, by the
   * chain's Clock; `message` in words); null while it runs.
   */
  ended: { reason: string; by: string; at: string; message: string } | null;
  replicas: { desired: number; ready: number; updated: number };
  serving: { commit: string; since: string | null } | null;
  refused: { commit: string; reason: string; message: string; time: string } | null;
  /** `step`: the build step running now (checkout, manifest, build, test, pack), null between steps. */
  building: { commit: string; attempt: number; step: string | null } | null;
  head: string | null;
  url: string | null;
  conditions: { type: string; status: string; reason: string; message: string; time: string }[];
  pods: PodView[];
}

export interface ReleaseView {
  commit: string;
  result: string;
  time: string;
  message: string;
  output: ReleaseOutput | null;
}

export interface EventView {
  time: string;
  type: string;
  reason: string;
  object: string;
  message: string;
  count: number;
}

/**
 * One line of the logs path's NDJSON answer: a line a replica's container wrote, or (while following) a notice from
 * the gateway itself: a new replica joining the follow, or the lease's end, which ends it.
 */
export type LogRecord = { pod: string; container: string; line: string } | { notice: string };
