import { failed, SETTLED, type Outcome, type StepResult } from './outcome.ts';
import { Pass, type ReconcileDeps } from './pass.ts';
import { conclude, writeStatus } from './status.ts';
import type { Condition } from '../../ports/walrus-app.ts';
import { build } from './steps/build.ts';
import { checkPolicy } from './steps/check-policy.ts';
import { cleanUpJobs } from './steps/clean-up-jobs.ts';
import { holdFailedRevision } from './steps/hold-failed-revision.ts';
import { followOffer } from './steps/follow-offer.ts';
import { checkManifest } from './steps/manifest.ts';
import { checkNetwork } from './steps/network.ts';
import { planBuild } from './steps/plan-build.ts';
import { checkReadAccess } from './steps/check-read-access.ts';
import { reclaimArtifacts } from './steps/reclaim-artifacts.ts';
import { checkReproduced } from './steps/check-reproduced.ts';
import { readHead } from './steps/read-head.ts';
import { markReady } from './steps/ready.ts';
import { rollout } from './steps/roll-out.ts';
import { skipIfSuspended } from './steps/suspend.ts';

/**
 * One step of a pass: it reads what it needs (the app, the facts earlier steps found, the caches, the chain), may
 * write to the cluster and set conditions, and either hands on to the next step or ends the pass with an outcome
 * (outcome.ts). Every step is safe to repeat: the next pass runs it again on whatever state it finds.
 */
export interface Step {
  name: string;
  run(pass: Pass): StepResult | Promise<StepResult>;
}

/**
 * A pass over one WalrusApp, top to bottom. A new step goes where what it needs is known: after `read-head` for the
 * commit, after `build` for the artifact, before `ready` for anything the app needs in order to serve.
 */
export const STEPS: readonly Step[] = [
  { name: 'suspend', run: skipIfSuspended }, // spec.suspend: stop here
  { name: 'network', run: checkNetwork }, // the app names another network: Stalling
  { name: 'exposure', run: followOffer }, // the offer changed how apps are exposed: the app's Ingress, Service, allowance follow
  { name: 'read-head', run: readHead }, // the ref's commit on chain and the push that set it
  { name: 'policy', run: checkPolicy }, // pushed by an address the spec does not allow: Stalling
  { name: 'read-access', run: checkReadAccess }, // a private repository this controller may not read: Stalling
  { name: 'plan-build', run: planBuild }, // which build (commit, settings, attempt) the head needs
  { name: 'clean-up-jobs', run: cleanUpJobs }, // build Jobs no longer wanted go
  { name: 'hold-failed-revision', run: holdFailedRevision }, // a head that failed keeps the last good release: Stalling
  { name: 'build', run: build }, // the artifact, from the status or a build Job: Waiting while it runs
  { name: 'manifest', run: checkManifest }, // the app's manifest beyond the provider's offer: Stalling
  { name: 'reproduced', run: checkReproduced }, // the lease requires other providers' attestations: Waiting until they agree, Stalling on a dispute
  { name: 'rollout', run: rollout }, // the Deployment and Service applied: Waiting while it rolls, Stalling after a rollback
  { name: 'retention', run: reclaimArtifacts }, // artifacts beyond the offer's keepArtifacts reclaimed, each with an Event
  { name: 'ready', run: markReady }, // Ready=True
];

export interface ReconcileResult {
  outcome: Outcome;
  /** Writing the status failed: reported beside the outcome, which it does not replace. */
  statusError?: unknown;
  /** The conditions the written status changed (none when nothing was written or the write failed). */
  changed?: Condition[];
}

/**
 * One level-triggered pass over one WalrusApp (docs/architecture.md, The GitOps controller): the steps run in order
 * until one ends the pass; the outcome sets its conditions (status.ts); the status is written once, at the end,
 * whatever the outcome, and each condition that changed becomes a Kubernetes Event.
 */
export async function reconcile(key: string, deps: ReconcileDeps, steps: readonly Step[] = STEPS): Promise<ReconcileResult> {
  const app = deps.app(key);
  if (!app || app.metadata.deletionTimestamp) {
    deps.follow(key, null);
    return { outcome: SETTLED };
  }
  const pass = new Pass(app, deps);
  const outcome = await runSteps(pass, steps);
  conclude(pass, outcome);
  const written = await writeStatus(pass);
  return 'error' in written ? { outcome, statusError: written.error } : { outcome, changed: written.changed };
}

/** The steps in order, until one returns an outcome; an error a step throws ends the pass as its failure. */
export async function runSteps(pass: Pass, steps: readonly Step[]): Promise<Outcome> {
  for (const step of steps) {
    let result: StepResult;
    try {
      result = await step.run(pass);
    } catch (error) {
      return { ...failed(error), step: step.name };
    }
    if (result.kind !== 'Next') return result;
  }
  return SETTLED;
}
