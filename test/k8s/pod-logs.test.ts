import { readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { CoreV1Api, Log } from '@kubernetes/client-node';
import type { KubeConfig } from '@kubernetes/client-node';
import { testCluster, waitFor } from './support/control-plane.ts';
import { createPod, finishedPod, pod, readPod, shell } from './support/pods.ts';
import { chooseRun, decodeLogQuery } from '../cluster/kubelet/log-server.ts';
import { tailStart } from '../cluster/kubelet/container-logs.ts';

const cluster = testCluster('pod-logs');
const logs = suite('pods/log through the apiserver to the kubelet\'s /containerLogs');
logs.after(() => cluster.stop());

const readLog = (kc: KubeConfig, namespace: string, name: string, options: Record<string, unknown> = {}) =>
  kc.makeApiClient(CoreV1Api).readNamespacedPodLog({ name, namespace, container: 'app', ...options });

/** The apiserver's answer to a refused log request: its code and message. */
async function refusal(request: Promise<unknown>): Promise<{ code: number; message: string }> {
  const err = await request.then(() => undefined, (e: { code: number; body: string }) => e);
  assert.ok(err, 'the request was refused');
  return { code: err.code, message: JSON.parse(err.body).message };
}

/** A follow: what it received so far, and everything once the apiserver ends the response. */
function follow(kc: KubeConfig, namespace: string, name: string, options: Record<string, unknown> = {}): { sofar(): string; all: Promise<string> } {
  const sink = new PassThrough();
  const chunks: Buffer[] = [];
  sink.on('data', (chunk: Buffer) => chunks.push(chunk));
  const sofar = () => Buffer.concat(chunks).toString('utf8');
  // The client pipes the response into the sink, which ends when the apiserver ends the response.
  const all = new Promise<void>((resolve, reject) => {
    sink.on('end', resolve).on('error', reject);
    new Log(kc).log(namespace, name, 'app', sink, { follow: true, ...options }).catch(reject);
  }).then(sofar);
  return { sofar, all };
}

logs('a finished container: all lines of both streams, tailLines, limitBytes, timestamps, since', async () => {
  const { kc, namespace } = await cluster.get();
  // stdout and stderr are two pipes, read apart: the pauses keep the order of the two streams' lines the file's.
  await createPod(kc, namespace, pod('done', { restartPolicy: 'Never', containers: [shell('app', 'echo one; sleep 0.3; echo two >&2; sleep 0.3; echo three; echo four')] }));
  await finishedPod(kc, namespace, 'done');
  assert.is(await readLog(kc, namespace, 'done'), 'one\ntwo\nthree\nfour\n');
  assert.is(await readLog(kc, namespace, 'done', { tailLines: 2 }), 'three\nfour\n');
  assert.is(await readLog(kc, namespace, 'done', { tailLines: 0 }), '');
  assert.is(await readLog(kc, namespace, 'done', { limitBytes: 6 }), 'one\ntw');
  const stamped = (await readLog(kc, namespace, 'done', { timestamps: true })).trimEnd().split('\n');
  assert.is(stamped.length, 4);
  for (const line of stamped) assert.match(line, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d{1,9})?Z (one|two|three|four)$/);
  assert.ok(Date.now() - Date.parse(stamped[0]!.split(' ')[0]!) < 10 * 60_000, 'stamped with the time it was written');
  assert.is(await readLog(kc, namespace, 'done', { sinceSeconds: 3600 }), 'one\ntwo\nthree\nfour\n');
  const future = new Date(Date.now() + 3600_000).toISOString().replace(/\.\d+Z$/, 'Z');
  // The API's generated client has no sinceTime (the OpenAPI of pods/log lacks it); the log streamer sends it. A follow
  // of a finished container ends at once with what it wrote.
  assert.is(await follow(kc, namespace, 'done', { sinceTime: future }).all, '');
  assert.is(await follow(kc, namespace, 'done', { sinceTime: '2020-01-01T00:00:00Z' }).all, 'one\ntwo\nthree\nfour\n');
});

