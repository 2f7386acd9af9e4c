/**
 * The KeyService port over the stock `@mysten/seal` client (docs/architecture.md, Private repositories (Seal)). Sealing
 * is local IBE encryption to the network's key servers. Opening makes one `SessionKey` signed with the user's key (no
 * prompt), renewed when it expires, and asks the key servers for each distinct identity's key once, in batches of at
 * most 100 ids, one PTB with a `seal_approve` call per id; the SDK stops waiting once the threshold of key servers answered. The data keys then
 * decrypt locally from the cached key-server keys, with no further request, each when the reader asks for it (each
 * costs the SDK a pairing per share: a fetch does it while git indexes the pack before).
 */
import type { ClientWithCoreApi } from '@mysten/sui/client';
import type { Signer } from '@mysten/sui/cryptography';
import { normalizeSuiAddress } from '@mysten/sui/utils';
import {
  ExpiredSessionKeyError, GeneralError, InternalError as KeyServerFailure, SealClient, SessionKey,
  TooManyFailedFetchKeyRequestsError,
} from '@mysten/seal';
import { WalrusGitError } from '../core/errors.ts';
import type { Log } from '../core/log.ts';
import { silentLog } from '../core/log.ts';
import { KeyServerRefusalError, describeKeysOf, refusalError, type KeyServerAnswer, type KeysOf } from './key-server-refusal.ts';
import { sizeG2BaseTable } from './g2-base-table.ts';
import { parseSealedKey } from './sealed-key.ts';
import { MAX_KEYS_PER_REQUEST } from '../ports/key-service.ts';
import type { KeyService, LeaseGrant, OpenedKeys, RepositoryName, SecretsGrant } from '../ports/key-service.ts';

export interface KeyServerConfig {
  /** The key server's object id on chain (its `KeyServer` object names its URL and public key). */
  objectId: string;
  weight: number;
  /** An API key the key server's operator requires, sent as header `apiKeyName: apiKey` with every request to it. */
  apiKeyName?: string;
  apiKey?: string;
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
  /** Ask as the provider of this lease (`lease_access::seal_approve_lease`); as a member otherwise. */
  lease?: LeaseGrant;
  /** Ask for the secrets of this lease (`lease_secrets`), as its provider (with a cap) or its tenant. */
  secrets?: SecretsGrant;
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
/** How many approvals a fetch builds when the lease's cap keeps moving under it (the provider's controller uses it). */
const CAP_MOVED_ATTEMPTS = 3;

/** Too few key servers answered to reach the threshold (down, unreachable, or answering errors). */
export class KeyServersUnavailableError extends WalrusGitError {
  constructor(what: KeysOf, threshold: number, total: number, reason: string) {
    super(
      'KEY_SERVERS_UNAVAILABLE',
      `cannot decrypt ${describeKeysOf(what)}: fewer than ${threshold} of ${what.secretsOf === undefined ? 'its' : 'the network\'s'} ${total} Seal key servers answered (${reason}); try again later`,
      { repository: what.repository.id, ...(what.secretsOf === undefined ? {} : { lease: what.secretsOf }), threshold, total, reason },
      { retryable: true },
    );
  }
}

/**
 * A key server's gateway refused the request's API key (none configured for it, or a wrong one), and too few other
 * key servers answered. Names the key server, never the key.
 */
export class KeyServerApiKeyError extends WalrusGitError {
  constructor(what: KeysOf, server: string, answer: string, configured: boolean) {
    super(
      'KEY_SERVER_API_KEY',
      `cannot decrypt ${describeKeysOf(what)}: Seal key server ${server} refused ${configured ? 'the API key configured for it' : 'the request: it requires an API key and none is configured for it'} (${answer}); ` +
        'set it with GIT_WALRUS_SEAL_API_KEYS="<key server object id>=<header name>:<api key>" (or git config walrus.sealApiKeys)',
      { repository: what.repository.id, server, configured },
    );
  }
}

/**
 * A sealed key the key servers or the SDK refused for a reason other than access or availability.
 * What to do: check that the network's Seal key servers answer, then run the command again.
 */
export class SealKeyError extends WalrusGitError {
  constructor(what: KeysOf, reason: string, cause?: unknown) {
    super('SEAL_KEY_FAILED', `cannot decrypt ${what.secretsOf === undefined ? 'the packs of ' : ''}${describeKeysOf(what)}: ${reason}`, { repository: what.repository.id, reason }, { cause });
  }
}

export class SealKeyService implements KeyService {
  readonly maxKeysPerRequest: number;
  readonly #options: SealKeyServiceOptions;
  readonly #packageId: string;
  readonly #log: Log;
  readonly #clients = new Map<string, SealClient>();
  /** The key servers asked first, per threshold: picked once, so `prepare` reads the objects `open` uses. */
  readonly #quorums = new Map<number, KeyServerConfig[]>();
  // Read by `??=` in prepare(), which the rule does not count as a read: the session is prepared once.
  // eslint-disable-next-line no-unused-private-class-members
  #prepared: Promise<void> | null = null;
  /** Key-server URLs whose gateway answered 401 during the current key request, with its message. */
  #refusals: { url: string; answer: string }[] = [];
  /** The key servers' error bodies during the current key request (the SDK keeps only their names). */
  #answers: KeyServerAnswer[] = [];
  readonly #transport: typeof fetch;
  #session: SessionKey | null = null;
  /** The session being created, so `prepare` and a concurrent `open` share one. */
  #creating: Promise<SessionKey> | null = null;
  #sessionsSigned = 0;
  /** The ids whose keys a client of this service holds, and the approval they were fetched with. */
  readonly #fetched = new Map<string, { client: SealClient; txBytes: Uint8Array }>();

