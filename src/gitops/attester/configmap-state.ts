/**
 * The controller's attester state: a ConfigMap in the controller's namespace (beside its watch cursor, where its Role
 * may read and write; never where the untrusted builds run), written whole by server-side apply.
 */
import { formatKeptAttestations, NOTHING_KEPT, parseKeptAttestations } from '../../core/kept-attestations.ts';
import type { AttesterState } from '../../ports/attester-state.ts';
import type { Cluster } from '../../ports/cluster.ts';
import { LABELS, MANAGED_BY } from '../templates/names.ts';

export const STATE_CONFIG_MAP = 'walrus-attester-state';
const KEY = 'attestations.json';

export function configMapAttesterState(cluster: Pick<Cluster, 'apply' | 'readConfigMap'>, namespace: string): AttesterState {
  const ref = { namespace, name: STATE_CONFIG_MAP };
  return {
    load: async () => {
      const text = (await cluster.readConfigMap(ref))?.data?.[KEY];
      return text === undefined ? NOTHING_KEPT : parseKeptAttestations(text, `ConfigMap ${namespace}/${STATE_CONFIG_MAP}`);
    },
    save: async (kept) => {
      await cluster.apply({
        apiVersion: 'v1', kind: 'ConfigMap',
        metadata: { ...ref, labels: { [LABELS.managedBy]: MANAGED_BY } },
        data: { [KEY]: formatKeptAttestations(kept) },
      });
    },
  };
}
