/**
 * An in-memory KeyService for unit tests of the remote use-cases (the product and the e2e tests use Seal over the
 * devnet's key servers). It keeps the port's contract: a sealed key names its identity, opening one asks "the key
 * servers" once per `maxKeysPerRequest` keys, and only the owner, a writer or a reader of the repository (as the
 * ledger says now) gets keys; everyone else gets NotReaderError.
 */
import { randomBytes } from 'node:crypto';
import { canRead, NotReaderError } from '../../src/core/read-access.ts';
import type { KeyService, OpenedKeys, RepositoryName } from '../../src/ports/key-service.ts';
import type { Ledger } from '../../src/ports/ledger.ts';

export class MemoryKeyService implements KeyService {
  readonly maxKeysPerRequest: number;
  /** Requests "sent to the key servers" (one per batch). */
  requests = 0;
  sealed = 0;
  /** Calls of `prepare` (a fetch of a private repository makes one per round of packs it applies). */
  prepared = 0;
  /** Data keys handed out (each opened key decrypts once, however often it is asked for). */
  decrypted = 0;
  readonly #ledger: Ledger;
  readonly #keys = new Map<string, Uint8Array>();

  constructor(ledger: Ledger, maxKeysPerRequest = 100) {
    this.#ledger = ledger;
    this.maxKeysPerRequest = maxKeysPerRequest;
  }

  async seal(identity: Uint8Array, dataKey: Uint8Array): Promise<string> {
    this.sealed += 1;
    const sealedKey = Buffer.concat([identity, randomBytes(8)]).toString('hex');
    this.#keys.set(sealedKey, dataKey.slice());
    return sealedKey;
  }

  async identityOf(sealedKey: string): Promise<Uint8Array> {
    return Uint8Array.from(Buffer.from(sealedKey, 'hex').subarray(0, -8));
  }

  prepare(): void {
    this.prepared += 1;
  }

  forLease(): KeyService {
    throw new Error('the memory key service answers members only: lease access runs on the devnet key servers (test/seal/)');
  }

  forLeaseSecrets(): KeyService {
    throw new Error('the memory key service answers members only: lease secrets run on the devnet key servers');
  }

  async open(repository: RepositoryName, sealedKeys: readonly string[]): Promise<OpenedKeys> {
    const keys: Uint8Array[] = [];
    for (let start = 0; start < sealedKeys.length; start += this.maxKeysPerRequest) {
      this.requests += 1;
      const address = await this.#ledger.signerAddress();
      if (!canRead(await this.#ledger.getRepository(repository.id), address)) throw new NotReaderError(repository, address);
      for (const sealedKey of sealedKeys.slice(start, start + this.maxKeysPerRequest)) {
        const key = this.#keys.get(sealedKey);
        if (key === undefined) throw new Error(`no key was sealed as ${sealedKey}`);
        keys.push(key);
      }
    }
    return keys.map((key) => {
      let decrypted: Promise<Uint8Array> | null = null;
      return () => (decrypted ??= (async () => { this.decrypted += 1; return key; })());
    });
  }
}

/** A KeyService that fails the test if anything asks it: a public repository must never touch Seal. */
export const untouchableKeyService: KeyService = {
  maxKeysPerRequest: 100,
  seal: async () => { throw new Error('a public repository sealed a key'); },
  identityOf: async () => { throw new Error('a public repository read a sealed key'); },
  open: async () => { throw new Error('a public repository asked the key servers'); },
  prepare: () => { throw new Error('a public repository prepared a key session'); },
  forLease: () => { throw new Error('a public repository asked for lease access'); },
  forLeaseSecrets: () => { throw new Error('a public repository asked for lease secrets'); },
};
