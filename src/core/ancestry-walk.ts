/**
 * Answers many "is `old` an ancestor of `new`?" questions from one history walk (a push of hundreds of refs would
 * otherwise ask git once per ref). The walk is `git rev-list --parents <news> --not <olds>`: the commits the push
 * brings (reachable from a new value and from no old one), each with its parents; a parent outside them is on the
 * boundary, reachable from some old value. Pure: parsing and graph search, no I/O.
 *
 * For one pair, searching from `new` through the brought commits: reaching `old` on the boundary proves it is an
 * ancestor; reaching no boundary commit at all proves it is not (everything `new` reaches is brought, and nothing
 * brought is reachable from `old`). Otherwise (`new` reaches other old values' history, or `new` is not brought at
 * all, as for a ref moved back) the walk cannot tell, and the answer is null: the caller asks git for that pair.
 */

export interface HistoryWalk {
  /** Brought commit → its parents (a parent that is not a key is on the boundary). */
  parents: Map<string, string[]>;
}

/** Parses `rev-list --parents` output: `<commit> <parent>...` per brought commit. */
export function parseHistoryWalk(output: string): HistoryWalk {
  const parents = new Map<string, string[]>();
  for (const line of output.split('\n')) {
    if (line === '') continue;
    const [commit, ...rest] = line.split(' ');
    parents.set(commit!, rest);
  }
  return { parents };
}

/** Whether `old` is an ancestor of `next` (both commits), as far as the walk decides it; null when it cannot. */
export function isAncestorInWalk(walk: HistoryWalk, old: string, next: string): boolean | null {
  if (!walk.parents.has(next)) return null;
  const seen = new Set<string>([next]);
  const stack = [next];
  let reachedBoundary = false;
  while (stack.length > 0) {
    for (const parent of walk.parents.get(stack.pop()!) ?? []) {
      if (seen.has(parent)) continue;
      seen.add(parent);
      if (walk.parents.has(parent)) stack.push(parent);
      else if (parent === old) return true;
      else reachedBoundary = true; // on the boundary: reachable from some old value, maybe not from this one
    }
  }
  return reachedBoundary ? null : false;
}
