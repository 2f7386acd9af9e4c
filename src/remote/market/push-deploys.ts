/**
 * What a push tells about the deploys it causes (docs/architecture.md, The provider's gateway): for each open lease
 * of the repository whose ref the push moved, a line in git's `remote:` style naming the lease, its provider and the
 * command that follows the commit to live. Pure.
 */
import type { LeaseInfo } from '../../ports/market.ts';

export function deployLines(leases: readonly LeaseInfo[], moved: ReadonlyMap<string, string>): string[] {
  return leases.filter((lease) => lease.state === 'open' && moved.has(lease.ref)).map((lease) => {
    const commit = moved.get(lease.ref)!.slice(0, 12);
    return `remote: ${lease.ref} ${commit} deploys on lease ${lease.id} (provider ${lease.provider}): git walrus lease status ${lease.id} --wait ${commit}`;
  });
}
