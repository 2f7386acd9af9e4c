import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { V1Container, V1Pod } from '@kubernetes/client-node';
import { ContainerConfigError, containerArgv, containerEnv, expand, mappingFor, processEnv, serviceEnv } from '../cluster/kubelet/env.ts';

const env = suite('kubelet env and argv (as Kubernetes defines them)');

env('$(VAR) expands, $$ escapes, unknown and malformed references stay as written', () => {
  const vars = mappingFor(new Map([['A', 'x'], ['EMPTY', '']]));
  assert.is(expand('$(A)-$(A)', vars), 'x-x');
  assert.is(expand('$$(A)', vars), '$(A)');
  assert.is(expand('$$$(A)', vars), '$x');
  assert.is(expand('$(MISSING)', vars), '$(MISSING)');
  assert.is(expand('$(EMPTY)!', vars), '!');
  assert.is(expand('$A and $', vars), '$A and $');
  assert.is(expand('$(A', vars), '$(A');
  assert.is(expand('a$$b', vars), 'a$b');
  assert.is(expand('$()', vars), '$()');
});

const pod: V1Pod = {
  metadata: { name: 'p', namespace: 'ns', uid: 'u-1', labels: { app: 'web' } },
  spec: { nodeName: 'n1', serviceAccountName: 'default', containers: [] },
};
const sources = {
  configMaps: new Map([['cfg', { MODE: 'fast', 'bad key': 'skipped', LEVEL: '$(MODE)' }]]),
  secrets: new Map([['sec', { TOKEN: 's3cret' }]]),
  services: new Map<string, string>(),
};

env('envFrom first, then env in order, each value expanded against what came before', () => {
  const container: V1Container = {
    name: 'c',
    envFrom: [{ configMapRef: { name: 'cfg' } }, { secretRef: { name: 'sec' }, prefix: 'S_' }],
    env: [
      { name: 'URL', value: 'http://$(HOST):$(PORT)/' },
      { name: 'HOST', value: 'h' },
      { name: 'AGAIN', value: '$(HOST)/$(MODE)/$$(HOST)' },
      { name: 'NAME', valueFrom: { fieldRef: { fieldPath: 'metadata.name' } } },
      { name: 'IP', valueFrom: { fieldRef: { fieldPath: 'status.podIP' } } },
      { name: 'APP', valueFrom: { fieldRef: { fieldPath: "metadata.labels['app']" } } },
      { name: 'KEY', valueFrom: { secretKeyRef: { name: 'sec', key: 'TOKEN' } } },
      { name: 'MODE', value: 'slow' },
    ],
  };
  const result = containerEnv(pod, container, sources, { podIP: '10.244.0.5' });
  assert.equal(Object.fromEntries(result), {
    MODE: 'slow', LEVEL: '$(MODE)', S_TOKEN: 's3cret', URL: 'http://$(HOST):$(PORT)/', HOST: 'h',
    AGAIN: 'h/fast/$(HOST)', NAME: 'p', IP: '10.244.0.5', APP: 'web', KEY: 's3cret',
  });
});

