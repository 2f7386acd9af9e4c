import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { V1Pod } from '@kubernetes/client-node';
import { CrashBackoff } from '../cluster/kubelet/backoff.ts';
import { startFailure } from '../cluster/kubelet/runtime.ts';
import { exitReason, podPhase, podStatus, statusKey } from '../cluster/kubelet/status.ts';
import type { ContainerFacts, ContainerState, PodFacts } from '../cluster/kubelet/status.ts';

const T = '2026-01-01T00:00:00Z';
const exited = (exitCode: number) => ({ exitCode, reason: exitCode ? 'Error' : 'Completed', startedAt: T, finishedAt: T });
const c = (name: string, state: ContainerState, extra: Partial<ContainerFacts> = {}): ContainerFacts =>
  ({ name, image: 'node:22', state, restartCount: 0, ready: false, started: false, ...extra });
const running: ContainerState = { running: { startedAt: T } };
const facts = (containers: ContainerFacts[], initContainers: ContainerFacts[] = []): PodFacts => ({ containers, initContainers });

const status = suite('kubelet pod status (phase, conditions, back-off)');

status('phase follows the 1.20 kubelet rules per restart policy', () => {
  const ok = c('a', { terminated: exited(0) });
  const bad = c('b', { terminated: exited(2) });
  assert.is(podPhase('Never', facts([ok])), 'Succeeded');
  assert.is(podPhase('Never', facts([ok, bad])), 'Failed');
  assert.is(podPhase('OnFailure', facts([ok, bad])), 'Running');
  assert.is(podPhase('Always', facts([ok])), 'Running');
  assert.is(podPhase('Always', facts([c('a', { waiting: { reason: 'ContainerCreating' } })])), 'Pending');
  // A crash-looping container (waiting, with a last termination) counts as stopped: the pod stays Running.
  assert.is(podPhase('Always', facts([c('a', { waiting: { reason: 'CrashLoopBackOff' } }, { lastState: exited(1) })])), 'Running');
  assert.is(podPhase('Always', facts([c('a', running)])), 'Running');
});

status('init containers: pending until all exit 0; a failure fails the pod only under Never', () => {
  const main = c('main', { waiting: { reason: 'PodInitializing' } });
  assert.is(podPhase('Never', facts([main], [c('i', running)])), 'Pending');
  assert.is(podPhase('Never', facts([main], [c('i', { terminated: exited(1) })])), 'Failed');
  assert.is(podPhase('OnFailure', facts([main], [c('i', { terminated: exited(1) })])), 'Pending');
  assert.is(podPhase('Always', facts([c('main', running)], [c('i', { terminated: exited(0) })])), 'Running');
  assert.is(podPhase('Never', { ...facts([c('main', running)]), failure: { reason: 'DeadlineExceeded', message: 'm' } }), 'Failed');
});

const pod = (conditions: { type: string; status: string; lastTransitionTime?: Date }[] = []): V1Pod => ({
  metadata: { name: 'p', namespace: 'n', uid: 'u' },
  spec: { restartPolicy: 'Always', containers: [{ name: 'a' }, { name: 'b' }] },
  status: { conditions },
});

status('Ready and ContainersReady name the unready containers; transition times move only on change', () => {
  const now = new Date('2026-01-01T00:05:00.123Z');
  const before = new Date('2026-01-01T00:01:00Z');
  const s = podStatus(pod([{ type: 'PodScheduled', status: 'True', lastTransitionTime: before }, { type: 'Ready', status: 'False', lastTransitionTime: before }]),
    facts([c('a', running, { ready: true, started: true }), c('b', running, { started: true })]), now);
  const ready = s.conditions.find((x) => x.type === 'Ready')!;
  assert.equal([ready.status, ready.reason, ready.message, ready.lastTransitionTime], ['False', 'ContainersNotReady', 'containers with unready status: [b]', '2026-01-01T00:01:00Z']);
  assert.equal(s.conditions.find((x) => x.type === 'PodScheduled'), { type: 'PodScheduled', status: 'True', lastProbeTime: null, lastTransitionTime: '2026-01-01T00:01:00Z' });
  const all = podStatus(pod([{ type: 'Ready', status: 'False', lastTransitionTime: before }]),
    facts([c('a', running, { ready: true }), c('b', running, { ready: true })]), now);
  const nowReady = all.conditions.find((x) => x.type === 'Ready')!;
  assert.equal([nowReady.status, nowReady.lastTransitionTime], ['True', '2026-01-01T00:05:00Z']);
  assert.is(all.conditions.find((x) => x.type === 'ContainersReady')!.status, 'True');
});

status('the same facts give the same key (no write), a changed fact a different one', () => {
  const f = facts([c('a', running, { ready: true }), c('b', running)]);
  const at = (ms: number) => new Date(Date.parse('2026-01-01T00:00:00Z') + ms);
  assert.is(statusKey(podStatus(pod(), f, at(0))), statusKey(podStatus(pod(), f, at(200))));
  const changed = facts([c('a', running, { ready: true }), c('b', running, { restartCount: 1 })]);
  assert.is.not(statusKey(podStatus(pod(), f, at(0))), statusKey(podStatus(pod(), changed, at(0))));
});

status('crash back-off: immediate first restart, then 10 s doubling to 5 min, reset after 10 min', () => {
  const b = new CrashBackoff();
  let t = 0;
  const waits: number[] = [];
  for (let i = 0; i < 8; i++) {
    const wait = b.delayAfterExit(t);
    waits.push(wait);
    t += wait + 1000; // each run lasts a second
  }
  assert.equal(waits, [0, 10_000, 20_000, 40_000, 80_000, 160_000, 300_000, 300_000]);
  assert.is(b.delayAfterExit(t + 601_000), 0, 'a container that ran over 10 min starts over');
  assert.is(b.delayAfterExit(t + 602_000), 10_000);
});

status('exit reasons: Completed, Error, and ContainerCannotRun when the command never ran', () => {
  assert.equal(exitReason(0), { reason: 'Completed' });
  assert.equal(exitReason(3), { reason: 'Error' });
  assert.equal(exitReason(127, 'exec: "nodee": executable file not found in $PATH'),
    { reason: 'ContainerCannotRun', message: 'exec: "nodee": executable file not found in $PATH' });
});

status('a start failure is env\'s complaint about the command or the working directory, in runc\'s words', () => {
  assert.is(startFailure("env: 'nodee': No such file or directory", 'nodee', '/'), 'exec: "nodee": executable file not found in $PATH');
  assert.is(startFailure('env: ‘/app/run’: Permission denied', '/app/run', '/'), 'exec: "/app/run": permission denied');
  assert.is(startFailure("env: './run': No such file or directory", './run', '/'), 'exec: "./run": stat ./run: no such file or directory');
  assert.is(startFailure("env: cannot change directory to '/w': Permission denied", 'node', '/w'),
    'chdir to cwd ("/w") set in config.json failed: permission denied');
  // The same words about another file (from the program itself) are its own output.
  assert.is(startFailure("env: 'other': No such file or directory", 'sh', '/'), undefined);
  assert.is(startFailure('boom', 'node', '/'), undefined);
});

status.run();