logs('previous: a restarted container\'s last run; a never-restarted one has none (400, the kubelet\'s words)', async () => {
  const { kc, namespace } = await cluster.get();
  // Each run prints its number, kept in an emptyDir, and exits 1: the kubelet restarts it.
  await createPod(kc, namespace, pod('crashing', {
    restartPolicy: 'Always',
    volumes: [{ name: 'state', emptyDir: {} }],
    containers: [shell('app', 'n=$(($(cat /state/n 2>/dev/null || echo 0) + 1)); echo $n > /state/n; echo "run $n"; echo "dying $n" >&2; exit 1',
      { volumeMounts: [{ name: 'state', mountPath: '/state' }] })],
  }));
  await waitFor('a restart', async () => ((await readPod(kc, namespace, 'crashing')).status?.containerStatuses?.[0]?.restartCount ?? 0) >= 1, 60_000);
  const restarts = async () => (await readPod(kc, namespace, 'crashing')).status!.containerStatuses![0]!;
  const before = await restarts();
  const previous = await readLog(kc, namespace, 'crashing', { previous: true });
  const after = await restarts();
  // After r restarts the last terminated run is run r (runs count from 1); a restart may fall between the reads, and
  // the status the API shows may lag the kubelet by one restart (it writes status after it restarts a container).
  const run = Number(/^run (\d+)\ndying \1\n$/.exec(previous)?.[1]);
  assert.ok(run >= before.restartCount && run <= after.restartCount + 1, `${JSON.stringify(previous)} after ${before.restartCount}..${after.restartCount} restarts`);
  assert.is(before.lastState?.terminated?.exitCode, 1);

  await createPod(kc, namespace, pod('once', { restartPolicy: 'Never', containers: [shell('app', 'echo only')] }));
  await finishedPod(kc, namespace, 'once');
  assert.equal(await refusal(readLog(kc, namespace, 'once', { previous: true })),
    { code: 400, message: 'previous terminated container "app" in pod "once" not found' });
});