  constructor(options: SealKeyServiceOptions) {
    sizeG2BaseTable();
    this.#options = options;
    this.#packageId = normalizeSuiAddress(options.packageId);
    this.#log = options.log ?? silentLog;
    this.maxKeysPerRequest = Math.min(options.maxKeysPerRequest ?? MAX_KEYS_PER_REQUEST, MAX_KEYS_PER_REQUEST);
    const transport = options.fetch ?? globalThis.fetch;
    // The SDK reports a gateway's refusal (a body without Seal's `error` field) as a bare GeneralError without its
    // status: the transport notes which server answered 401, so the error can name it.
    this.#transport = (async (input: string | URL | Request, init?: RequestInit) => {
      const response = await transport(input, init);
      if (response.status === 401) {
        const text = (await response.clone().text()).slice(0, 200);
        const url = (input instanceof Request ? input.url : String(input)).replace(/\/v1\/[a-z_]+(\?.*)?$/, '');
        this.#refusals.push({ url, answer: `HTTP 401${text ? ` ${text}` : ''}` });
      } else if (response.status >= 400 && response.status < 500) {
        const body = await response.clone().json().catch(() => null) as { error?: unknown; message?: unknown } | null;
        if (typeof body?.error === 'string') this.#answers.push({ error: body.error, message: String(body.message ?? '') });
      }
      return response;
    }) as typeof fetch;
  }

  get lease(): LeaseGrant | undefined {
    return this.#options.lease;
  }

  forLease(grant: LeaseGrant): KeyService {
    return new SealKeyService({ ...this.#options, lease: grant, secrets: undefined });
  }

  forLeaseSecrets(grant: SecretsGrant): KeyService {
    return new SealKeyService({ ...this.#options, lease: undefined, secrets: grant });
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
    return Uint8Array.from(Buffer.from(parseSealedKey(sealedKey).id, 'hex'));
  }

  prepare(): void {
    this.#prepared ??= (async () => {
      const [session] = await Promise.all([this.#currentSession(), this.#sealClient(this.#quorum(this.#options.threshold)).getKeyServers()]);
      await session.getCertificate();
    })().catch((error: unknown) => this.#log.debug(`preparing the Seal session failed (opening will retry): ${describe(error)}`));
  }

  async open(repository: RepositoryName, sealedKeys: readonly string[]): Promise<OpenedKeys> {
    const objects = sealedKeys.map((hex) => {
      const parsed = parseSealedKey(hex);
      if (normalizeSuiAddress(parsed.packageId) !== this.#packageId) {
        throw new SealKeyError(this.#keysOf(repository), `a data key is sealed for package ${parsed.packageId}, not this network's ${this.#packageId}`);
      }
      return { bytes: parsed.bytes, id: parsed.id, threshold: parsed.threshold };
    });
    // Packs sealed under one identity share its key: each id is asked for once, in batches of distinct ids, and an id
    // this service fetched before (an earlier window of a long fetch) is not asked for again.
    const wanted = [...new Set(objects.map((o) => o.id))].filter((id) => !this.#fetched.has(id));
    for (let start = 0; start < wanted.length; start += this.maxKeysPerRequest) {
      const ids = wanted.slice(start, start + this.maxKeysPerRequest);
      const threshold = Math.max(...objects.filter((o) => ids.includes(o.id)).map((o) => o.threshold));
      const fetched = await this.#approved(repository, ids, threshold);
      // Every key of the batch is cached in that client now: decrypting asks no key server.
      for (const id of ids) this.#fetched.set(id, fetched);
    }
    const session = await this.#currentSession();
    return objects.map(({ id, bytes }) => {
      const { client, txBytes } = this.#fetched.get(id)!;
      let key: Promise<Uint8Array> | null = null;
      return () => (key ??= client.decrypt({ data: bytes, sessionKey: session, txBytes }).catch((error: unknown) => {
        throw new SealKeyError(this.#keysOf(repository), `a data key does not decrypt: ${(error as Error).message}`, error);
      }));
    });
  }

  /**
   * Builds the approval of `ids` and gets their keys with it. An approval that names the lease's cap at a version the
   * provider's own transactions moved on meanwhile is built again, a few times.
   */
  async #approved(repository: RepositoryName, ids: string[], threshold: number): Promise<{ client: SealClient; txBytes: Uint8Array }> {
    for (let attempt = 1; ; attempt++) {
      const txBytes = await this.#approvals(repository.id, ids);
      try {
        return { client: await this.#fetchKeys(repository, ids, txBytes, threshold), txBytes };
      } catch (error) {
        if (!(error instanceof KeyServerRefusalError && error.code === 'SEAL_LEASE_CAP_MOVED') || attempt >= CAP_MOVED_ATTEMPTS) throw error;
        this.#log.debug(`${error.message} (attempt ${attempt} of ${CAP_MOVED_ATTEMPTS})`);
      }
    }
  }

  /**
   * Gets the keys of `ids` into a client's cache and returns that client. A quorum of key servers (just enough weight
   * for the threshold, picked at random to spread the load) is asked first: every answer costs the servers a dry run
   * and the client a pairing check per key, so a third server's answer is wasted work on both sides. When the
   * quorum falls short, every key server is asked.
   */
  async #fetchKeys(repository: RepositoryName, ids: string[], txBytes: Uint8Array, threshold: number): Promise<SealClient> {
    const servers = this.#options.keyServers;
    const quorum = this.#quorum(threshold);
    if (quorum.length < servers.length) {
      const client = this.#sealClient(quorum);
      try {
        await this.#fetchWith(client, repository, ids, txBytes, threshold);
        return client;
      } catch (error) {
        // A server behind a gateway we have no key for is one that cannot answer: the others may.
        if (!(error instanceof KeyServersUnavailableError || error instanceof KeyServerApiKeyError)) throw error;
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
      this.#refusals = [];
      this.#answers = [];
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
    const secrets = this.#options.secrets;
    const grant = this.#options.lease ?? (secrets?.cap === undefined ? undefined : { lease: secrets.lease, cap: secrets.cap });
    const refused = refusalError(error, this.#answers, repository, this.#packageId, await this.#address(), grant, secrets?.lease);
    if (refused !== null) return refused;
    const refusal = this.#refusals[0];
    if (refusal !== undefined) {
      const servers = await this.#sealClient().getKeyServers().catch(() => new Map<string, { url: string }>());
      const objectId = [...servers].find(([, server]) => server.url.replace(/\/$/, '') === refusal.url)?.[0];
      const configured = this.#options.keyServers.some((server) => server.objectId === objectId && server.apiKeyName !== undefined && server.apiKey !== undefined);
      return new KeyServerApiKeyError(this.#keysOf(repository), objectId === undefined ? refusal.url : `${objectId} (${refusal.url})`, refusal.answer, configured);
    }
    const unavailable = error instanceof TooManyFailedFetchKeyRequestsError || error instanceof KeyServerFailure || isNetworkFailure(error) ||
      (error instanceof GeneralError && !((error.status ?? 500) < 500));
    if (unavailable) return new KeyServersUnavailableError(this.#keysOf(repository), threshold, total, describe(error));
    return new SealKeyError(this.#keysOf(repository), `the key servers refused the request: ${describe(error)}`, error);
  }

  /** The repository whose keys are asked for, and the lease when they are its secrets' keys. */
  #keysOf(repository: RepositoryName): KeysOf {
    const secretsOf = this.#options.secrets?.lease;
    return secretsOf === undefined ? { repository } : { repository, secretsOf };
  }

  async #address(): Promise<string> {
    return normalizeSuiAddress((await this.#options.signer()).toSuiAddress());
  }

  async #currentSession(): Promise<SessionKey> {
    if (this.#session !== null && !this.#session.isExpired()) return this.#session;
    this.#creating ??= (async () => {
      const signer = await this.#options.signer();
      const session = await SessionKey.create({
        address: normalizeSuiAddress(signer.toSuiAddress()),
        packageId: this.#packageId,
        ttlMin: this.#options.ttlMin ?? DEFAULT_TTL_MIN,
        signer,
        suiClient: this.#options.suiClient as never,
      });
      this.#session = session;
      this.#sessionsSigned += 1;
      this.#log.debug(`signed a Seal session key (${this.#sessionsSigned} so far)`);
      return session;
    })().finally(() => { this.#creating = null; });
    return this.#creating;
  }

  /**
   * The PTB the key servers dry-run (TransactionKind bytes), one call per id: `seal_approve(id, repository)` for a
   * member, `seal_approve_lease(id, repository, lease, cap, clock)` for the provider of a lease; for a lease's
   * secrets `seal_approve_lease_secrets(id, repository, lease, cap, clock)` (its provider) or
   * `seal_approve_lease_secrets_as_tenant(id, lease)` (its tenant).
   */
  async #approvals(repositoryId: string, ids: string[]): Promise<Uint8Array> {
    const { Transaction } = await import('@mysten/sui/transactions');
    const tx = new Transaction();
    const lease = this.#options.lease;
    const secrets = this.#options.secrets;
    for (const id of ids) {
      const key = tx.pure.vector('u8', Buffer.from(id, 'hex'));
      if (secrets?.cap !== undefined) {
        tx.moveCall({
          target: `${this.#packageId}::lease_secrets::seal_approve_lease_secrets`,
          arguments: [key, tx.object(repositoryId), tx.object(secrets.lease), tx.object(secrets.cap), tx.object.clock()],
        });
      } else if (secrets !== undefined) {
        tx.moveCall({ target: `${this.#packageId}::lease_secrets::seal_approve_lease_secrets_as_tenant`, arguments: [key, tx.object(secrets.lease)] });
      } else if (lease === undefined) {
        tx.moveCall({ target: `${this.#packageId}::repository::seal_approve`, arguments: [key, tx.object(repositoryId)] });
      } else {
        tx.moveCall({
          target: `${this.#packageId}::lease_access::seal_approve_lease`,
          arguments: [key, tx.object(repositoryId), tx.object(lease.lease), tx.object(lease.cap), tx.object.clock()],
        });
      }
    }
    return tx.build({ client: this.#options.suiClient, onlyTransactionKind: true });
  }

  #quorum(threshold: number): KeyServerConfig[] {
    let quorum = this.#quorums.get(threshold);
    if (quorum === undefined) this.#quorums.set(threshold, (quorum = quorumOf(this.#options.keyServers, threshold)));
    return quorum;
  }

  /** The SealClient of a set of key servers (one per set: each keeps its own cache of keys and key-server objects). */
  #sealClient(servers: readonly KeyServerConfig[] = this.#options.keyServers): SealClient {
    const name = servers.map((server) => server.objectId).join(',');
    let client = this.#clients.get(name);
    if (client === undefined) {
      client = new SealClient({
        suiClient: this.#options.suiClient as never,
        serverConfigs: servers.map(({ objectId, weight, apiKeyName, apiKey }) => ({ objectId, weight, ...(apiKeyName && apiKey ? { apiKeyName, apiKey } : {}) })),
        verifyKeyServers: false,
        timeout: this.#options.timeoutMs ?? DEFAULT_TIMEOUT_MS,
        fetch: this.#transport,
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
