import { PROVIDER_ANNOTATIONS } from '../../api/labels.ts';
import { failed, NEXT, stalling, type StepResult } from '../outcome.ts';
import type { Pass } from '../pass.ts';

/**
 * A private repository is built only when this controller may read it (repository-access.ts): as a reader, or as the
 * provider of the app's open, funded lease whose tenant may read the repository. Otherwise Stalling with the reason
 * (NotAReader names the address to add; TenantNotReader the tenant; LeaseClosed, LeaseExhausted) until the
 * repository's readers or the lease change. A Stalling pass ends here, before any build or rollout: what the app
 * already runs keeps running (the provider holds those bytes already), nothing new is built.
 */
export async function checkReadAccess(pass: Pass): Promise<StepResult> {
  const check = pass.deps.readAccess;
  if (check === undefined) return NEXT;
  const lease = pass.app.metadata.annotations?.[PROVIDER_ANNOTATIONS.lease] ?? null;
  let access;
  try {
    access = await check(pass.fact('repositoryId'), lease);
  } catch (error) {
    return failed(error, 'ChainReadFailed');
  }
  return access.allowed ? NEXT : stalling(access.reason, access.message);
}
