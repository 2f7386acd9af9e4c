/**
 * The KeyService port over the stock `@mysten/seal` client (DESIGN.md §6). Sealing is local IBE encryption to the
 * network's key servers. Opening makes one `SessionKey` signed with the user's key (no prompt), renewed when it
 * expires, and asks the key servers for every key in batches of at most 100 ids, one PTB with a `seal_approve` call
 * per id; the SDK stops waiting once the threshold of key servers answered. The data keys then decrypt locally from
 * the cached key-server keys, with no further request.
 */
import type { ClientWithCoreApi } from '@mysten/sui/client';
import type { Signer } from '@mysten/sui/cryptography';
import { normalizeSuiAddress } from '@mysten/sui/utils';
import {
  EncryptedObject, ExpiredSessionKeyError, GeneralError, InternalError as KeyServerFailure, NoAccessError, SealClient, SessionKey,
  TooManyFailedFetchKeyRequestsError,
} from '@mysten/seal';
import { WalrusGitError } from '../core/errors.ts';
import type { Log } from '../core/log.ts';
import { silentLog } from '../core/log.ts';
import { NotReaderError } from '../core/read-access.ts';
import { MAX_KEYS_PER_REQUEST } from '../ports/key-service.ts';
import type { KeyService, RepositoryName } from '../ports/key-service.ts';

export interface KeyServerConfig {
  /** The key server's object id on chain (its `KeyServer` object names its URL and public key). */
  objectId: string;
  weight: number;
}

export interface SealKeyServiceOptions {
  suiClient: ClientWithCoreApi;
  /** Our package's original (first-version) id: Seal ids live under it. */
  packageId: string;
  keyServers: readonly KeyServerConfig[];
  /** Key servers (by weight) needed to open a key. */
  threshold: number;
  /** The user's key, loaded on the first open (sealing needs none). */
  signer: () => Promise<Signer>;
  /** For the key-server HTTP requests (the embedded network serves them in process). */
  fetch?: typeof fetch;
  /** Per key-server request, ms (the SDK's default is 10 s). */
  timeoutMs?: number;
  /** Session key lifetime in minutes, 1 to 30 (the key servers' default maximum is 30). */
  ttlMin?: number;
  /** Ids per request (at most 100: the key servers refuse a PTB of more commands). */
  maxKeysPerRequest?: number;
  log?: Log;
}

const DEFAULT_TTL_MIN = 30;
/**
 * Per key-server request. The SDK checks every key of an answer with pairings as it arrives (100 keys: ~4 s of CPU on
 * a quiet machine, far more on a busy one) while the other requests' timers run, so its 10 s default failed clones of
 * 100+ packs as "key servers unavailable" on a loaded machine. A server that is down refuses at once; only a hung one
 * waits this long.
 */
const DEFAULT_TIMEOUT_MS = 60_000;

/** Too few key servers answered to reach the threshold (down, unreachable, or answering errors). */
export class KeyServersUnavailableError extends WalrusGitError {
  constructor(repository: RepositoryName, threshold: number, total: number, reason: string) {
    super(
      'KEY_SERVERS_UNAVAILABLE',
      `cannot decrypt repository '${repository.name}' (${repository.id}): fewer than ${threshold} of its ${total} Seal key servers answered (${reason}); try again later`,
      { repository: repository.id, threshold, total, reason },
      { retryable: true },
    );
  }
}

/** A sealed key the key servers or the SDK refused for a reason other than access or availability. */
export class SealKeyError extends WalrusGitError {
  constructor(repository: RepositoryName, reason: string, cause?: unknown) {
    super('SEAL_KEY_FAILED', `cannot decrypt the packs of repository '${repository.name}' (${repository.id}): ${reason}`, { repository: repository.id, reason }, { cause });
  }
}

export class SealKeyService implements KeyService {
  readonly maxKeysPerRequest: number;
  readonly #options: SealKeyServiceOptions;
  readonly #packageId: string;
  readonly #log: Log;
  readonly #clients = new Map<string, SealClient>();
  #session: SessionKey | null = null;
  #sessionsSigned = 0;

