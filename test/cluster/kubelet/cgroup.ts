/**
 * A container's memory limit, enforced by the kernel as a runtime does it: each run of a container with
 * `resources.limits.memory` gets its own memory cgroup (named `grw-<run>-…`, under the cgroup of the process running
 * the kubelet) with that limit; the kernel's OOM killer kills inside it when the limit is reached, and the kubelet
 * reads the cgroup's OOM-kill count to report `OOMKilled` as a real node does. cgroup v1 (`memory.limit_in_bytes`,
 * `memory.oom_control`) and v2 (`memory.max`, `memory.events`) both work; where neither can be written (no memory
 * controller, a read-only cgroup file system) the limit is not enforced and the kubelet says so once.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, rmdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export interface MemoryCgroup {
  /** Write a PID here to put the process (and what it forks later) in the cgroup. */
  readonly procsFile: string;
  /** Whether the kernel's OOM killer killed a process in the cgroup. */
  oomKilled(): boolean;
  /** Removes the cgroup (once its processes are gone). */
  remove(): void;
}

interface Hierarchy {
  /** The directory of this process's own memory cgroup. */
  dir: string;
  version: 1 | 2;
}

let hierarchy: Hierarchy | null | undefined;

/** Where this process's memory cgroup is, if one can be used. */
function memoryHierarchy(): Hierarchy | null {
  if (hierarchy !== undefined) return hierarchy;
  hierarchy = null;
  try {
    const lines = readFileSync('/proc/self/cgroup', 'utf8').trim().split('\n').map((line) => line.split(':'));
    const v1 = lines.find(([, controllers]) => controllers!.split(',').includes('memory'));
    if (v1 && existsSync('/sys/fs/cgroup/memory')) hierarchy = { dir: join('/sys/fs/cgroup/memory', v1[2]!), version: 1 };
    else {
      const v2 = lines.find(([id]) => id === '0');
      const root = existsSync('/sys/fs/cgroup/cgroup.controllers') ? '/sys/fs/cgroup' : '/sys/fs/cgroup/unified';
      if (v2 && readFileSync(join(root, v2[2]!, 'cgroup.subtree_control'), 'utf8').split(/\s+/).includes('memory')) hierarchy = { dir: join(root, v2[2]!), version: 2 };
    }
  } catch {
    hierarchy = null;
  }
  return hierarchy;
}

/** A memory cgroup named `name` limited to `limitBytes`; null where memory cannot be limited here. */
export function memoryCgroup(name: string, limitBytes: number): MemoryCgroup | null {
  const found = memoryHierarchy();
  if (!found) return null;
  const dir = join(found.dir, name);
  try {
    mkdirSync(dir, { recursive: true });
    const limit = String(Math.floor(limitBytes));
    if (found.version === 1) {
      writeFileSync(join(dir, 'memory.limit_in_bytes'), limit);
    } else {
      writeFileSync(join(dir, 'memory.max'), limit);
      // No swap to escape into, as a runtime sets it (the limit would otherwise only slow the container down).
      if (existsSync(join(dir, 'memory.swap.max'))) writeFileSync(join(dir, 'memory.swap.max'), '0');
    }
  } catch {
    try { rmdirSync(dir); } catch { /* not made */ }
    return null;
  }
  const counter = found.version === 1 ? 'memory.oom_control' : 'memory.events';
  return {
    procsFile: join(dir, 'cgroup.procs'),
    oomKilled() {
      try {
        return Number(/^oom_kill (\d+)$/m.exec(readFileSync(join(dir, counter), 'utf8'))?.[1] ?? 0) > 0;
      } catch {
        return false;
      }
    },
    remove() {
      try { rmdirSync(dir); } catch { /* gone, or a process still in it: the run's cleanup tries again */ }
    },
  };
}

/** Removes the memory cgroups named by `owned` (a run's, `grw-<run>-…`) under this process's cgroup. */
export function removeMemoryCgroups(owned: (name: string) => boolean): void {
  const found = memoryHierarchy();
  if (!found) return;
  let names: string[];
  try {
    names = readdirSync(found.dir, { withFileTypes: true }).filter((entry) => entry.isDirectory() && owned(entry.name)).map((entry) => entry.name);
  } catch {
    return;
  }
  for (const name of names) {
    try { rmdirSync(join(found.dir, name)); } catch { /* a process still in it */ }
  }
}