logs('a container that cannot start yet, a missing pod: the kubelet\'s and the apiserver\'s refusals', async () => {
  const { kc, namespace } = await cluster.get();
  await createPod(kc, namespace, pod('unpulled', { containers: [{ name: 'app', image: 'nowhere.example/none:1' }] }));
  const waiting = await waitFor('the image pull failing', async () => {
    const state = (await readPod(kc, namespace, 'unpulled')).status?.containerStatuses?.[0]?.state?.waiting?.reason;
    return (state === 'ErrImagePull' || state === 'ImagePullBackOff') && state;
  }, 30_000);
  const refused = await refusal(readLog(kc, namespace, 'unpulled'));
  assert.is(refused.code, 400);
  const why = { ErrImagePull: 'image can\'t be pulled', ImagePullBackOff: 'trying and failing to pull image' }[waiting];
  assert.ok(refused.message === `container "app" in pod "unpulled" is waiting to start: ${why}`
    || /^container "app" in pod "unpulled" is waiting to start: (image can't be pulled|trying and failing to pull image)$/.test(refused.message), refused.message);
  assert.is((await refusal(readLog(kc, namespace, 'no-such-pod'))).code, 404);
});

logs('follow: lines written after the follow started arrive, and the response ends when the container stops', async () => {
  const { kc, namespace } = await cluster.get();
  await createPod(kc, namespace, pod('talker', {
    restartPolicy: 'Never',
    volumes: [{ name: 'gate', emptyDir: {} }],
    // Writes "later" only once the test lets it (a file the test makes in its emptyDir from the node's side).
    containers: [shell('app', 'echo first; while [ ! -e /gate/go ]; do sleep 0.1; done; echo later; echo last >&2',
      { volumeMounts: [{ name: 'gate', mountPath: '/gate' }] })],
  }));
  await waitFor('the first line', async () => (await readLog(kc, namespace, 'talker').catch(() => '')) === 'first\n', 60_000);
  const followed = follow(kc, namespace, 'talker', { tailLines: 1 });
  await waitFor('the follow open', async () => followed.sofar() === 'first\n', 30_000);
  const { cluster: node } = await cluster.get();
  await openGate(node.stateDir, namespace, 'talker');
  assert.is(await followed.all, 'first\nlater\nlast\n');
});

/** Creates `go` in the pod's `gate` emptyDir, from the node's side. */
async function openGate(stateDir: string, namespace: string, name: string): Promise<void> {
  const pods = join(stateDir, 'kubelet', 'pods');
  const uid = (await readPod((await cluster.get()).kc, namespace, name)).metadata!.uid!;
  const volumes = join(pods, uid, 'volumes');
  const gate = (await readdir(volumes, { recursive: true })).find((p) => p.endsWith('gate'));
  assert.ok(gate, `the gate volume under ${volumes}`);
  await writeFile(join(volumes, gate, 'go'), '');
}

const units = suite('the kubelet\'s log query and run choice');

units('the query is decoded and checked as the kubelet does', () => {
  const q = (s: string) => decodeLogQuery(new URLSearchParams(s), Date.parse('2026-01-01T00:00:10Z'));
  assert.equal(q('follow=true&tailLines=3&timestamps=1'), { previous: false, options: { tailLines: 3, timestamps: true, follow: true } });
  assert.equal(q('tail=all&tailLines=3'), { previous: false, options: { timestamps: false, follow: false } });
  assert.equal(q('sinceSeconds=10&previous=false'), { previous: false, options: { since: '2026-01-01T00:00:00.000000000Z', timestamps: false, follow: false } });
  assert.equal(q('tailLines=x'), { status: 400, body: '{"message": "Unable to decode query."}' });
  for (const bad of ['tailLines=-1', 'limitBytes=0', 'sinceSeconds=0', 'sinceSeconds=5&sinceTime=2026-01-01T00:00:00Z']) {
    assert.equal(q(bad), { status: 422, body: '{"message": "Invalid request."}' }, bad);
  }
});

units('the run: running, else terminated, else the last one; previous only from the last termination', () => {
  const T = '2026-01-01T00:00:00Z';
  const last = { exitCode: 1, reason: 'Error', startedAt: T, finishedAt: T, containerID: 'process://1' };
  const facts = (state: object, extra: object = {}) => ({ name: 'c', image: 'i', restartCount: 1, ready: false, started: false, state, ...extra }) as never;
  assert.equal(chooseRun('p', 'c', facts({ running: { startedAt: T } }, { containerID: 'process://2', lastState: last }), false), { containerID: 'process://2' });
  assert.equal(chooseRun('p', 'c', facts({ running: { startedAt: T } }, { containerID: 'process://2', lastState: last }), true), { containerID: 'process://1' });
  assert.equal(chooseRun('p', 'c', facts({ waiting: { reason: 'CrashLoopBackOff' } }, { lastState: last }), false), { containerID: 'process://1' });
  assert.equal(chooseRun('p', 'c', facts({ waiting: { reason: 'ContainerCreating' } }), false), { error: 'container "c" in pod "p" is waiting to start: ContainerCreating' });
  assert.equal(chooseRun('p', 'c', undefined, false), { error: 'container "c" in pod "p" is not available' });
});

units('tailLines counts lines from the end; the final newline starts none', () => {
  const data = Buffer.from('a\nb\nc\n');
  assert.equal([0, 1, 2, 3, 9].map((n) => data.subarray(tailStart(data, n)).toString()), ['', 'c\n', 'b\nc\n', 'a\nb\nc\n', 'a\nb\nc\n']);
  assert.is(tailStart(data, undefined), 0);
});

logs.run();
units.run();
