/**
 * The AccessHistory port (src/ports/access-history.ts) over an opened network: removals from the package's events,
 * leases from its compute market, signatures with the user's key.
 */
import type { AccessHistory } from '../ports/access-history.ts';
import type { OpenedNetwork } from './context.ts';

export function accessHistoryOf(network: Pick<OpenedNetwork, 'directory' | 'market' | 'signPersonalMessage'>): AccessHistory {
  return {
    countRemovals: async (repositoryId) => (await network.directory()).countRemovals(repositoryId),
    leasesOf: async (repositoryId) => {
      const { MarketNotPublishedError } = await import('../sui/market-errors.ts');
      try {
        const market = await network.market();
        const [leases, nowMs] = await Promise.all([market.leasesOfRepository(repositoryId), market.clockMs()]);
        return { leases, nowMs };
      } catch (error) {
        // No market, no lease: nobody reads under one.
        if (error instanceof MarketNotPublishedError) return { leases: [], nowMs: 0 };
        throw error;
      }
    },
    sign: async (message) => Uint8Array.from(Buffer.from((await network.signPersonalMessage(message)).signature, 'base64')),
  };
}
