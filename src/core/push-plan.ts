import type { RefUpdate } from '../ports/ledger.ts';
import { InternalError } from './errors.ts';

/**
 * Pure planning of one push batch (docs/architecture.md, Push, step 2): for every requested ref, decide from the remote
 * state and the ancestry facts the caller looked up in the local repository whether it lands, is already up to date, or
 * is refused, using git's own words for refusals so `git push` prints its usual messages.
 */

/** How the remote's current value of a ref relates to the value being pushed (answered by the local git). */
export type Ancestry =
  /** The remote value is an ancestor of the new one. */
  | 'fast-forward'
  /** Both are commits, but the remote value is not an ancestor. */
  | 'diverged'
  /** The local repository does not have the remote value: someone pushed what we have not fetched. */
  | 'missing-old'
  /** One side is not a commit (e.g. a tag of a tree), so ancestry means nothing. */
  | 'not-commits';

export interface RefRequest {
  dst: string;
  /** The local object id to store; null deletes the ref. */
  new: string | null;
  /** `+` in the refspec or `--force`. */
  force: boolean;
  /** `--force-with-lease`: the value the remote must still have (null: must not exist); absent: no lease. */
  lease?: string | null;
}

export interface RemoteState {
  refs: ReadonlyMap<string, string>;
  owner: string;
  writers: readonly string[];
  protectedRefs: readonly string[];
}

export type RefDecision =
  | { kind: 'update'; dst: string; update: RefUpdate; leased: boolean }
  | { kind: 'up-to-date'; dst: string }
  | { kind: 'reject'; dst: string; reason: string };

export interface AncestryQuestion {
  dst: string;
  old: string;
  new: string;
}

/** The (old, new) pairs whose ancestry the plan needs: refs that exist remotely and would change. */
export function ancestryQuestions(requests: readonly RefRequest[], refs: ReadonlyMap<string, string>): AncestryQuestion[] {
  const questions: AncestryQuestion[] = [];
  for (const request of requests) {
    const old = refs.get(request.dst);
    if (old !== undefined && request.new !== null && request.new !== old) questions.push({ dst: request.dst, old, new: request.new });
  }
  return questions;
}

/** Whether `sender` may push at all: the owner and the listed writers may. */
export function isWriter(state: Pick<RemoteState, 'owner' | 'writers'>, sender: string): boolean {
  return sender === state.owner || state.writers.includes(sender);
}

export function notWriterReason(sender: string, owner: string): string {
  return `permission denied: ${sender} is not a writer of this repository; its owner ${owner} can add you with 'git walrus writers add'`;
}

export function protectedRefReason(dst: string, owner: string): string {
  return `${dst} is protected: only the owner ${owner} may force-push or delete it`;
}

/**
 * Decides every ref of a batch. `ancestry` answers the questions of `ancestryQuestions` by ref name. With `atomic`,
 * one refusal refuses the whole batch (the other refs get "atomic push failed", as git words it).
 */
export function planPush(
  requests: readonly RefRequest[],
  state: RemoteState,
  sender: string,
  ancestry: ReadonlyMap<string, Ancestry>,
  atomic: boolean,
): RefDecision[] {
  const decisions = refuseRefClashes(requests.map((request) => decide(request, state, sender, ancestry)), state.refs);
  if (atomic && decisions.some((d) => d.kind === 'reject')) {
    return decisions.map((d) => (d.kind === 'update' ? { kind: 'reject', dst: d.dst, reason: 'atomic push failed' } : d));
  }
  return decisions;
}

function decide(request: RefRequest, state: RemoteState, sender: string, ancestry: ReadonlyMap<string, Ancestry>): RefDecision {
  const { dst } = request;
  const reject = (reason: string): RefDecision => ({ kind: 'reject', dst, reason });
  if (!isWriter(state, sender)) return reject(notWriterReason(sender, state.owner));
  const current = state.refs.get(dst) ?? null;
  const leased = request.lease !== undefined;
  if (leased && request.lease !== current) return reject('stale info');
  if (request.new === current) return { kind: 'up-to-date', dst };
  const isProtected = state.protectedRefs.includes(dst) && sender !== state.owner;

  if (request.new === null) {
    if (isProtected) return reject(protectedRefReason(dst, state.owner));
    return { kind: 'update', dst, leased, update: { name: dst, old: current, new: null, force: true } };
  }
  if (current === null) return { kind: 'update', dst, leased, update: { name: dst, old: null, new: request.new, force: false } };

  const relation = ancestry.get(dst);
  if (relation === undefined) throw new InternalError(`push plan: no ancestry answer for ${dst}`);
  const fastForward = relation === 'fast-forward';
  // A lease is an explicit permission to overwrite exactly the expected value, so it acts as a force.
  const allowed = request.force || leased;
  if (!fastForward || dst.startsWith('refs/tags/')) {
    if (!allowed) {
      if (dst.startsWith('refs/tags/')) return reject('already exists');
      if (relation === 'missing-old') return reject('fetch first');
      if (relation === 'not-commits') return reject('needs force');
      return reject('non-fast forward');
    }
    if (!fastForward && isProtected) return reject(protectedRefReason(dst, state.owner));
  }
  return { kind: 'update', dst, leased, update: { name: dst, old: current, new: request.new, force: !fastForward } };
}

/**
 * After the chain refused a batch because refs moved under it (compare-and-swap), refuses the updates whose
 * expected old value no longer matches `refs` ("fetch first", or "stale info" for a lease) and keeps the rest,
 * which can be retried as they are (docs/architecture.md, Push, step 5).
 */
export function dropMovedRefs(decisions: readonly RefDecision[], refs: ReadonlyMap<string, string>): RefDecision[] {
  return decisions.map((d) => {
    if (d.kind !== 'update' || (refs.get(d.dst) ?? null) === d.update.old) return d;
    return { kind: 'reject', dst: d.dst, reason: d.leased ? 'stale info' : 'fetch first' };
  });
}

/**
 * Refuses each new ref that would stand beside another as file and directory (`refs/heads/main` and
 * `refs/heads/main/x`) once the push applied: git's ref store cannot hold both, so the repository could no longer be
 * cloned or checked out. Refs the push deletes no longer count; refs it creates do. In git's own words: "'X' exists;
 * cannot create 'Y'", and "cannot process 'X' and 'Y' at the same time" for two refs of one push.
 */
export function refuseRefClashes(decisions: readonly RefDecision[], refs: ReadonlyMap<string, string>): RefDecision[] {
  const updates = updatesOf(decisions);
  const deleted = new Set(updates.filter((u) => u.new === null).map((u) => u.name));
  const kept = [...refs.keys()].filter((name) => !deleted.has(name));
  const pushed = updates.filter((u) => u.new !== null).map((u) => u.name);
  const clash = (name: string): string | null => {
    const dirOf = (other: string) => other.startsWith(`${name}/`) || name.startsWith(`${other}/`);
    const existing = kept.find(dirOf);
    if (existing !== undefined) return `'${existing}' exists; cannot create '${name}'`;
    const together = pushed.find(dirOf);
    if (together !== undefined) return `cannot process '${[name, together].sort().join("' and '")}' at the same time`;
    return null;
  };
  return decisions.map((d) => {
    if (d.kind !== 'update' || d.update.old !== null || d.update.new === null) return d;
    const reason = clash(d.dst);
    return reason === null ? d : { kind: 'reject', dst: d.dst, reason };
  });
}

/** The ref updates a plan would send to the chain. */
export function updatesOf(decisions: readonly RefDecision[]): RefUpdate[] {
  return decisions.flatMap((d) => (d.kind === 'update' ? [d.update] : []));
}
