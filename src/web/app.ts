/**
 * What `git walrus web` is given by its composition root (src/main/web.ts): the active network's ports, the object
 * cache, and the settings the command line chose. Pages read only through these.
 */
import type { Log } from '../core/log.ts';
import type { BlobStore } from '../ports/blob-store.ts';
import type { RepositoryDirectory } from '../ports/directory.ts';
import type { KeyService } from '../ports/key-service.ts';
import type { Ledger } from '../ports/ledger.ts';
import type { MarketLedger } from '../ports/market.ts';
import type { ObjectCache } from '../ports/object-cache.ts';
import type { BlobIdOf } from '../remote/history/verify-packs.ts';
import type { CertifiedReads } from '../ports/certified.ts';
import type { EventView, LogRecord, ReleaseView, StatusView } from '../ports/gateway-api.ts';
import type { PackObjects } from '../remote/history/verify-repository.ts';

export interface WebServices {
  ledger: Ledger;
  blobStore: BlobStore;
  blobIdOf: BlobIdOf;
  keyService?: KeyService;
  /** A scratch object store for `verify --deep`; closed by the caller. */
  openPackObjects(): Promise<PackObjects>;
  directory: RepositoryDirectory;
  objectCache: ObjectCache;
  /** The compute market; absent (or throwing) where the network has none. */
  market?(): Promise<MarketLedger>;
  /** The sha256 of a deployed artifact's tar stream, read from Walrus. */
  artifactSha256(blobId: string): Promise<string>;
  /** The running key's address, or null when there is no key (then no private repository can be read). */
  viewer(): Promise<string | null>;
  /** Reads proved against the validators' certificates; absent where the network has no trust anchor. */
  certified?: () => Promise<CertifiedReads>;
  /** A lease's app as its provider's gateway reports it, asked as the running key (the gateway answers the tenant). */
  leaseGateway: LeaseGateway;
  /** `local`, `devnet`, `testnet`, `mainnet`: explorer links exist on the last two only. */
  networkName: string;
  log: Log;
}

export interface WebSettings {
  /** Show the contents of private repositories the running key may read (always on loopback; opt-in with --host). */
  privateContents: boolean;
  /** Served beyond loopback (--host): any Host header is accepted. */
  exposed: boolean;
}

/** Which lease's app, at which provider's gateway. */
export interface GatewayTarget {
  lease: string;
  provider: string;
  endpoint: string;
}

/**
 * The paths of a provider's gateway, each a request signed by the running key and stopped by `signal`; each throws
 * what the gateway client throws when the gateway does not answer or refuses.
 */
export interface LeaseGateway {
  status(target: GatewayTarget, signal: AbortSignal): Promise<StatusView>;
  releases(target: GatewayTarget, signal: AbortSignal): Promise<ReleaseView[]>;
  events(target: GatewayTarget, signal: AbortSignal): Promise<EventView[]>;
  /** The last `tail` lines of each replica. */
  logs(target: GatewayTarget, tail: number, signal: AbortSignal): Promise<LogRecord[]>;
}
