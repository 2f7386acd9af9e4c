import { WalrusGitError } from '../core/errors.ts';
import { marketAbortName } from '../contract/market-abort-codes.ts';
import type { MarketAbortName } from '../contract/market-abort-codes.ts';
import { REF_NAME_RULE } from '../contract/ref-name.ts';
import type { ModuleAbort } from './transactions.ts';

/** Why the market refused, in words, per abort constant of market.move. */
const REASONS: Record<MarketAbortName, string> = {
  EWrongVersion: 'the market object belongs to another version of the git-walrus package: upgrade git-remote-walrus',
  EStakeTooLow: "the stake is below the market's minimum (`git walrus providers` shows it); a provider slashed below it takes no new lease until it adds stake",
  EInvalidPrice: 'the price per millisecond must be above zero',
  EInvalidProviderInfo: 'the endpoint must be an http:// or https:// URL with a host, at most 256 bytes of printable ASCII; at most 32 attributes of unique keys, keys and values at most 256 bytes each, without control characters',
  ENotProvider: "this key does not hold the provider's ProviderCap",
  EWrongProvider: 'the lease belongs to another provider',
  ENotAccepting: 'the provider is unbonding and takes no new lease',
  EDepositTooSmall: "the deposit pays for less than the market's minimum lease duration at the provider's price",
  EInvalidRefName: `the ref name is refused (e.g. refs/heads/main is fine): ${REF_NAME_RULE}`,
  ENotTenant: "only the lease's tenant or its provider may close it",
  ELeaseClosed: 'the lease is closed',
  ELeaseExhausted: "the lease's funds ran out: close it and open a new lease",
  EZeroAmount: 'the amount must be above zero',
  EAlreadyUnbonding: 'the provider is already unbonding',
  ENotUnbonding: 'the provider is not unbonding: run `git walrus provider unbond` first',
  EActiveLeases: 'the provider still has leases that are not closed: close them first (`git walrus lease close`)',
  ETooEarly: 'the unbonding delay has not passed yet (`git walrus provider show` says when it does)',
  ESlashExceedsStake: "a slash may not exceed the provider's stake",
  EWrongRepository: "the repository is not the lease's",
  ENotHead: "the commit is not the current value of the lease's ref in the repository",
  EInvalidArtifact: "an artifact's sha256 must be 32 bytes",
  ECannotRead:
    'the repository is private and the sender cannot read it: ask its owner to run `git walrus readers add walrus://<repository> <address>` ' +
    "(a private repository is leased only by its owner, a writer or a reader; a deploy is recorded only while the lease's tenant may read it)",
  EInvalidUrl: "a lease's URL must be 1 to 256 bytes of printable ASCII without spaces, starting with http:// or https:// and a host",
};

/**
 * The market refused a transaction (a Move abort in module `market`): `abortName` is the constant.
 * What to do: change what the reason names (the market's rule) and run the command again.
 */
export class MarketRefusedError extends WalrusGitError {
  readonly abortName: MarketAbortName;
  constructor(what: string, abortName: MarketAbortName, abort: ModuleAbort) {
    super('MARKET_REFUSED', `${what} refused: ${REASONS[abortName]}`, { abortName, abortCode: abort.code, functionName: abort.functionName, digest: abort.digest });
    this.abortName = abortName;
  }
}

/** The typed error for an abort of the market module, or undefined for another module's. */
export function marketError(what: string, abort: ModuleAbort): Error | undefined {
  if (abort.module !== 'market') return undefined;
  const name = marketAbortName(abort.code);
  return name ? new MarketRefusedError(what, name, abort) : undefined;
}

/**
 * An id that names no market object of the kind asked for, on this network.
 * What to do: check the id and the network (`--network`, `git walrus whoami`).
 */
export class MarketObjectNotFoundError extends WalrusGitError {
  constructor(kind: string, id: string) {
    super('MARKET_OBJECT_NOT_FOUND', `${kind} ${id} does not exist on this network`, { kind, id });
  }
}

/** Closing a lease is for its tenant or its provider only. */
export class NotLeasePartyError extends WalrusGitError {
  constructor(leaseId: string, signer: string, tenant: string, provider: string) {
    super(
      'NOT_LEASE_PARTY',
      `only the tenant (${tenant}) or the provider (${provider}, with its ProviderCap) may close lease ${leaseId}; ${signer} is neither: sign with one of their keys`,
      { leaseId, signer, tenant, provider },
    );
  }
}

/** The signer holds no cap the call needs (a ProviderCap for this provider, or the market's AdminCap). */
export class MissingCapError extends WalrusGitError {
  constructor(address: string, what: string) {
    super('MISSING_CAP', `${address} does not hold ${what}: sign with the key that does (GIT_WALRUS_KEY or the active address)`, { address, what });
  }
}

/** The network has no market yet (no Market object id configured). */
export class MarketNotPublishedError extends WalrusGitError {
  constructor(network: string) {
    super(
      'MARKET_NOT_PUBLISHED',
      `the compute market is not known on ${network}: set GIT_WALRUS_MARKET_ID (or \`git config walrus.marketId\`, or "networks": {"${network}": {"marketId"}} in $GIT_WALRUS_HOME/config.json) to the Market object the package's publication created`,
      { network },
    );
  }
}
