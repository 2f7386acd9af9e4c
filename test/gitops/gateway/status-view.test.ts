import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { CoreV1Event, V1ContainerStatus, V1Deployment, V1Pod } from '@kubernetes/client-node';
import type { WalrusApp } from '../../../src/ports/walrus-app.ts';
import { eventsView, releasesView, statusView } from '../../../src/gitops/gateway/status-view.ts';
import { releaseOutputConfigMap } from '../../../src/gitops/templates/release-output.ts';
import { ANNOTATIONS } from '../../../src/gitops/templates/names.ts';

const A = 'a'.repeat(40);
const B = 'b'.repeat(40);
const ref = { namespace: 'tenant-1', name: 'lease-1' };
const app = (status: WalrusApp['status']): WalrusApp => ({ apiVersion: 'gitops.walrus-git.dev/v1alpha1', kind: 'WalrusApp', metadata: { ...ref, uid: 'u' }, spec: { repository: 'walrus://0x1' }, status });
const condition = (type: 'Ready' | 'Built', status: 'True' | 'False' | 'Unknown', reason: string, message = '') => ({ type, status, reason, message, lastTransitionTime: '2026-11-29T04:00:00Z' });
const deployment = (desired: number, ready: number, updated = desired): V1Deployment => ({ spec: { replicas: desired, selector: {}, template: {} }, status: { readyReplicas: ready, updatedReplicas: updated } });
const pod = (name: string, container: Partial<V1ContainerStatus> = {}): V1Pod => ({
  metadata: { name }, status: { phase: 'Running', containerStatuses: [{ name: 'app', image: '', imageID: '', ready: false, restartCount: 0, state: { running: {} }, ...container }] },
});

const running = { id: '0xl', end: null };
const status = suite("a lease's app status, in the tenant's words");
status('live: the serving commit, since when, the URL', () => {
  const view = statusView(running, ref, app({
    lastAppliedRevision: A, url: 'http://lease-1.apps.test/', conditions: [condition('Ready', 'True', 'Succeeded')],
    history: [{ commit: A, result: 'Released', time: '2026-11-29T03:00:00Z', message: 'released' }],
  }), deployment(2, 2), [pod('p-1'), pod('p-2')]);
  assert.is(view.phase, 'Live');
  assert.equal(view.serving, { commit: A, since: '2026-11-29T03:00:00Z' });
  assert.is(view.url, 'http://lease-1.apps.test/');
  assert.equal(view.replicas, { desired: 2, ready: 2, updated: 2 });
});
status('a commit whose tests failed: Refused with TestsFailed and the message, the old commit still serving', () => {
  const view = statusView(running, ref, app({
    head: { ref: 'refs/heads/main', commit: B, seq: 2, pusher: '0x2', transaction: 't' }, lastAppliedRevision: A, failedRevision: B,
    conditions: [condition('Ready', 'True', 'Succeeded'), condition('Built', 'False', 'TestsFailed', 'not ok 1')],
    history: [{ commit: B, result: 'BuildFailed', time: '2026-11-29T04:00:00Z', message: "the app's tests failed (exit code 1):\nnot ok 1" }, { commit: A, result: 'Released', time: 't', message: '' }],
  }), deployment(1, 1), [pod('p-1')]);
  assert.is(view.phase, 'Refused');
  assert.equal(view.refused, { commit: B, reason: 'TestsFailed', message: "the app's tests failed (exit code 1):\nnot ok 1", time: '2026-11-29T04:00:00Z' });
  assert.match(view.message, /keeps serving/);
});
status('a crash-looping replica: Failing, its restarts and how its last run ended', () => {
  const view = statusView(running, ref, app({ lastAppliedRevision: A, conditions: [condition('Ready', 'False', 'Progressing')] }), deployment(1, 0), [pod('p-1', {
    restartCount: 4, state: { waiting: { reason: 'CrashLoopBackOff', message: 'back-off 40s' } },
    lastState: { terminated: { exitCode: 137, reason: 'OOMKilled', finishedAt: new Date('2026-11-29T04:01:00Z') } },
  })]);
  assert.is(view.phase, 'Failing');
  assert.match(view.message, /p-1 is crash-looping \(4 restarts, last exit OOMKilled code 137\)/);
  assert.equal(view.pods[0]!.containers[0]!.lastTermination, { reason: 'OOMKilled', exitCode: 137, finishedAt: '2026-11-29T04:01:00.000Z' });
  const once = statusView(running, ref, app({ lastAppliedRevision: A }), deployment(1, 0), [pod('p-1', {
    restartCount: 1, state: { waiting: { reason: 'CrashLoopBackOff', message: 'back-off 10s' } }, lastState: { terminated: { exitCode: 4, reason: 'Error' } },
  })]);
  assert.is(once.message, 'p-1 is crash-looping (1 restart, last exit Error code 4)');
});
status('a build in progress names the step its newest pod runs: the test step while the app\'s tests run', () => {
  const buildPod = (commit: string, created: string, init: Record<string, 'done' | 'running' | 'waiting'>): V1Pod => ({
    metadata: { name: `b-${created}`, creationTimestamp: new Date(created), annotations: { [ANNOTATIONS.commit]: commit } },
    status: {
      initContainerStatuses: Object.entries(init).map(([name, at]) => ({
        name, image: '', imageID: '', ready: false, restartCount: 0,
        state: at === 'done' ? { terminated: { exitCode: 0 } } : at === 'running' ? { running: {} } : { waiting: { reason: 'PodInitializing' } },
      })),
    },
  });
  const building = app({ build: { commit: B, configHash: 'c', attempt: 2 } as never, conditions: [condition('Built', 'Unknown', 'Building')] });
  const pods = [
    buildPod(B, '2026-11-29T04:00:00Z', { checkout: 'done', manifest: 'done', build: 'running', test: 'waiting' }),
    buildPod(B, '2026-11-29T04:05:00Z', { checkout: 'done', manifest: 'done', build: 'done', test: 'running' }),
    buildPod(A, '2026-11-29T04:09:00Z', { checkout: 'running' }),
  ];
  assert.equal(statusView(running, ref, building, null, [], pods).building, { commit: B, attempt: 2, step: 'test' });
  assert.equal(statusView(running, ref, building, null, [], []).building, { commit: B, attempt: 2, step: null });
});
status('no app yet: NotDeployed, saying why', () => {
  assert.is(statusView(running, ref, null, null, []).phase, 'NotDeployed');
  assert.is(statusView(running, ref, null, null, []).ended, null);
});
status('an ended lease: Ended, why as the chain recorded it, who and when, whether its app is still there or not', () => {
  const atMs = Date.parse('2026-11-29T05:00:00Z');
  const ranOut = { id: '0xl', end: { reason: 'funds_ran_out' as const, by: '0xp', byTenant: false, atMs } };
  const gone = statusView(ranOut, ref, null, null, []);
  assert.is(gone.phase, 'Ended');
  assert.is(gone.message, 'the lease ended: its funds ran out (closed by the provider) at 2026-11-29T05:00:00Z');
  assert.equal(gone.ended, { reason: 'funds_ran_out', by: '0xp', at: '2026-11-29T05:00:00.000Z', message: 'its funds ran out (closed by the provider) at 2026-11-29T05:00:00Z' });
  const closed = { id: '0xl', end: { reason: 'closed_by_tenant' as const, by: '0xt', byTenant: true, atMs } };
  const leaving = statusView(closed, ref, app({ lastAppliedRevision: A, conditions: [condition('Ready', 'True', 'Available')] }), deployment(1, 1), [pod('p-1')]);
  assert.is(leaving.phase, 'Ended', 'not Live: the lease is over even while its app is still there');
  assert.is(leaving.message, 'the lease ended: closed by the tenant at 2026-11-29T05:00:00Z; the provider removes its app');
  assert.is(leaving.pods.length, 1, 'what is left of the app is still shown');
});
status.run();

