import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readFileSync } from 'node:fs';
import { crdYaml } from '../../scripts/gitops/crd.ts';
import { walrusAppCrd } from '../../src/gitops/api/crd.ts';
import { DEFAULTS } from '../../src/gitops/api/types.ts';

test('deploy/crd.yaml is the CRD generated from the types (run node scripts/gitops/crd.ts after changing them)', () => {
  assert.is(readFileSync(new URL('../../deploy/crd.yaml', import.meta.url), 'utf8'), crdYaml());
});

test('the schema carries the defaults of types.ts', () => {
  const spec = (walrusAppCrd().spec.versions[0].schema.openAPIV3Schema.properties as Record<string, { properties: Record<string, { properties?: Record<string, { default?: unknown }>; default?: unknown }> }>).spec.properties;
  assert.is(spec.port.default, DEFAULTS.port);
  assert.is(spec.build.properties!.command.default, DEFAULTS.build.command);
  assert.is(spec.rollout.properties!.progressDeadlineSeconds.default, DEFAULTS.rollout.progressDeadlineSeconds);
  assert.is(spec.health.properties!.path.default, DEFAULTS.health.path);
});

test.run();
