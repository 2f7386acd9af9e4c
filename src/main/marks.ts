/**
 * Start-up marks of this process (ms since it started, the first time each is reached), for its GIT_WALRUS_STATS
 * line: where a helper's start goes (modules, network, first answer, listing). Cheap enough to leave in: one clock
 * read per mark.
 */
const marks: Record<string, number> = {};

export function mark(name: string): void {
  marks[name] ??= Math.round(performance.now());
}

export function marksSoFar(): Record<string, number> {
  return { ...marks };
}
