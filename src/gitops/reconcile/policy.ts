import { normalizeSuiAddress } from '@mysten/sui/utils';
import type { PushEvent } from '../../ports/ledger.ts';

/** The latest push that set `ref` to `commit` (the push log is in ascending seq order), or null. */
export function pushThatSet(pushes: readonly PushEvent[], ref: string, commit: string): PushEvent | null {
  for (let index = pushes.length - 1; index >= 0; index--) {
    const update = pushes[index].updates.find((candidate) => candidate.name === ref);
    if (update) return update.new === commit ? pushes[index] : null;
  }
  return null;
}

export type PolicyDecision = { allowed: true } | { allowed: false; message: string };

/**
 * Whether a head may deploy: with `allowedPushers` set, only when the push that set the ref was sent by one of them
 * (addresses compared in their normal form). An empty list allows every writer the repository accepts.
 */
export function decidePolicy(allowedPushers: readonly string[], push: PushEvent | null, ref: string, commit: string): PolicyDecision {
  if (allowedPushers.length === 0) return { allowed: true };
  if (!push) return { allowed: false, message: `no push in the repository's log set ${ref} to ${commit.slice(0, 12)}` };
  const allowed = new Set(allowedPushers.map((address) => normalizeSuiAddress(address)));
  if (allowed.has(normalizeSuiAddress(push.sender))) return { allowed: true };
  return { allowed: false, message: `${ref} at ${commit.slice(0, 12)} was pushed by ${push.sender} (push ${push.seq}), who is not in spec.policy.allowedPushers` };
}
