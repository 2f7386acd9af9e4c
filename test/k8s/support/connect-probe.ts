/**
 * Connections opened from inside a pod's network namespace, as the pod's own process would open them: each attempt's
 * outcome (answered over HTTP, connected, refused, unreachable, timed out) and how long it took. What a NetworkPolicy
 * test counts.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import type { V1Pod } from '@kubernetes/client-node';
import { podNetnsName } from '../../cluster/node/addressing.ts';

/** Runs in a pod's network namespace: opens connections to each target and says what happened to each attempt. */
const PROBE = `
const net = require('net');
const targets = JSON.parse(process.argv[1]);
const once = (host, port, http) => new Promise((resolve) => {
  const start = process.hrtime.bigint();
  const socket = net.connect({ host, port });
  const done = (outcome) => { socket.destroy(); resolve({ outcome, ms: Number(process.hrtime.bigint() - start) / 1e6 }); };
  socket.setTimeout(1500, () => done('timeout'));
  socket.on('error', (e) => done(e.code === 'ECONNREFUSED' ? 'refused' : e.code === 'EHOSTUNREACH' ? 'unreachable' : e.code || 'error'));
  socket.on('connect', () => {
    if (!http) return done('connected');
    socket.end('GET / HTTP/1.0\\r\\n\\r\\n');
    let got = '';
    socket.on('data', (d) => { got += d; });
    socket.on('end', () => done(got.startsWith('HTTP/1.') ? 'answered' : 'no-answer'));
  });
});
(async () => {
  const out = [];
  for (const t of targets) { const r = []; for (let i = 0; i < t.count; i++) r.push(await once(t.host, t.port, t.http)); out.push(r); }
  process.stdout.write(JSON.stringify(out));
})();`;

export interface Attempt { outcome: string; ms: number }

export interface Target { host: string; port: number; count?: number; http?: boolean }

/** Opens the connections of `targets` (each `count` times, one after the other) from the pod's network namespace. */
export async function probeFrom(runId: string, from: V1Pod, targets: Target[]): Promise<Attempt[][]> {
  const netns = podNetnsName(runId, from.metadata!.uid!);
  const { stdout } = await promisify(execFile)('ip', ['netns', 'exec', netns, process.execPath, '-e', PROBE, JSON.stringify(targets.map((target) => ({ count: 1, http: false, ...target })))], { timeout: 120_000 });
  return JSON.parse(stdout) as Attempt[][];
}

/** Refused by the enforcer (an ICMP port unreachable: ECONNREFUSED), or dropped on the way (timed out). */
export function refused(attempt: Attempt): boolean {
  return attempt.outcome === 'refused' || attempt.outcome === 'timeout';
}

/** How many attempts had each outcome. */
export function tally(attempts: Attempt[]): Record<string, number> {
  return attempts.reduce<Record<string, number>>((counts, attempt) => ({ ...counts, [attempt.outcome]: (counts[attempt.outcome] ?? 0) + 1 }), {});
}

/** The attempts' median and mean times with their outcomes. */
export function summary(attempts: Attempt[]): string {
  const ms = attempts.map((attempt) => attempt.ms).sort((a, b) => a - b);
  return `median ${ms[Math.floor(ms.length / 2)]!.toFixed(3)} ms, mean ${(ms.reduce((a, b) => a + b, 0) / ms.length).toFixed(3)} ms (${JSON.stringify(tally(attempts))})`;
}
