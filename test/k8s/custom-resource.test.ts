import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { ApiextensionsV1Api, CustomObjectsApi, PatchStrategy, makeInformer, setHeaderOptions } from '@kubernetes/client-node';
import type { KubernetesObject, V1CustomResourceDefinition } from '@kubernetes/client-node';
import { testCluster, waitFor } from './support/control-plane.ts';

interface Widget extends KubernetesObject {
  spec: { size: number };
}

const group = 'smoke.walrus.test';
const version = 'v1';
const plural = 'widgets';
const crd: V1CustomResourceDefinition = {
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: `${plural}.${group}` },
  spec: {
    group,
    scope: 'Namespaced',
    names: { plural, singular: 'widget', kind: 'Widget', listKind: 'WidgetList' },
    versions: [{
      name: version, served: true, storage: true, subresources: { status: {} },
      schema: { openAPIV3Schema: { type: 'object', properties: { spec: { type: 'object', properties: { size: { type: 'integer' } } } } } },
    }],
  },
};

const cluster = testCluster('custom');
const custom = suite('CustomResourceDefinition and an informer on its objects');
custom.after(async () => {
  const made = await cluster.get().catch(() => undefined);
  await made?.kc.makeApiClient(ApiextensionsV1Api).deleteCustomResourceDefinition({ name: crd.metadata!.name! }).catch(() => {});
  await cluster.stop();
});

custom('an informer sees objects of a new kind added, updated and deleted', async () => {
  const { kc, namespace } = await cluster.get();
  const extensions = kc.makeApiClient(ApiextensionsV1Api);
  await extensions.createCustomResourceDefinition({ body: crd });
  await waitFor('CRD established', async () => {
    const current = await extensions.readCustomResourceDefinition({ name: crd.metadata!.name! });
    return current.status?.conditions?.some((c) => c.type === 'Established' && c.status === 'True');
  });

  const objects = kc.makeApiClient(CustomObjectsApi);
  const where = { group, version, namespace, plural };
  const informer = makeInformer<Widget>(kc, `/apis/${group}/${version}/namespaces/${namespace}/${plural}`,
    () => objects.listNamespacedCustomObject(where));
  const seen: string[] = [];
  informer.on('add', (w) => seen.push(`add ${w.metadata?.name} ${w.spec.size}`));
  informer.on('update', (w) => seen.push(`update ${w.metadata?.name} ${w.spec.size}`));
  informer.on('delete', (w) => seen.push(`delete ${w.metadata?.name}`));
  informer.on('error', (err) => seen.push(`error ${err}`));
  // Established can precede the new resource's handler by a moment; the informer's list must not race it.
  await waitFor('the new kind served', () => objects.listNamespacedCustomObject(where).then(() => true));
  await informer.start();
  try {
    const body: Widget = { apiVersion: `${group}/${version}`, kind: 'Widget', metadata: { name: 'w1' }, spec: { size: 1 } };
    await objects.createNamespacedCustomObject({ ...where, body });
    await waitFor('add event', async () => seen.length >= 1);
    await objects.patchNamespacedCustomObject({ ...where, name: 'w1', body: { spec: { size: 2 } } },
      setHeaderOptions('Content-Type', PatchStrategy.MergePatch));
    await waitFor('update event', async () => seen.length >= 2);
    assert.is(informer.get('w1', namespace)?.spec.size, 2, 'cache holds the updated object');
    await objects.deleteNamespacedCustomObject({ ...where, name: 'w1' });
    await waitFor('delete event', async () => seen.length >= 3);
    assert.equal(seen, ['add w1 1', 'update w1 2', 'delete w1']);
    assert.equal(informer.list(), []);
  } finally {
    await informer.stop();
  }
});

custom.run();