const releases = suite('releases with their kept build output');
releases('a refused commit carries its build output and the build\'s own reason; a build not in the history still shows', () => {
  const owner = app({});
  const output = (commit: string, result: string, time: string) => releaseOutputConfigMap(owner, { commit, configHash: 'c', attempt: 1, result, time, steps: [{ name: 'test', exitCode: 1, output: 'not ok 1' }] });
  const views = releasesView(app({ history: [{ commit: B, result: 'BuildFailed', time: '2026-11-29T04:00:00Z', message: 'tests failed' }] }),
    [output(B, 'TestsFailed', '2026-11-29T04:00:00Z'), output(A, 'Built', '2026-11-29T05:00:00Z')]);
  assert.equal(views.map((view) => [view.commit, view.result]), [[A, 'Built'], [B, 'TestsFailed']]);
  assert.is(views[1]!.output!.steps[0]!.output, 'not ok 1');
});
releases.run();

const events = suite("the app's events, newest first");
events('only the app\'s own objects (its pods, Jobs, Deployment), newest first, bounded', () => {
  const event = (name: string, time: string, reason: string): CoreV1Event => ({ metadata: {}, involvedObject: { kind: 'Pod', name }, reason, lastTimestamp: new Date(time), message: reason, type: 'Normal', count: 1 });
  const views = eventsView([event('lease-1-abc', '2026-11-29T04:00:00Z', 'Started'), event('other-app', '2026-11-29T05:00:00Z', 'Other'), event('lease-1', '2026-11-29T04:30:00Z', 'BuildStarted')], 'lease-1', 5);
  assert.equal(views.map((view) => view.reason), ['BuildStarted', 'Started']);
  assert.is(eventsView([event('lease-1', '2026-11-29T04:00:00Z', 'A'), event('lease-1', '2026-11-29T04:01:00Z', 'B')], 'lease-1', 1).length, 1);
});
events.run();
