import { readFileSync } from 'node:fs';

/**
 * Whether a process of this machine with that pid is alive: what tells a leftover of a dead process (safe to remove
 * or take over) from one in use. A pid reused by an unrelated process counts as alive, the safe side. A zombie (dead,
 * not yet reaped: where the init process does not reap orphans, as in some containers, it stays) counts as dead.
 */
export function processExists(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (error) {
    return (error as NodeJS.ErrnoException).code !== 'ESRCH';
  }
  return !isZombie(pid);
}

/** Linux's /proc/<pid>/stat: `pid (comm) S …`, state after the last `)` (comm may hold one); elsewhere, not known. */
function isZombie(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) === 'Z';
  } catch {
    return false;
  }
}
