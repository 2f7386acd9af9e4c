import { WalrusGitError, messageOf } from '../../core/errors.ts';
import { ClusterAccessError, ClusterRequestError } from '../../ports/cluster-errors.ts';

/**
 * How a reconcile pass ends, and so what the work queue does with the app's key (the kinds of Flux's
 * source-controller; docs/architecture.md, The GitOps controller):
 * - **Settled**: nothing more to do until something changes (an event, a push, the periodic resync).
 * - **Waiting**: progress is being made elsewhere (a build Job runs, a rollout proceeds, a retry is due): come back
 *   after `afterMs`. `Reconciling=True` says what is awaited.
 * - **Stalling**: only a person or a new push can move the app on (a failed build, a rolled-back rollout, a refused
 *   push, a missing permission, a spec naming another network): `Ready=False` and `Stalled=True` say why, and the key
 *   is not requeued.
 * - **Generic**: a failure that may pass (the API server or the chain unreachable, a conflict): retried with the
 *   queue's per-key exponential back-off.
 */
export type Outcome = Settled | Waiting | Stalling | Generic;

export interface Settled {
  kind: 'Settled';
}

export interface Waiting {
  kind: 'Waiting';
  /** CamelCase, for the Reconciling condition. */
  reason: string;
  message: string;
  afterMs: number;
}

export interface Stalling {
  kind: 'Stalling';
  /** CamelCase, for the Ready and Stalled conditions and their event. */
  reason: string;
  message: string;
  /** The step that threw, when an error ended the pass. */
  step?: string;
  error?: unknown;
}

export interface Generic {
  kind: 'Generic';
  /** When set, Ready=False carries it; an unnamed failure leaves the conditions as the steps set them. */
  reason?: string;
  message: string;
  step?: string;
  error: unknown;
}

/** A step's result: go on to the next step, or end the pass with an outcome. */
export type StepResult = Outcome | Next;

export interface Next {
  kind: 'Next';
}

/** How soon a pass looks again at work in progress (a build, a rollout); the informers' events usually come first. */
export const WATCH_PROGRESS_MS = 15_000;

export const NEXT: Next = { kind: 'Next' };
export const SETTLED: Settled = { kind: 'Settled' };

export function waiting(reason: string, message: string, afterMs: number): Waiting {
  return { kind: 'Waiting', reason, message, afterMs };
}

export function stalling(reason: string, message: string): Stalling {
  return { kind: 'Stalling', reason, message };
}

/**
 * An error that ended the pass: Stalling when repeating cannot help (a WalrusGitError that is not `retryable`, such
 * as a refused permission or a request the API server finds invalid), Generic otherwise (anything else thrown,
 * typed or not, is taken for transient and retried with back-off).
 */
export function failed(error: unknown, reason?: string, message = messageOf(error)): Stalling | Generic {
  if (needsAction(error)) return { kind: 'Stalling', reason: reason ?? stallReason(error), message, error };
  return { kind: 'Generic', ...(reason ? { reason } : {}), message, error };
}

/** A typed error that says retrying will not help: someone has to change something first. */
export function needsAction(error: unknown): error is WalrusGitError {
  return error instanceof WalrusGitError && !error.retryable;
}

function stallReason(error: WalrusGitError): string {
  if (error instanceof ClusterAccessError) return 'AccessDenied';
  if (error instanceof ClusterRequestError) return 'RequestRefused';
  return 'ReconcileFailed';
}
