import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { V1ConfigMap } from '@kubernetes/client-node';
import type { WalrusApp } from '../../src/ports/walrus-app.ts';
import { withoutEnvValues } from '../../src/core/env-values.ts';
import { boundRelease, parseReleaseOutput, releaseOutputConfigMap, releaseOutputName, releaseOutputsToPrune } from '../../src/gitops/templates/release-output.ts';
import type { ReleaseOutput } from '../../src/ports/gateway-api.ts';

const app: WalrusApp = { apiVersion: 'gitops.walrus-git.dev/v1alpha1', kind: 'WalrusApp', metadata: { name: 'hello', namespace: 'apps', uid: 'u-1' }, spec: { repository: 'walrus://0x1' } };
const commit = 'a'.repeat(40);
const release = (time: string, steps: ReleaseOutput['steps'] = []): ReleaseOutput => ({ commit, configHash: '0123456789', attempt: 1, result: 'TestsFailed', time, steps });

const output = suite('a release\'s build output kept in a ConfigMap');
output('one ConfigMap per commit and build settings, owned by the app, labelled for the gateway, read back whole', () => {
  const kept = release('2026-11-29T04:00:00Z', [{ name: 'test', exitCode: 1, reason: 'Error', output: 'not ok 1 - adds\n' }]);
  const configMap = releaseOutputConfigMap(app, kept);
  assert.is(configMap.metadata?.name, releaseOutputName(app, commit, '0123456789'));
  assert.is(configMap.metadata?.name, 'hello-out-aaaaaaaaaaaa-01234567');
  assert.is(configMap.metadata?.ownerReferences?.[0]?.uid, 'u-1');
  assert.is(configMap.metadata?.labels?.['gitops.walrus-git.dev/release-output'], 'true');
  assert.equal(parseReleaseOutput(configMap), kept);
});
output('a step keeps its last bytes from a line\'s start, and says how much was cut', () => {
  const lines = Array.from({ length: 100 }, (_, i) => `line ${i}`).join('\n');
  const [step] = boundRelease(release('t', [{ name: 'build', exitCode: 0, output: lines }]), 50, 1000).steps;
  assert.ok(step!.output.endsWith('line 99'));
  assert.ok(step!.output.startsWith('line '));
  assert.ok(Buffer.byteLength(step!.output) <= 50);
  assert.is(step!.cutBytes! + Buffer.byteLength(step!.output), Buffer.byteLength(lines));
});
output('a release over its bound cuts its earliest steps first; the failing last step stays whole', () => {
  const bounded = boundRelease(release('t', [{ name: 'checkout', output: 'c\n'.repeat(300) }, { name: 'test', output: 'fail\n'.repeat(100) }]), 1000, 800);
  assert.is(bounded.steps[1]!.output, 'fail\n'.repeat(100));
  assert.ok(bounded.steps.reduce((sum, step) => sum + Buffer.byteLength(step.output), 0) <= 800);
});
output('the oldest beyond the number kept are pruned', () => {
  const maps = ['01', '03', '02'].map((day) => releaseOutputConfigMap(app, release(`2026-11-${day}T00:00:00Z`)));
  const pruned = releaseOutputsToPrune(maps, 2) as V1ConfigMap[];
  assert.equal(pruned.map((map) => parseReleaseOutput(map)!.time), ['2026-11-01T00:00:00Z']);
});
output('something else in the ConfigMap is not a release', () => {
  assert.is(parseReleaseOutput({ data: { 'release.json': '{' } }), null);
  assert.is(parseReleaseOutput({ data: {} }), null);
});
output('the build environment\'s long values are masked, longest first; short ones stay', () => {
  const env = [{ name: 'TOKEN', value: 'npm_secret_token' }, { name: 'TOKEN_PART', value: 'secret_t' }, { name: 'CI', value: 'true' }];
  assert.is(withoutEnvValues('auth npm_secret_token then secret_t, CI=true', env), 'auth $TOKEN then $TOKEN_PART, CI=true');
});
output.run();
