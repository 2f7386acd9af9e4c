/**
 * A container as a process. The kubelet's process (the parent) spawns
 *
 *   setpriv --pdeathsig KILL  nsenter --net=<pod netns>  unshare --mount --pid --uts --ipc --fork --kill-child
 *     └─ PID 1 of a new pid namespace: sh (setup) → chroot <root> → setpriv [--reuid/--regid] --pdeathsig KILL → env -i … <argv>
 *
 * The root is an overlay of the host's `/` (writes land in the container's own upper dir), with a fresh
 * /proc, a minimal /dev, a tmpfs /tmp, and the mounts bound in the order given (the image's files, then the
 * volumes at their mountPaths). A command that cannot be started is reported as the exit's `cannotRun`. The command runs
 * as PID 1, so as in a container a process without a SIGTERM handler ignores SIGTERM until SIGKILL.
 * Lifetimes chain by parent-death signals: if the kubelet's process dies, unshare dies, its child (PID 1)
 * dies and the kernel kills the whole pid namespace; nothing is left behind.
 */
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { mkdirSync, readFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { constants } from 'node:os';
import { memoryCgroup } from './cgroup.ts';
import type { LogStream } from './container-logs.ts';
import { signal as signalProcess } from '../signals.ts';

export interface Mount {
  source: string;
  target: string;
  readOnly: boolean;
}

export interface ContainerProcessSpec {
  /** Directory for this run of the container: its overlay's upper, work and merged dirs. */
  dir: string;
  netnsPath: string;
  hostname: string;
  argv: string[];
  env: Record<string, string>;
  workingDir: string;
  uid?: number;
  gid?: number;
  mounts: Mount[];
  /**
   * `resources.limits.memory`: the container's processes start in their own memory cgroup (cgroup.ts, named
   * `cgroupName`) with this limit, and an OOM kill in it is reported on the exit.
   */
  memory?: { cgroupName: string; limitBytes: number };
  /** Each line the process writes, with the stream it wrote it to. */
  onLine: (line: string, stream: LogStream) => void;
}

export interface Exit {
  exitCode: number;
  signal?: number;
  /** The command never ran: why, in the words runc uses (not found, permission denied, no working directory). */
  cannotRun?: string;
  /** The kernel's OOM killer killed in the container's memory cgroup (its memory limit was reached). */
  oomKilled?: boolean;
}

export interface ContainerProcess {
  /** PID (in the host's pid namespace) of the unshare process that holds the container's namespaces. */
  readonly pid: number;
  /** PID 1 of the container's pid namespace, seen from the host; undefined until it exists. */
  containerPid(): number | undefined;
  readonly exited: Promise<Exit>;
  signal(name: 'SIGTERM' | 'SIGKILL'): void;
}

// $1 root, $2 upper, $3 work, $4 hostname, $5 workingDir, $6 number of mounts, then (source target ro|rw)…, then argv.
const SETUP = `set -e
root=$1 upper=$2 work=$3 name=$4 workdir=$5 n=$6
shift 6
mount -t overlay overlay -o "lowerdir=/,upperdir=$upper,workdir=$work" "$root"
mount -t proc -o nosuid,nodev,noexec proc "$root/proc"
mount --rbind /sys "$root/sys"
mount -t tmpfs -o mode=755,nosuid tmpfs "$root/dev"
for d in null zero full random urandom tty; do : > "$root/dev/$d"; mount --bind "/dev/$d" "$root/dev/$d"; done
mkdir "$root/dev/shm" "$root/dev/pts"
mount -t tmpfs -o mode=1777,nosuid,nodev tmpfs "$root/dev/shm"
ln -s /proc/self/fd "$root/dev/fd"; ln -s /proc/self/fd/0 "$root/dev/stdin"; ln -s /proc/self/fd/1 "$root/dev/stdout"; ln -s /proc/self/fd/2 "$root/dev/stderr"
mount -t tmpfs -o mode=1777,nosuid,nodev tmpfs "$root/tmp"
# Targets are made and resolved inside the root (chroot), so a symlink on the way (/var/run -> /run)
# leads into the container's tree, never into the host's.
while [ "$n" -gt 0 ]; do
  src=$1 dst=$2 mode=$3
  shift 3; n=$((n - 1))
  if [ -d "$src" ]; then kind=d; else kind=f; fi
  dst=$(chroot "$root" /bin/sh -c 'if [ "$1" = d ]; then mkdir -p "$2"; else mkdir -p "$(dirname "$2")"; [ -e "$2" ] || : > "$2"; fi; readlink -f "$2"' sh "$kind" "$dst")
  mount --bind "$src" "$root$dst"
  if [ "$mode" = ro ]; then mount -o remount,bind,ro "$root$dst"; fi
done
hostname "$name"
chroot "$root" mkdir -p "$workdir"
exec chroot "$root" "$@"
`;

/** unshare cannot re-raise SIGKILL on itself, so it reports a SIGKILLed child this way (exit 1). */
const UNSHARE_SIGKILL = 'unshare: sigprocmask unblock failed';

/**
 * Why the container's command could not be started, from the one line env(1) prints when it cannot enter the working
 * directory (exit 125) or exec the command (126, 127), in runc's words; undefined for any other line.
 */
export function startFailure(line: string, command: string, workingDir: string): string | undefined {
  const exec = /^env: ['‘](.*)['’]: (No such file or directory|Permission denied)$/.exec(line);
  if (exec && exec[1] === command) {
    if (exec[2] === 'Permission denied') return `exec: "${command}": permission denied`;
    return command.includes('/') ? `exec: "${command}": stat ${command}: no such file or directory` : `exec: "${command}": executable file not found in $PATH`;
  }
  const chdir = /^env: cannot change directory to ['‘](.*)['’]: (.*)$/.exec(line);
  if (chdir && chdir[1] === workingDir) return `chdir to cwd ("${workingDir}") set in config.json failed: ${chdir[2]!.toLowerCase()}`;
  return undefined;
}

const START_FAILURE_CODES = new Set([125, 126, 127]);

export function startContainerProcess(spec: ContainerProcessSpec): ContainerProcess {
  const [upper, work, root] = ['upper', 'work', 'root'].map((d) => `${spec.dir}/${d}`);
  for (const d of [upper, work, root]) mkdirSync(d, { recursive: true });
  const credentials = spec.uid === undefined && spec.gid === undefined ? []
    : [`--reuid=${spec.uid ?? 0}`, `--regid=${spec.gid ?? 0}`, '--clear-groups'];
  const envArgs = Object.entries(spec.env).map(([k, v]) => `${k}=${v}`);
  const args = [
    '--pdeathsig', 'KILL', '--', 'nsenter', `--net=${spec.netnsPath}`, '--',
    'unshare', '--mount', '--propagation', 'private', '--pid', '--uts', '--ipc', '--fork', '--kill-child', '--',
    'sh', '-c', SETUP, 'sh', root, upper, work, spec.hostname, spec.workingDir, String(spec.mounts.length),
    ...spec.mounts.flatMap((m) => [m.source, m.target, m.readOnly ? 'ro' : 'rw']),
    'setpriv', ...credentials, '--pdeathsig', 'KILL', '--', 'env', '-i', '-C', spec.workingDir, ...envArgs, ...spec.argv,
  ];
  // Into the cgroup before anything of the container is forked: a shell that moves itself there, then becomes setpriv.
  const cgroup = spec.memory ? memoryCgroup(spec.memory.cgroupName, spec.memory.limitBytes) : null;
  const child: ChildProcess = cgroup
    ? spawn('sh', ['-c', 'echo $$ > "$0" && exec setpriv "$@"', cgroup.procsFile, ...args], { stdio: ['ignore', 'pipe', 'pipe'] })
    : spawn('setpriv', args, { stdio: ['ignore', 'pipe', 'pipe'] });
  let sigkilled = false;
  let unshareSigkillSeen = false;
  // env's complaint, held back: it is the runtime's error, not the container's output, when env then exits with it.
  let firstLine = true;
  let failedStart: { line: string; why: string } | undefined;
  const onLine = (line: string, stream: LogStream) => {
    if (line.startsWith(UNSHARE_SIGKILL)) {
      unshareSigkillSeen = true;
      return;
    }
    const why = firstLine ? startFailure(line, spec.argv[0] ?? '', spec.workingDir) : undefined;
    firstLine = false;
    if (why) failedStart = { line, why };
    else spec.onLine(line, stream);
  };
  const streams = ([['stdout', child.stdout!], ['stderr', child.stderr!]] as const).map(([name, stream]) => new Promise<void>((resolve) => {
    createInterface({ input: stream, crlfDelay: Infinity }).on('line', (line) => onLine(line, name)).on('close', resolve);
  }));
  const ended = new Promise<Exit>((resolve) => {
    child.on('error', (err) => {
      spec.onLine(`kubelet: could not start the container process: ${err.message}`, 'stderr');
      resolve({ exitCode: 128 });
    });
    child.on('exit', async (code, signal) => {
      await Promise.all(streams);
      if (signal) {
        const number = constants.signals[signal];
        resolve({ exitCode: 128 + number, signal: number });
      } else if (code === 1 && (sigkilled || unshareSigkillSeen)) resolve({ exitCode: 137, signal: 9 });
      else if (failedStart && START_FAILURE_CODES.has(code ?? 0)) resolve({ exitCode: code!, cannotRun: failedStart.why });
      else {
        if (failedStart) spec.onLine(failedStart.line, 'stderr');
        resolve({ exitCode: code ?? 128 });
      }
    });
  });
  const exited = ended.then((exit) => {
    const oomKilled = cgroup?.oomKilled() ?? false;
    cgroup?.remove();
    return oomKilled ? { ...exit, oomKilled } : exit;
  });
  const pid = child.pid ?? -1;
  const containerPid = () => {
    try {
      const first = readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/)[0];
      return first ? Number(first) : undefined;
    } catch {
      return undefined;
    }
  };
  return {
    pid,
    containerPid,
    exited,
    signal(name) {
      if (name === 'SIGKILL') sigkilled = true;
      const target = containerPid();
      for (const p of name === 'SIGKILL' ? [target, pid] : [target ?? pid]) {
        if (p !== undefined && p > 0) signalProcess(p, name);
      }
    },
  };
}