env('a missing object or key fails the container unless optional', () => {
  const missing = (ref: V1Container['env']) => () => containerEnv(pod, { name: 'c', env: ref }, sources, {});
  assert.throws(missing([{ name: 'X', valueFrom: { configMapKeyRef: { name: 'nope', key: 'k' } } }]), (e: Error) => e instanceof ContainerConfigError && /configmap "nope" not found/.test(e.message));
  assert.throws(missing([{ name: 'X', valueFrom: { secretKeyRef: { name: 'sec', key: 'k' } } }]), /couldn't find key k in Secret ns\/sec/);
  assert.equal([...containerEnv(pod, { name: 'c', env: [{ name: 'X', valueFrom: { secretKeyRef: { name: 'sec', key: 'k', optional: true } } }] }, sources, {})], []);
  assert.equal([...containerEnv(pod, { name: 'c', envFrom: [{ configMapRef: { name: 'nope', optional: true } }] }, sources, {})], []);
});

env('command replaces ENTRYPOINT and CMD, args alone replace CMD, both expand $(VAR)', () => {
  const image = { path: [], entrypoint: ['/entry'], cmd: ['node'] };
  const vars = new Map([['PORT', '80']]);
  assert.equal(containerArgv({ name: 'c' }, image, vars), ['/entry', 'node']);
  assert.equal(containerArgv({ name: 'c', args: ['-p', '$(PORT)'] }, image, vars), ['/entry', '-p', '80']);
  assert.equal(containerArgv({ name: 'c', command: ['sh', '-c', 'echo $(PORT) $$HOME'] }, image, vars), ['sh', '-c', 'echo 80 $HOME']);
  assert.equal(containerArgv({ name: 'c', command: ['a'], args: ['$(NOPE)'] }, image, vars), ['a', '$(NOPE)']);
  assert.throws(() => containerArgv({ name: 'c' }, { path: [] }, vars), /no command specified/);
});

env('the process environment puts the image PATH first and lets the container override anything', () => {
  const image = { path: ['/img/bin'], env: { NODE_VERSION: '22' } };
  assert.equal(processEnv(image, 'p', '/root', new Map([['A', '1']]), '/usr/bin'), { PATH: '/img/bin:/usr/bin', HOSTNAME: 'p', HOME: '/root', NODE_VERSION: '22', A: '1' });
  assert.is(processEnv(image, 'p', '/root', new Map([['PATH', '/mine']]), '/usr/bin').PATH, '/mine');
});

const service = (namespace: string, name: string, clusterIP: string, ports: { port: number; name?: string }[]) =>
  ({ metadata: { namespace, name }, spec: { clusterIP, ports } });

env('Service variables: Docker-link style for the namespace\'s Services and default/kubernetes; headless ones skipped', () => {
  const services = [
    service('ns', 'redis-primary', '10.0.0.11', [{ port: 6379 }]),
    service('ns', 'web', '10.0.0.12', [{ port: 80, name: 'http' }, { port: 443, name: 'https' }]),
    service('ns', 'headless', 'None', [{ port: 1 }]),
    service('other', 'elsewhere', '10.0.0.13', [{ port: 1 }]),
    service('default', 'kubernetes', '10.0.0.1', [{ port: 443, name: 'https' }]),
  ];
  const vars = serviceEnv(pod, services);
  assert.equal(Object.fromEntries([...vars].filter(([k]) => k.startsWith('REDIS_PRIMARY_'))), {
    REDIS_PRIMARY_SERVICE_HOST: '10.0.0.11', REDIS_PRIMARY_SERVICE_PORT: '6379', REDIS_PRIMARY_PORT: 'tcp://10.0.0.11:6379',
    REDIS_PRIMARY_PORT_6379_TCP: 'tcp://10.0.0.11:6379', REDIS_PRIMARY_PORT_6379_TCP_PROTO: 'tcp',
    REDIS_PRIMARY_PORT_6379_TCP_PORT: '6379', REDIS_PRIMARY_PORT_6379_TCP_ADDR: '10.0.0.11',
  });
  assert.is(vars.get('WEB_SERVICE_PORT'), '80');
  assert.is(vars.get('WEB_SERVICE_PORT_HTTPS'), '443');
  assert.is(vars.get('WEB_PORT'), 'tcp://10.0.0.12:80');
  assert.is(vars.get('WEB_PORT_443_TCP'), 'tcp://10.0.0.12:443');
  assert.is(vars.get('KUBERNETES_SERVICE_HOST'), '10.0.0.1');
  assert.is(vars.get('KUBERNETES_SERVICE_PORT'), '443');
  assert.not.ok([...vars.keys()].some((k) => k.startsWith('HEADLESS_') || k.startsWith('ELSEWHERE_')));
  const unlinked = serviceEnv({ ...pod, spec: { ...pod.spec!, enableServiceLinks: false } }, services);
  assert.equal([...unlinked.keys()].filter((k) => !k.startsWith('KUBERNETES_')), [], 'only the kubernetes Service without service links');
  // The container's own variables win; its values can refer to Service variables.
  const withServices = containerEnv(pod, { name: 'c', env: [{ name: 'WEB_PORT', value: 'mine' }, { name: 'API', value: 'https://$(KUBERNETES_SERVICE_HOST)' }] },
    { ...sources, services: vars }, {});
  assert.is(withServices.get('WEB_PORT'), 'mine');
  assert.is(withServices.get('API'), 'https://10.0.0.1');
  assert.is(withServices.get('REDIS_PRIMARY_SERVICE_HOST'), '10.0.0.11');
});

env.run();
