import { UsageError } from '../core/errors.ts';
import { normalizeSuiId } from '../core/walrus-url.ts';
import type { KeyService } from '../ports/key-service.ts';
import type { MarketLedger } from '../ports/market.ts';
import { NoKeyServersError } from '../remote/errors.ts';
import type { CliApp, CliServices } from './app.ts';

/** Opens the network, gets its market and runs `use`; the network is closed whatever happens. */
export async function withMarket<T>(app: CliApp, args: { network?: string }, use: (market: MarketLedger, services: CliServices) => Promise<T>): Promise<T> {
  const services = await app.open({ network: args.network });
  try {
    if (!services.market) throw new UsageError(`network ${services.networkName} offers no compute market here`);
    return await use(await services.market(), services);
  } finally {
    await services.close();
  }
}

/** The provider a command is about: the one given, or the only one whose cap the signer holds. */
export async function providerArg(market: MarketLedger, given: string | undefined): Promise<string> {
  if (given !== undefined) return normalizeSuiId(given);
  const own = await market.ownProviders();
  if (own.length === 1) return own[0]!;
  const address = await market.signerAddress();
  if (own.length === 0) throw new UsageError(`${address} holds no ProviderCap: register with \`git walrus provider register\`, or name a provider`);
  throw new UsageError(`${address} holds the caps of ${own.length} providers (${own.join(', ')}): name one`);
}

/**
 * The key service of `services` asking as the provider of lease `leaseId` (`--lease`): the lease must serve
 * `repositoryId`, and the signer's ProviderCap of its provider goes with every key request as the proof.
 */
export async function leaseKeyService(services: CliServices, leaseId: string, repositoryId: string): Promise<KeyService> {
  if (!services.market) throw new UsageError(`network ${services.networkName} offers no compute market here, so --lease names nothing`);
  if (!services.keyService) throw new NoKeyServersError(repositoryId);
  const market = await services.market();
  const lease = await market.getLease(normalizeSuiId(leaseId));
  if (normalizeSuiId(lease.repository) !== normalizeSuiId(repositoryId)) {
    throw new UsageError(`lease ${lease.id} serves repository ${lease.repository}, not ${repositoryId}`, { lease: lease.id, repository: repositoryId });
  }
  return services.keyService.forLease({ lease: lease.id, cap: await market.providerCapId(lease.provider) });
}
