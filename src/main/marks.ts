/**
 * Start-up marks of this process (ms since it started, the first time each is reached), for its GIT_WALRUS_STATS
 * line: where a helper's start goes (modules, network, first answer, listing). Cheap enough to leave in: one clock
 * read per mark.
 */
const marks: Record<string, number> = {};

/**
 * Milliseconds since this process started: the one clock of its stats line. Not `performance.now()`, whose first
 * read loads Node's performance timeline (a dozen built-in modules, 3 to 5 ms of a helper's start: bin/run-node's
 * flag has them compiled from source).
 */
export function sinceStart(): number {
  return process.uptime() * 1000;
}

export function mark(name: string): void {
  marks[name] ??= Math.round(sinceStart());
}

export function marksSoFar(): Record<string, number> {
  return { ...marks };
}