  constructor(options: SealKeyServiceOptions) {
    this.#options = options;
    this.#packageId = normalizeSuiAddress(options.packageId);
    this.#log = options.log ?? silentLog;
    this.maxKeysPerRequest = Math.min(options.maxKeysPerRequest ?? MAX_KEYS_PER_REQUEST, MAX_KEYS_PER_REQUEST);
  }

  /** Session keys signed so far (one unless a long fetch outlived one). */
  get sessionsSigned(): number {
    return this.#sessionsSigned;
  }

  async seal(identity: Uint8Array, dataKey: Uint8Array): Promise<string> {
    const { encryptedObject } = await this.#sealClient().encrypt({
      threshold: this.#options.threshold,
      packageId: this.#packageId,
      id: Buffer.from(identity).toString('hex'),
      data: dataKey,
    });
    return Buffer.from(encryptedObject).toString('hex');
  }

  async identityOf(sealedKey: string): Promise<Uint8Array> {
    return Uint8Array.from(Buffer.from(EncryptedObject.parse(Buffer.from(sealedKey, 'hex')).id, 'hex'));
  }

  async open(repository: RepositoryName, sealedKeys: readonly string[]): Promise<Uint8Array[]> {
    const objects = sealedKeys.map((hex) => {
      const bytes = Uint8Array.from(Buffer.from(hex, 'hex'));
      const parsed = EncryptedObject.parse(bytes);
      if (normalizeSuiAddress(parsed.packageId) !== this.#packageId) {
        throw new SealKeyError(repository, `a pack key is sealed for package ${parsed.packageId}, not this network's ${this.#packageId}`);
      }
      return { bytes, id: parsed.id, threshold: parsed.threshold };
    });
    const keys: Uint8Array[] = [];
    for (let start = 0; start < objects.length; start += this.maxKeysPerRequest) {
      const batch = objects.slice(start, start + this.maxKeysPerRequest);
      const txBytes = await this.#approvals(repository.id, batch.map((o) => o.id));
      const threshold = Math.max(...batch.map((o) => o.threshold));
      const client = await this.#fetchKeys(repository, batch.map((o) => o.id), txBytes, threshold);
      // Every key of the batch is cached in that client now: decrypting asks no key server.
      const session = await this.#currentSession();
      for (const object of batch) {
        try {
          keys.push(await client.decrypt({ data: object.bytes, sessionKey: session, txBytes }));
        } catch (error) {
          throw new SealKeyError(repository, `a pack key does not decrypt: ${(error as Error).message}`, error);
        }
      }
    }
    return keys;
  }

  /**
   * Gets the keys of `ids` into a client's cache and returns that client. A quorum of key servers (just enough weight
   * for the threshold, picked at random to spread the load) is asked first: every answer costs the servers a dry run
   * and the client a pairing check per key, so a third server's answer is wasted work on both sides. When the
   * quorum falls short, every key server is asked.
   */
  async #fetchKeys(repository: RepositoryName, ids: string[], txBytes: Uint8Array, threshold: number): Promise<SealClient> {
    const servers = this.#options.keyServers;
    const quorum = quorumOf(servers, threshold);
    if (quorum.length < servers.length) {
      const client = this.#sealClient(quorum);
      try {
        await this.#fetchWith(client, repository, ids, txBytes, threshold);
        return client;
      } catch (error) {
        if (!(error instanceof KeyServersUnavailableError)) throw error;
        this.#log.debug(`${error.message}; asking every key server`);
      }
    }
    const client = this.#sealClient(servers);
    await this.#fetchWith(client, repository, ids, txBytes, threshold);
    return client;
  }

  /** One request per key server of `client` for `ids`, with a fresh session when the current one expired (or a server said so). */
  async #fetchWith(client: SealClient, repository: RepositoryName, ids: string[], txBytes: Uint8Array, threshold: number): Promise<void> {
    for (let attempt = 0; ; attempt++) {
      const sessionKey = await this.#currentSession();
      try {
        await client.fetchKeys({ ids, txBytes, sessionKey, threshold });
        return;
      } catch (error) {
        if (error instanceof ExpiredSessionKeyError && attempt === 0) {
          // The key servers' clocks may run ahead of ours: sign a new session and ask once more.
          this.#log.debug('a key server found the session key expired; signing a new one');
          this.#session = null;
          continue;
        }
        throw await this.#translate(repository, error, threshold);
      }
    }
  }

  async #translate(repository: RepositoryName, error: unknown, threshold: number): Promise<Error> {
    const total = this.#options.keyServers.reduce((sum, server) => sum + server.weight, 0);
    if (error instanceof NoAccessError) return new NotReaderError(repository, await this.#address());
    const unavailable = error instanceof TooManyFailedFetchKeyRequestsError || error instanceof KeyServerFailure || isNetworkFailure(error) ||
      (error instanceof GeneralError && !((error.status ?? 500) < 500));
    if (unavailable) return new KeyServersUnavailableError(repository, threshold, total, describe(error));
    return new SealKeyError(repository, `the key servers refused the request: ${describe(error)}`, error);
  }

  async #address(): Promise<string> {
    return normalizeSuiAddress((await this.#options.signer()).toSuiAddress());
  }

  async #currentSession(): Promise<SessionKey> {
    if (this.#session !== null && !this.#session.isExpired()) return this.#session;
    const signer = await this.#options.signer();
    this.#session = await SessionKey.create({
      address: normalizeSuiAddress(signer.toSuiAddress()),
      packageId: this.#packageId,
      ttlMin: this.#options.ttlMin ?? DEFAULT_TTL_MIN,
      signer,
      suiClient: this.#options.suiClient as never,
    });
    this.#sessionsSigned += 1;
    this.#log.debug(`signed a Seal session key (${this.#sessionsSigned} so far)`);
    return this.#session;
  }

  /** The PTB the key servers dry-run: `seal_approve(id, repository)` once per id (TransactionKind bytes). */
  async #approvals(repositoryId: string, ids: string[]): Promise<Uint8Array> {
    const { Transaction } = await import('@mysten/sui/transactions');
    const tx = new Transaction();
    for (const id of ids) {
      tx.moveCall({ target: `${this.#packageId}::repository::seal_approve`, arguments: [tx.pure.vector('u8', Buffer.from(id, 'hex')), tx.object(repositoryId)] });
    }
    return tx.build({ client: this.#options.suiClient, onlyTransactionKind: true });
  }

  /** The SealClient of a set of key servers (one per set: each keeps its own cache of keys and key-server objects). */
  #sealClient(servers: readonly KeyServerConfig[] = this.#options.keyServers): SealClient {
    const name = servers.map((server) => server.objectId).join(',');
    let client = this.#clients.get(name);
    if (client === undefined) {
      client = new SealClient({
        suiClient: this.#options.suiClient as never,
        serverConfigs: servers.map(({ objectId, weight }) => ({ objectId, weight })),
        verifyKeyServers: false,
        timeout: this.#options.timeoutMs ?? DEFAULT_TIMEOUT_MS,
        fetch: this.#options.fetch,
      });
      this.#clients.set(name, client);
    }
    return client;
  }
}

/** Key servers in random order, taken until their weight reaches `threshold` (all of them if it never does). */
export function quorumOf<T extends { weight: number }>(servers: readonly T[], threshold: number, random: () => number = Math.random): T[] {
  const shuffled = servers.map((server) => ({ server, order: random() })).sort((a, b) => a.order - b.order).map((entry) => entry.server);
  const quorum: T[] = [];
  let weight = 0;
  for (const server of shuffled) {
    if (weight >= threshold) break;
    quorum.push(server);
    weight += server.weight;
  }
  return quorum;
}

/** fetch's own failure (connection refused, reset, timeout), which the SDK passes through. */
function isNetworkFailure(error: unknown): boolean {
  const e = error as { name?: string; message?: string } | null;
  return e?.name === 'TimeoutError' || e?.name === 'AbortError' || (e instanceof TypeError && /fetch failed/i.test(e.message ?? ''));
}

function describe(error: unknown): string {
  const e = error as { message?: string; cause?: { message?: string } } | null;
  const cause = e?.cause?.message ? ` (${e.cause.message})` : '';
  return `${e?.message || e?.constructor?.name || String(error)}${cause}`;
}
