import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { V1Container, V1Pod } from '@kubernetes/client-node';
import { ContainerConfigError, containerArgv, containerEnv, expand, mappingFor, processEnv } from '../../scripts/k8s/kubelet/env.ts';

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

env.run();
