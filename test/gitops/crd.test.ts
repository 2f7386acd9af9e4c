import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readFileSync } from 'node:fs';
import { crdYaml } from '../../scripts/gitops/crd.ts';
import { walrusAppCrd } from '../../src/gitops/api/crd.ts';
import { DEFAULTS } from '../../src/gitops/api/types.ts';

test('deploy/crd.yaml is the CRD generated from the types (run node scripts/gitops/crd.ts after changing them)', () => {
  assert.is(readFileSync(new URL('../../deploy/crd.yaml', import.meta.url), 'utf8'), crdYaml());
});

test("the schema carries the defaults of types.ts, except where the app's manifest may speak (a value there is the operator's)", () => {
  const spec = (walrusAppCrd().spec.versions[0].schema.openAPIV3Schema.properties as Record<string, { properties: Record<string, { properties?: Record<string, { default?: unknown }>; default?: unknown }> }>).spec.properties;
  assert.is(spec.build.properties!.image.default, DEFAULTS.build.image);
  assert.is(spec.rollout.properties!.progressDeadlineSeconds.default, DEFAULTS.rollout.progressDeadlineSeconds);
  for (const unset of [spec.port, spec.replicas, spec.build.properties!.command, spec.run.properties!.command, spec.health.properties!.path, spec.health.properties!.periodSeconds]) {
    assert.is(unset.default, undefined);
  }
});

test('kubectl get walrusapps shows the URL', () => {
  const columns = walrusAppCrd().spec.versions[0].additionalPrinterColumns;
  assert.ok(columns.some((column) => column.name === 'URL' && column.jsonPath === '.status.url'));
});

test.run();
