/**
 * Whether a process of this machine with that pid is alive: what tells a leftover of a dead process (safe to remove
 * or take over) from one in use. A pid reused by an unrelated process counts as alive, the safe side.
 */
export function processExists(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code !== 'ESRCH';
  }
}
