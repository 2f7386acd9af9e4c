/**
 * Removes a run and everything it made: its processes (by recorded PID, only while the PID still names
 * them), every process left in its namespaces, the namespaces themselves (which takes the bridge, the
 * pods' veths and kube-proxy's rules with them), the host link and routes, its tagged host rules, its
 * files, and finally its state file. Every step tolerates what is already gone, so it can run again
 * after any crash, including its own.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { stopControlPlane } from '../control-plane.ts';
import { runNames, runOfName, taggedRules } from './addressing.ts';
import { netnsList, sh, shQuiet } from './exec.ts';
import { removeMemoryCgroups } from '../kubelet/cgroup.ts';
import type { ProcessRef, RunState } from './run-state.ts';
import { isAlive, isOwnProcess, listStates, removeState, restoreIpForwardIfLast, statePath, withRegistryLock } from './run-state.ts';
import { signal, sleep, terminate } from '../signals.ts';

type Log = (line: string) => void;
/** A host link of ours: `grw-<run>` (the first node's) or `grw-<run>-<n>` (node n's). */
const HOST_LINK = /^grw-[0-9a-f]{6}(?:-\d)?$/;

export async function teardownRun(state: RunState, log: Log): Promise<void> {
  const { tag } = runNames(state.runId);
  await stopProcesses(state.processes ?? []);
  if (state.planeDir) await stopControlPlane(state.planeDir);
  // Pods first, the nodes last: a pod's veth lives on its node's bridge.
  const nodes = new Set([state.nodeNetns, ...(state.extraNodes ?? []).map((node) => node.nodeNetns)]);
  const namespaces = (await netnsList()).filter((name) => name.startsWith(`${tag}-`));
  namespaces.sort((a, b) => Number(nodes.has(a)) - Number(nodes.has(b)));
  for (const netns of namespaces) await removeNetns(netns);
  // The containers' memory cgroups (kubelet/cgroup.ts): empty once their processes are gone.
  removeMemoryCgroups((name) => name.startsWith(`${tag}-`));
  for (const link of [state.hostLink, ...(state.extraNodes ?? []).map((node) => node.hostLink)]) await shQuiet('ip', ['link', 'del', link]);
  for (const route of state.routes) await shQuiet('ip', ['route', 'del', route]);
  await removeTaggedRules((runId) => runId === state.runId);
  removeStateDir(state.stateDir, log);
  await withRegistryLock(() => {
    removeState(state.runId);
    restoreIpForwardIfLast();
  });
}

/**
 * Removes what runs that are gone left behind: runs whose owner died (from their state files), and any
 * namespace, host link or tagged rule named after a run that has no state file (a state file is written
 * before anything it names exists, so such leftovers belong to no live run).
 */
export async function sweepDeadRuns(log: Log): Promise<void> {
  const states = listStates();
  for (const state of states.filter((s) => !isAlive(s))) {
    log(`k8s: removing the leftovers of dead run ${state.runId} (owner PID ${state.owner.pid})`);
    await teardownRun(state, log);
  }
  const known = new Set(listStates().map((s) => s.runId));
  const orphan = (name: string) => {
    const runId = runOfName(name);
    return runId !== undefined && !known.has(runId);
  };
  for (const netns of (await netnsList()).filter(orphan)) {
    log(`k8s: removing orphaned network namespace ${netns}`);
    await removeNetns(netns);
  }
  removeMemoryCgroups(orphan);
  const links = JSON.parse((await sh('ip', ['-j', 'link', 'show'])) || '[]') as { ifname: string }[];
  for (const { ifname } of links.filter((l) => HOST_LINK.test(l.ifname) && orphan(l.ifname))) {
    log(`k8s: removing orphaned link ${ifname}`);
    await shQuiet('ip', ['link', 'del', ifname]);
  }
  await removeTaggedRules((runId) => !known.has(runId));
}

/** SIGTERM, a grace period, then SIGKILL: only processes that still are the ones recorded. */
export async function stopProcesses(refs: readonly ProcessRef[], graceMs = 5000): Promise<void> {
  await terminate(refs, { pid: (ref) => ref.pid, isRunning: isOwnProcess, graceMs });
}

/** Kills whatever still runs in the namespace (a process would keep it alive after `del`), then deletes it. */
export async function removeNetns(netns: string): Promise<void> {
  await killProcessesIn(netns);
  await shQuiet('ip', ['netns', 'del', netns]);
}

/** SIGKILL to every process in the namespace, until none is left. */
export async function killProcessesIn(netns: string): Promise<void> {
  for (let attempt = 0; attempt < 50; attempt++) {
    const pids = (await sh('ip', ['netns', 'pids', netns]).catch(() => '')).split(/\s+/).filter(Boolean).map(Number);
    if (pids.length === 0) break;
    for (const pid of pids) signal(pid, 'SIGKILL');
    await sleep(20);
  }
}

async function removeTaggedRules(ofRun: (runId: string) => boolean): Promise<void> {
  for (const rule of taggedRules(await sh('iptables-save', [])).filter((r) => ofRun(r.runId))) {
    await shQuiet('iptables', ['-w', '-t', rule.table, ...rule.args]);
  }
}

/**
 * Removes the run's files, but never through a mount: a mount left under it (a container root of a
 * crashed kubelet) is lazily unmounted first, and the directory is kept if one cannot be.
 */
function removeStateDir(dir: string, log: Log): void {
  if (!dir || !existsSync(dir)) return;
  const mounts = () => readFileSync('/proc/self/mountinfo', 'utf8').split('\n')
    .map((line) => line.split(' ')[4]?.replace(/\\040/g, ' '))
    .filter((point): point is string => !!point && (point === dir || point.startsWith(`${dir}/`)))
    .sort((a, b) => b.length - a.length);
  for (const point of mounts()) {
    try {
      // Synchronous on purpose: nothing else may run between finding a mount and removing the tree.
      execFileSync('umount', ['-l', point], { stdio: 'ignore' });
    } catch {
      // Checked below.
    }
  }
  const left = mounts();
  if (left.length > 0) {
    log(`k8s: kept ${dir}: still mounted under it: ${left.join(', ')}`);
    return;
  }
  rmSync(dir, { recursive: true, force: true, maxRetries: 5 });
}


/** The names of our leftovers that a check (or the node test) can look for. */
export async function leftoversOf(runId: string): Promise<string[]> {
  const { tag } = runNames(runId);
  const found: string[] = [];
  for (const netns of await netnsList()) if (netns.startsWith(`${tag}-`)) found.push(`netns ${netns}`);
  const links = JSON.parse((await sh('ip', ['-j', 'link', 'show'])) || '[]') as { ifname: string }[];
  for (const { ifname } of links) if (HOST_LINK.test(ifname) && runOfName(ifname) === runId) found.push(`link ${ifname}`);
  for (const rule of taggedRules(await sh('iptables-save', []))) if (rule.runId === runId) found.push(`rule ${rule.table} ${rule.args.join(' ')}`);
  if (existsSync(statePath(runId))) found.push(`state file ${statePath(runId)}`);
  return found;
}
