import { normalizeSuiId } from '../../core/walrus-url.ts';
import type { PushEvent } from '../../ports/ledger.ts';

export type PolicyDecision = { allowed: true } | { allowed: false; message: string };

/**
 * Whether a head may deploy: with `allowedPushers` set, only when the push that set the ref was sent by one of them
 * (addresses compared in their normal form). An empty list allows every writer the repository accepts.
 */
export function decidePolicy(allowedPushers: readonly string[], push: PushEvent | null, ref: string, commit: string): PolicyDecision {
  if (allowedPushers.length === 0) return { allowed: true };
  if (!push) return { allowed: false, message: `no push in the repository's log set ${ref} to ${commit.slice(0, 12)}` };
  const allowed = new Set(allowedPushers.map((address) => normalizeSuiId(address)));
  if (allowed.has(normalizeSuiId(push.sender))) return { allowed: true };
  return { allowed: false, message: `${ref} at ${commit.slice(0, 12)} was pushed by ${push.sender} (push ${push.seq}), who is not in spec.policy.allowedPushers` };
}
