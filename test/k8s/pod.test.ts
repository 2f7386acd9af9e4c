import { existsSync, readdirSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { CoordinationV1Api, CoreV1Api, Watch } from '@kubernetes/client-node';
import type { V1Pod } from '@kubernetes/client-node';
import { IMAGE_ROOT } from '../cluster/kubelet/kubelet.ts';
import { testCluster, waitFor } from './support/control-plane.ts';
import { containerLines, createPod, finishedPod, firstContainer, pod, processesWith, readPod, shell } from './support/pods.ts';

const cluster = testCluster('pods');
const pods = suite('Pods on the process kubelet');
pods.after(() => cluster.stop());

pods('the node: registered with capacity and its InternalIP, Ready, its Lease renewed', async () => {
  const { kc, cluster: node } = await cluster.get();
  const core = kc.makeApiClient(CoreV1Api);
  const registered = await core.readNode({ name: node.nodeName });
  assert.equal(registered.status?.addresses?.find((a) => a.type === 'InternalIP')?.address, node.network.nodeIp);
  for (const resource of ['cpu', 'memory', 'pods', 'ephemeral-storage']) assert.ok(registered.status?.allocatable?.[resource], `allocatable ${resource}`);
  assert.is(registered.status?.conditions?.find((c) => c.type === 'Ready')?.status, 'True');
  const leases = kc.makeApiClient(CoordinationV1Api);
  const lease = await leases.readNamespacedLease({ name: node.nodeName, namespace: 'kube-node-lease' });
  assert.is(lease.spec?.holderIdentity, node.nodeName);
  // The client leaves MicroTime fields as the RFC 3339 strings the API sent, six fractional digits.
  const renewTime = (l: typeof lease) => String(l.spec?.renewTime);
  assert.match(renewTime(lease), /\.\d{6}Z$/);
  const renewed = await waitFor('the Lease renewed', async () => {
    const now = await leases.readNamespacedLease({ name: node.nodeName, namespace: 'kube-node-lease' });
    return Date.parse(renewTime(now)) > Date.parse(renewTime(lease)) && now;
  }, 25_000);
  assert.ok(Math.abs(Date.now() - Date.parse(renewTime(renewed))) < 15_000, 'renewed just now');
});

pods('secret and configMap volumes: items, paths and modes as seen from inside the container', async () => {
  const { kc, namespace, podLog } = await cluster.get();
  const core = kc.makeApiClient(CoreV1Api);
  await core.createNamespacedSecret({ namespace, body: { metadata: { name: 'creds' }, stringData: { user: 'alice', password: 'hunter2' } } });
  await core.createNamespacedConfigMap({ namespace, body: { metadata: { name: 'settings' }, data: { 'app.json': '{"port":8080}', unused: 'x' } } });
  await createPod(kc, namespace, pod('volumes', {
    restartPolicy: 'Never',
    volumes: [
      { name: 'secret', secret: { secretName: 'creds', defaultMode: 0o400 } },
      { name: 'config', configMap: { name: 'settings', items: [{ key: 'app.json', path: 'conf/app.json', mode: 0o640 }] } },
    ],
    containers: [shell('check', 'cd /etc/creds && for f in user password; do echo "$f $(stat -c %a $f) $(cat $f)"; done; ' +
      'find /etc/app -type f; echo "app.json $(stat -c %a /etc/app/conf/app.json) $(cat /etc/app/conf/app.json)"', {
      volumeMounts: [{ name: 'secret', mountPath: '/etc/creds', readOnly: true }, { name: 'config', mountPath: '/etc/app' }],
    })],
  }));
  const done = await finishedPod(kc, namespace, 'volumes');
  const lines = containerLines(await podLog('volumes'), 'check');
  assert.is(done.status?.phase, 'Succeeded', lines.join('\n'));
  assert.equal(lines, ['user 400 alice', 'password 400 hunter2', '/etc/app/conf/app.json', 'app.json 640 {"port":8080}']);
});

pods('env: $(VAR) expansion and $$ escapes, envFrom with a prefix, fieldRefs, args expanded', async () => {
  const { kc, namespace, podLog } = await cluster.get();
  const core = kc.makeApiClient(CoreV1Api);
  await core.createNamespacedConfigMap({ namespace, body: { metadata: { name: 'env' }, data: { HOST: 'db', PORT: '5432' } } });
  await createPod(kc, namespace, pod('env', {
    restartPolicy: 'Never',
    containers: [{
      name: 'show', image: 'node:22', command: ['sh', '-c'],
      args: ['echo "url=$URL literal=$LITERAL name=$NAME ns=$NS ip=$IP cfg=$CFG_HOST arg=$(NAME)"'],
      envFrom: [{ configMapRef: { name: 'env' }, prefix: 'CFG_' }],
      env: [
        { name: 'URL', value: 'postgres://$(CFG_HOST):$(CFG_PORT)/$(MISSING)' },
        { name: 'LITERAL', value: '$$(CFG_HOST)' },
        { name: 'NAME', valueFrom: { fieldRef: { fieldPath: 'metadata.name' } } },
        { name: 'NS', valueFrom: { fieldRef: { fieldPath: 'metadata.namespace' } } },
        { name: 'IP', valueFrom: { fieldRef: { fieldPath: 'status.podIP' } } },
      ],
    }],
  }));
  const done = await finishedPod(kc, namespace, 'env');
  assert.is(done.status?.phase, 'Succeeded');
  assert.equal(containerLines(await podLog('env'), 'show'),
    [`url=postgres://db:5432/$(MISSING) literal=$(CFG_HOST) name=env ns=${namespace} ip=${done.status?.podIP} cfg=db arg=env`]);
});

pods('runAsUser and runAsGroup are the process credentials; a pod-level value applies unless the container sets its own', async () => {
  const { kc, namespace, podLog } = await cluster.get();
  await createPod(kc, namespace, pod('user', {
    restartPolicy: 'Never',
    securityContext: { runAsUser: 1000, runAsGroup: 3000 },
    containers: [
      shell('pod-level', 'echo "$(id -u) $(id -g) $(id -G)"'),
      shell('own', 'echo "$(id -u) $(id -g)"', { securityContext: { runAsUser: 4242 } }),
    ],
  }));
  const done = await finishedPod(kc, namespace, 'user');
  assert.is(done.status?.phase, 'Succeeded');
  const log = await podLog('user');
  assert.equal(containerLines(log, 'pod-level'), ['1000 3000 3000']);
  assert.equal(containerLines(log, 'own'), ['4242 3000']);
});

pods('an image missing from the image map fails with ErrImagePull, then ImagePullBackOff, and never starts', async () => {
  const { kc, namespace } = await cluster.get();
  const seen: { reason?: string; message?: string }[] = [];
  const watch = await new Watch(kc).watch(`/api/v1/namespaces/${namespace}/pods`, { fieldSelector: 'metadata.name=unmapped' },
    (_type, p: V1Pod) => {
      const waiting = p.status?.containerStatuses?.[0]?.state?.waiting;
      if (waiting) seen.push({ reason: waiting.reason, message: waiting.message });
    }, () => {});
  try {
    await createPod(kc, namespace, pod('unmapped', { containers: [{ name: 'app', image: 'registry.invalid/nothing:1', command: ['true'] }] }));
    await waitFor('ImagePullBackOff after ErrImagePull', async () =>
      seen.some((s) => s.reason === 'ErrImagePull') && seen.some((s) => s.reason === 'ImagePullBackOff'));
  } finally {
    watch.abort();
  }
  const pull = seen.find((s) => s.reason === 'ErrImagePull')!;
  assert.match(pull.message ?? '', 'Failed to pull image "registry.invalid/nothing:1"');
  assert.match(pull.message ?? '', 'node:*', 'the message lists what the image map has');
  const current = await readPod(kc, namespace, 'unmapped');
  assert.is(current.status?.phase, 'Pending');
  assert.is(current.status?.podIP, undefined, 'no network was set up for it');
  const events = (await kc.makeApiClient(CoreV1Api).listNamespacedEvent({ namespace, fieldSelector: 'involvedObject.name=unmapped' })).items;
  assert.ok(events.some((e) => e.reason === 'Failed' && e.type === 'Warning' && e.message === pull.message), 'a Failed event with the pull error');
});

pods('a command that is not on PATH: the container cannot run, and says so', async () => {
  const { kc, namespace } = await cluster.get();
  await createPod(kc, namespace, pod('typo', { restartPolicy: 'Never', containers: [{ name: 'app', image: 'node:22', command: ['nodee', 'server.js'] }] }));
  const done = await finishedPod(kc, namespace, 'typo');
  assert.is(done.status?.phase, 'Failed');
  const terminated = done.status?.containerStatuses?.[0].state?.terminated;
  assert.equal([terminated?.exitCode, terminated?.reason, terminated?.message],
    [127, 'ContainerCannotRun', 'exec: "nodee": executable file not found in $PATH']);
  const events = (await kc.makeApiClient(CoreV1Api).listNamespacedEvent({ namespace, fieldSelector: 'involvedObject.name=typo' })).items;
  assert.ok(events.some((e) => e.type === 'Warning' && e.reason === 'Failed' &&
    e.message === 'Error: failed to start container "app": exec: "nodee": executable file not found in $PATH'), 'a Failed event with the reason');
});

pods('a command that cannot start and will be restarted: RunContainerError with the reason, then back-off', async () => {
  const { kc, namespace, podLog } = await cluster.get();
  const seen: string[] = [];
  const watch = await new Watch(kc).watch(`/api/v1/namespaces/${namespace}/pods`, { fieldSelector: 'metadata.name=no-exec' },
    (_type, p: V1Pod) => {
      const waiting = p.status?.containerStatuses?.[0]?.state?.waiting;
      if (waiting) seen.push(`${waiting.reason}: ${waiting.message ?? ''}`);
    }, () => {});
  try {
    // A file that is there but not executable: permission denied.
    await kc.makeApiClient(CoreV1Api).createNamespacedConfigMap({ namespace, body: { metadata: { name: 'no-exec' }, data: { run: 'echo never\n' } } });
    await createPod(kc, namespace, pod('no-exec', {
      restartPolicy: 'OnFailure', securityContext: { runAsUser: 1000 },
      volumes: [{ name: 'app', configMap: { name: 'no-exec', defaultMode: 0o644 } }],
      containers: [{ name: 'app', image: 'node:22', command: ['/app/run'], volumeMounts: [{ name: 'app', mountPath: '/app' }] }],
    }));
    await waitFor('RunContainerError, then CrashLoopBackOff', async () =>
      seen.some((s) => s.startsWith('RunContainerError')) && seen.some((s) => s.startsWith('CrashLoopBackOff')));
  } finally {
    watch.abort();
  }
  assert.ok(seen.includes('RunContainerError: failed to start container "app": exec: "/app/run": permission denied'), seen.join('\n'));
  const status = await firstContainer(kc, namespace, 'no-exec');
  assert.equal([status?.lastState?.terminated?.reason, status?.lastState?.terminated?.message], ['ContainerCannotRun', 'exec: "/app/run": permission denied']);
  assert.is(await podLog('no-exec'), '', 'the runtime\'s error is not the container\'s output');
  await kc.makeApiClient(CoreV1Api).deleteNamespacedPod({ name: 'no-exec', namespace, gracePeriodSeconds: 0 });
});

pods('a pod deleted mid-run: SIGTERM, then its processes are gone, its namespace and files removed, the pod finalized', async () => {
  const test = await cluster.get();
  const { kc, namespace } = test;
  const marker = `marker-${randomBytes(4).toString('hex')}`;
  await createPod(kc, namespace, pod('doomed', {
    terminationGracePeriodSeconds: 2,
    containers: [shell('run', `trap 'exit 0' TERM; while :; do sleep 0.2; done # ${marker}`)],
  }));
  const running = await waitFor('pod doomed running', async () => {
    const p = await readPod(kc, namespace, 'doomed');
    return p.status?.containerStatuses?.[0]?.state?.running && p;
  });
  const uid8 = running.metadata!.uid!.slice(0, 8);
  const netnsOfPod = () => readdirSync('/run/netns').filter((n) => n.endsWith(uid8));
  assert.ok(processesWith(marker).length > 0, 'the container runs as a process here');
  assert.is(netnsOfPod().length, 1, 'the pod has its network namespace');

  await kc.makeApiClient(CoreV1Api).deleteNamespacedPod({ name: 'doomed', namespace });
  await waitFor('pod doomed finalized', async () => (await readPod(kc, namespace, 'doomed').then(() => false, (err) => err?.code === 404)));
  assert.equal(processesWith(marker), [], 'no process of the pod is left');
  assert.equal(netnsOfPod(), [], 'its network namespace is removed');
  assert.not.ok(existsSync(join(test.cluster.stateDir, 'kubelet', 'pods', running.metadata!.uid!)), 'its files are removed');
});

pods('a pod removed outright (force, grace 0) has its processes killed and its namespace and files removed', async () => {
  const test = await cluster.get();
  const { kc, namespace } = test;
  const marker = `forced-${randomBytes(4).toString('hex')}`;
  await createPod(kc, namespace, pod('forced', { containers: [shell('run', `sleep 600 # ${marker}`)] }));
  const running = await waitFor('pod forced running', async () => {
    const p = await readPod(kc, namespace, 'forced');
    return p.status?.containerStatuses?.[0]?.state?.running && p;
  });
  const uid = running.metadata!.uid!;
  await kc.makeApiClient(CoreV1Api).deleteNamespacedPod({ name: 'forced', namespace, body: { gracePeriodSeconds: 0 } });
  assert.is((await readPod(kc, namespace, 'forced').catch((err) => err)).code, 404, 'the API object is gone at once');
  await waitFor('the forced pod\'s processes gone', async () => processesWith(marker).length === 0, 20_000);
  await waitFor('the forced pod\'s files gone', async () => !existsSync(join(test.cluster.stateDir, 'kubelet', 'pods', uid)), 20_000);
  assert.equal(readdirSync('/run/netns').filter((n) => n.endsWith(uid.slice(0, 8))), [], 'its network namespace is removed');
});

pods('activeDeadlineSeconds: the pod is killed and fails with DeadlineExceeded', async () => {
  const { kc, namespace } = await cluster.get();
  const marker = `deadline-${randomBytes(4).toString('hex')}`;
  await createPod(kc, namespace, pod('deadline', {
    restartPolicy: 'Never', activeDeadlineSeconds: 2, terminationGracePeriodSeconds: 1,
    containers: [shell('run', `sleep 60 # ${marker}`)],
  }));
  const done = await finishedPod(kc, namespace, 'deadline');
  assert.is(done.status?.phase, 'Failed');
  assert.is(done.status?.reason, 'DeadlineExceeded');
  assert.match(done.status?.message ?? '', 'longer than the specified deadline');
  // The phase is reported at once; the container's end follows when the grace period is over.
  const terminated = await waitFor('deadline container terminated', async () => (await firstContainer(kc, namespace, 'deadline'))?.state?.terminated);
  assert.is(terminated.exitCode, 137, 'sleep as PID 1 ignores SIGTERM and is killed');
  await waitFor('deadline pod processes gone', async () => processesWith(marker).length === 0, 10_000);
});

pods('a failing liveness probe kills and restarts the container', async () => {
  const { kc, namespace } = await cluster.get();
  await createPod(kc, namespace, pod('liveness', {
    terminationGracePeriodSeconds: 1,
    containers: [shell('app', 'touch /tmp/healthy; sleep 2; rm /tmp/healthy; exec sleep 60', {
      livenessProbe: { exec: { command: ['test', '-f', '/tmp/healthy'] }, periodSeconds: 1, failureThreshold: 2 },
    })],
  }));
  const restarted = await waitFor('liveness restart', async () => {
    const s = await firstContainer(kc, namespace, 'liveness');
    return (s?.restartCount ?? 0) >= 1 && s?.state?.running && s;
  }, 30_000);
  assert.is(restarted.lastState?.terminated?.exitCode, 137, 'killed after the grace period (sleep as PID 1 ignores SIGTERM)');
});

pods('a startupProbe keeps the container not started and not ready until it passes', async () => {
  const { kc, namespace } = await cluster.get();
  await createPod(kc, namespace, pod('slow-start', {
    terminationGracePeriodSeconds: 1,
    containers: [shell('app', 'sleep 2; touch /tmp/started; exec sleep 600', {
      startupProbe: { exec: { command: ['test', '-f', '/tmp/started'] }, periodSeconds: 1, failureThreshold: 30 },
    })],
  }));
  const starting = await waitFor('running, not yet started', async () => {
    const s = await firstContainer(kc, namespace, 'slow-start');
    return s?.state?.running && s;
  });
  assert.equal([starting.started, starting.ready], [false, false]);
  const started = await waitFor('started and ready', async () => {
    const s = await firstContainer(kc, namespace, 'slow-start');
    return s?.ready && s;
  }, 20_000);
  assert.equal([started.started, started.restartCount], [true, 0]);
});

pods('an emptyDir over its sizeLimit gets the pod evicted', async () => {
  const { kc, namespace } = await cluster.get();
  await createPod(kc, namespace, pod('greedy', {
    restartPolicy: 'Never', terminationGracePeriodSeconds: 1,
    volumes: [{ name: 'scratch', emptyDir: { sizeLimit: '1Mi' } }],
    containers: [shell('fill', 'head -c 3000000 /dev/zero > /scratch/big; sleep 60', { volumeMounts: [{ name: 'scratch', mountPath: '/scratch' }] })],
  }));
  const done = await finishedPod(kc, namespace, 'greedy');
  assert.is(done.status?.phase, 'Failed');
  assert.is(done.status?.reason, 'Evicted');
  assert.match(done.status?.message ?? '', 'Usage of EmptyDir volume "scratch" exceeds the limit "1Mi"');
});

pods('the node image runs the project\'s Node 22, with npm and npx of the same line on PATH, as any user, under any volume', async () => {
  const { kc, namespace, podLog } = await cluster.get();
  // The image's files are its own: an emptyDir at /tmp (where a checkout may live on the host) hides nothing of it.
  await createPod(kc, namespace, pod('node-image', {
    restartPolicy: 'Never',
    securityContext: { runAsUser: 1000, runAsGroup: 1000 },
    volumes: [{ name: 'tmp', emptyDir: {} }],
    containers: [shell('versions', 'node --version; npm --version; npx --version; echo "$PATH"', { volumeMounts: [{ name: 'tmp', mountPath: '/tmp' }] })],
  }));
  const done = await finishedPod(kc, namespace, 'node-image');
  const [node, npm, npx, path] = containerLines(await podLog('node-image'), 'versions');
  assert.is(done.status?.phase, 'Succeeded', `${node} ${npm}`);
  assert.match(node, /^v22\./);
  assert.match(npm, /^10\./);
  assert.is(npx, npm);
  assert.ok(path.startsWith(`${IMAGE_ROOT}/test/cluster/kubelet/images/node:`), path);
});

pods('the service-account token: the admission\'s secret volume by default, a TokenRequest for a projected one, none when opted out', async () => {
  const { kc, namespace, podLog } = await cluster.get();
  const dir = '/var/run/secrets/kubernetes.io/serviceaccount';
  await createPod(kc, namespace, {
    metadata: { name: 'tokens' },
    spec: {
      restartPolicy: 'Never',
      volumes: [{ name: 'bound', projected: { sources: [{ serviceAccountToken: { path: 'token', audience: 'walrus', expirationSeconds: 600 } }] } }],
      containers: [shell('read', `cat ${dir}/namespace; echo; head -c 3 ${dir}/token; echo; cut -d. -f2 /bound/token`, { volumeMounts: [{ name: 'bound', mountPath: '/bound' }] })],
    },
  });
  await createPod(kc, namespace, pod('no-token', { restartPolicy: 'Never', containers: [shell('read', `if [ -e ${dir}/token ]; then echo token; else echo none; fi`)] }));
  const [withToken, without] = await Promise.all([finishedPod(kc, namespace, 'tokens'), finishedPod(kc, namespace, 'no-token')]);
  assert.is(withToken.status?.phase, 'Succeeded');
  const [ns, tokenStart, boundClaims] = containerLines(await podLog('tokens'), 'read');
  assert.is(ns, namespace);
  assert.is(tokenStart, 'eyJ', 'a JWT');
  const claims = JSON.parse(Buffer.from(boundClaims, 'base64url').toString('utf8')) as { aud: string[]; sub: string };
  assert.equal(claims.aud, ['walrus']);
  assert.is(claims.sub, `system:serviceaccount:${namespace}:default`);
  assert.is(without.status?.phase, 'Succeeded');
  assert.equal(containerLines(await podLog('no-token'), 'read'), ['none']);
});

pods('in-cluster: the kubernetes Service variables, the token and its CA reach the API as the pod\'s service account', async () => {
  const { kc, namespace, podLog } = await cluster.get();
  const script = `
    const fs = require('node:fs');
    const dir = '/var/run/secrets/kubernetes.io/serviceaccount';
    const ns = fs.readFileSync(dir + '/namespace', 'utf8');
    require('node:https').get({
      host: process.env.KUBERNETES_SERVICE_HOST, port: process.env.KUBERNETES_SERVICE_PORT, path: '/api/v1/namespaces/' + ns + '/pods',
      ca: fs.readFileSync(dir + '/ca.crt'), headers: { authorization: 'Bearer ' + fs.readFileSync(dir + '/token', 'utf8') },
    }, (res) => { let body = ''; res.on('data', (c) => body += c).on('end', () => console.log(res.statusCode, JSON.parse(body).message)); })
      .on('error', (err) => { console.log('error', err.message); process.exitCode = 1; });`;
  await createPod(kc, namespace, { metadata: { name: 'in-cluster' }, spec: { restartPolicy: 'Never', containers: [{ name: 'api', image: 'node:22', command: ['node', '-e', script] }] } });
  const done = await finishedPod(kc, namespace, 'in-cluster');
  const lines = containerLines(await podLog('in-cluster'), 'api');
  assert.is(done.status?.phase, 'Succeeded', lines.join('\n'));
  // TLS verified against the service account's CA, the token authenticated: RBAC (not authentication) refuses.
  assert.equal(lines, [`403 pods is forbidden: User "system:serviceaccount:${namespace}:default" cannot list resource "pods" in API group "" in the namespace "${namespace}"`]);
});

pods.run();
