/**
 * The machine-wide registry of node runs: one state file per run in /run (a tmpfs, empty after a reboot,
 * as are the namespaces and rules it describes). A state file is written before anything it names is
 * created and removed after all of it is gone, so a crashed run is always found and cleaned by the next
 * one. A run is alive while its owner process (PID and start time, since PIDs are reused) runs.
 */
import { closeSync, mkdirSync, openSync, readFileSync, readdirSync, renameSync, rmSync, writeFileSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import type { HostRule } from './addressing.ts';
import { RUN_ID } from './addressing.ts';
import { sleep } from '../signals.ts';

export const REGISTRY_DIR = '/run/git-remote-walrus/k8s';
const LOCK = join(REGISTRY_DIR, 'lock');
const IP_FORWARD = '/proc/sys/net/ipv4/ip_forward';
const IP_FORWARD_BEFORE = join(REGISTRY_DIR, 'ip_forward.before');

export interface ProcessRef {
  /** What it is, for logs (e.g. kube-proxy). */
  readonly name: string;
  readonly pid: number;
  /** A string its command line contains: a recorded PID is signalled only while it still names this process. */
  readonly match: string;
}

export interface RunState {
  readonly runId: string;
  readonly owner: { pid: number; startTime: string };
  readonly createdAt: string;
  readonly index: number;
  /** The run's temporary files (kubelet state, logs, kube-proxy config), removed with the run. */
  readonly stateDir: string;
  readonly hostLink: string;
  readonly nodeNetns: string;
  /** Nodes 2..N of a multi-node run (the first node is the run's own index, link and namespace). */
  readonly extraNodes?: readonly { readonly index: number; readonly hostLink: string; readonly nodeNetns: string }[];
  readonly routes: string[];
  readonly rules: HostRule[];
  /** The control plane's directory (its plane.json lists the component PIDs). */
  planeDir?: string;
  processes: ProcessRef[];
}

/** Every subnet index a run holds: its own and its extra nodes'. */
export const indexesOf = (state: RunState): number[] => [state.index, ...(state.extraNodes ?? []).map((node) => node.index)];

export const statePath = (runId: string) => join(REGISTRY_DIR, `${runId}.json`);

export function writeState(state: RunState): void {
  mkdirSync(REGISTRY_DIR, { recursive: true, mode: 0o700 });
  const path = statePath(state.runId);
  writeFileSync(`${path}.tmp`, JSON.stringify(state, null, 2) + '\n');
  renameSync(`${path}.tmp`, path);
}

export function readState(runId: string): RunState | undefined {
  try {
    return JSON.parse(readFileSync(statePath(runId), 'utf8')) as RunState;
  } catch {
    return undefined;
  }
}

export function listStates(): RunState[] {
  let names: string[];
  try {
    names = readdirSync(REGISTRY_DIR);
  } catch {
    return [];
  }
  return names.flatMap((name) => {
    const runId = name.replace(/\.json$/, '');
    if (!name.endsWith('.json') || !RUN_ID.test(runId)) return [];
    const state = readState(runId);
    return state ? [state] : [];
  });
}

export function removeState(runId: string): void {
  rmSync(statePath(runId), { force: true });
}

/** The kernel's start time of a process (field 22 of /proc/PID/stat), or undefined when it does not run. */
export function processStartTime(pid: number): string | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return fields[0] === 'Z' ? undefined : fields[19];
  } catch {
    return undefined;
  }
}

export const ownerOfThisProcess = () => ({ pid: process.pid, startTime: processStartTime(process.pid) ?? '' });

export function isAlive(state: RunState): boolean {
  return processStartTime(state.owner.pid) === state.owner.startTime;
}

/** Whether a recorded process still runs and is still the one recorded. */
export function isOwnProcess(ref: ProcessRef): boolean {
  if (processStartTime(ref.pid) === undefined) return false;
  try {
    return readFileSync(`/proc/${ref.pid}/cmdline`, 'utf8').includes(ref.match);
  } catch {
    return false;
  }
}

/**
 * Runs `critical` holding the registry's lock (subnet choice, ip_forward bookkeeping): a file made
 * exclusively, holding its owner's PID, broken when that owner is gone.
 */
export async function withRegistryLock<T>(critical: () => Promise<T> | T): Promise<T> {
  mkdirSync(REGISTRY_DIR, { recursive: true, mode: 0o700 });
  const deadline = Date.now() + 30_000;
  for (;;) {
    try {
      const fd = openSync(LOCK, 'wx');
      writeSync(fd, `${process.pid} ${processStartTime(process.pid)}\n`);
      closeSync(fd);
      break;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      let holder: string;
      try {
        holder = readFileSync(LOCK, 'utf8');
      } catch {
        continue; // Released meanwhile.
      }
      const [pid, start] = holder.trim().split(' ').concat(['', '']);
      // An empty file is a holder between open and write; only a dead holder's lock is broken.
      if (pid && processStartTime(Number(pid)) !== start) rmSync(LOCK, { force: true });
      else if (Date.now() > deadline) throw new Error(`the node registry lock ${LOCK} is held by PID ${pid} for over 30s`);
      else await sleep(50);
    }
  }
  try {
    return await critical();
  } finally {
    rmSync(LOCK, { force: true });
  }
}

/** Turns on the host's IPv4 forwarding (pods' egress), remembering the value before the first run did. */
export function enableIpForward(): void {
  const before = readFileSync(IP_FORWARD, 'utf8').trim();
  try {
    writeFileSync(IP_FORWARD_BEFORE, before + '\n', { flag: 'wx' });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
  }
  if (before !== '1') writeFileSync(IP_FORWARD, '1\n');
}

/** Puts back the value ip_forward had before the first run, once no run is left. Call under the lock. */
export function restoreIpForwardIfLast(): void {
  if (listStates().length > 0) return;
  let before: string;
  try {
    before = readFileSync(IP_FORWARD_BEFORE, 'utf8').trim();
  } catch {
    return;
  }
  writeFileSync(IP_FORWARD, before + '\n');
  rmSync(IP_FORWARD_BEFORE, { force: true });
}
