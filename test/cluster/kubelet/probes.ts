/**
 * Probes as the kubelet runs them (pkg/kubelet/prober): one worker per container and probe, ticking every
 * periodSeconds from the container's start, skipping ticks until initialDelaySeconds have passed; each try
 * is bounded by timeoutSeconds; the result flips after successThreshold successes or failureThreshold
 * failures in a row. httpGet and tcpSocket go to the pod IP from the node; exec runs in the container's
 * namespaces and root.
 */
import { execFile } from 'node:child_process';
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { connect } from 'node:net';
import type { V1Container, V1Probe } from '@kubernetes/client-node';
import { messageOf } from '../../../src/core/errors.ts';

export type ProbeKind = 'readiness' | 'liveness' | 'startup';

export interface ProbeTarget {
  podIP: string;
  container: V1Container;
  /** Host PID of the container's PID 1, for exec probes. */
  containerPid(): number | undefined;
  uid?: number;
  gid?: number;
  env: Record<string, string>;
}

/** Resolves a probe's port (a number or the name of one of the container's ports). */
export function probePort(port: number | string, container: V1Container): number {
  if (typeof port === 'number') return port;
  if (/^\d+$/.test(port)) return Number(port);
  const named = container.ports?.find((p) => p.name === port);
  if (!named) throw new Error(`port "${port}" is not a named port of container ${container.name}`);
  return named.containerPort;
}

/** One try of the probe; resolves to undefined on success or to the failure's description. */
export async function probeOnce(probe: V1Probe, target: ProbeTarget): Promise<string | undefined> {
  const timeoutMs = (probe.timeoutSeconds ?? 1) * 1000;
  try {
    if (probe.httpGet) return await httpProbe(probe.httpGet, target, timeoutMs);
    if (probe.tcpSocket) return await tcpProbe(probe.tcpSocket.host ?? target.podIP, probePort(probe.tcpSocket.port as number | string, target.container), timeoutMs);
    if (probe.exec) return await execProbe(probe.exec.command ?? [], target, timeoutMs);
    return 'probe has no handler';
  } catch (err) {
    return messageOf(err);
  }
}

function httpProbe(get: NonNullable<V1Probe['httpGet']>, target: ProbeTarget, timeoutMs: number): Promise<string | undefined> {
  const https = (get.scheme ?? 'HTTP').toUpperCase() === 'HTTPS';
  const port = probePort(get.port as number | string, target.container);
  const headers: Record<string, string> = { 'user-agent': 'kube-probe/1.20', accept: '*/*' };
  for (const h of get.httpHeaders ?? []) headers[h.name.toLowerCase()] = h.value;
  return new Promise((resolve) => {
    const req = (https ? httpsRequest : httpRequest)({
      host: get.host ?? target.podIP, port, path: get.path ?? '/', method: 'GET', headers, rejectUnauthorized: false, timeout: timeoutMs,
    }, (res) => {
      res.resume();
      const code = res.statusCode ?? 0;
      // 3xx counts as success: the kubelet follows a redirect only to the same host, and succeeds on any other.
      if (code >= 200 && code < 400) resolve(undefined);
      else resolve(`HTTP probe failed with statuscode: ${code}`);
    });
    req.on('timeout', () => req.destroy(new Error(`Get "${https ? 'https' : 'http'}://${get.host ?? target.podIP}:${port}${get.path ?? '/'}": context deadline exceeded (Client.Timeout exceeded while awaiting headers)`)));
    req.on('error', (err) => resolve(err.message));
    req.end();
  });
}

function tcpProbe(host: string, port: number, timeoutMs: number): Promise<string | undefined> {
  return new Promise((resolve) => {
    const socket = connect({ host, port, timeout: timeoutMs });
    socket.on('connect', () => { socket.destroy(); resolve(undefined); });
    socket.on('timeout', () => { socket.destroy(); resolve(`dial tcp ${host}:${port}: i/o timeout`); });
    socket.on('error', (err) => resolve(`dial tcp ${host}:${port}: ${err.message}`));
  });
}

function execProbe(command: string[], target: ProbeTarget, timeoutMs: number): Promise<string | undefined> {
  const pid = target.containerPid();
  if (pid === undefined) return Promise.resolve('container is not running');
  const credentials = [...(target.uid !== undefined ? ['-S', String(target.uid)] : []), ...(target.gid !== undefined ? ['-G', String(target.gid)] : [])];
  const env = Object.entries(target.env).map(([k, v]) => `${k}=${v}`);
  const args = ['-t', String(pid), '-m', '-u', '-i', '-n', '-p', '-r', '-w', ...credentials, '--', 'env', '-i', ...env, ...command];
  return new Promise((resolve) => {
    execFile('nsenter', args, { timeout: timeoutMs, killSignal: 'SIGKILL', maxBuffer: 10 * 1024 }, (err, stdout, stderr) => {
      if (!err) return resolve(undefined);
      const killed = (err as { killed?: boolean }).killed;
      resolve(killed ? `command timed out after ${timeoutMs / 1000}s` : `command failed (${(err as { code?: unknown }).code}): ${(stdout + stderr).trim().slice(0, 200)}`);
    });
  });
}

/**
 * Runs one probe for one container until stopped. `onResult` is called when the probe starts passing (true)
 * and each time failures in a row reach failureThreshold (false). Readiness and startup start failing,
 * liveness starts passing, as in the kubelet.
 */
export class Prober {
  #timer?: NodeJS.Timeout;
  #stopped = false;
  #result: boolean;
  #successes = 0;
  #failures = 0;

  private readonly kind: ProbeKind;
  private readonly probe: V1Probe;
  private readonly target: ProbeTarget;
  private readonly startedAt: number;
  private readonly onResult: (passing: boolean, message?: string) => void;

  constructor(kind: ProbeKind, probe: V1Probe, target: ProbeTarget, startedAt: number, onResult: (passing: boolean, message?: string) => void) {
    this.kind = kind;
    this.probe = probe;
    this.target = target;
    this.startedAt = startedAt;
    this.onResult = onResult;
    this.#result = kind === 'liveness';
  }

  start(): void {
    void this.#tick();
  }

  stop(): void {
    this.#stopped = true;
    clearTimeout(this.#timer);
  }

  async #tick(): Promise<void> {
    if (this.#stopped) return;
    const periodMs = (this.probe.periodSeconds ?? 10) * 1000;
    if (Date.now() - this.startedAt >= (this.probe.initialDelaySeconds ?? 0) * 1000) {
      const failure = await probeOnce(this.probe, this.target);
      if (this.#stopped) return;
      if (failure === undefined) {
        this.#failures = 0;
        if (++this.#successes >= (this.probe.successThreshold ?? 1) && !this.#result) this.#set(true);
      } else {
        this.#successes = 0;
        // Reported once per run of failures: a readiness or startup probe that never passed fails here too.
        if (++this.#failures === (this.probe.failureThreshold ?? 3)) this.#set(false, `${this.kind[0].toUpperCase()}${this.kind.slice(1)} probe failed: ${failure}`);
      }
    }
    this.#timer = setTimeout(() => void this.#tick(), periodMs);
    this.#timer.unref();
  }

  #set(result: boolean, message?: string): void {
    this.#result = result;
    this.onResult(result, message);
  }
}
