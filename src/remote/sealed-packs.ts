/**
 * The private-repository side of push and fetch (docs/architecture.md, Private repositories (Seal)): a pack is
 * encrypted while it streams to the blob store, and decrypted while it streams into git, with keys the key service
 * opens a window at a time.
 */
import { setImmediate as nextTurn } from 'node:timers/promises';
import { InternalError } from '../core/errors.ts';
import { isIdentityOf, newDataKey, PackDecryptionError, PackDecryptor, PackEncryptor } from '../core/pack-cipher.ts';
import { canRead, NotReaderError } from '../core/read-access.ts';
import { encodeSharedSealedKey, identityKeyId, newSalt, parseSealedPackKey, sharedDataKey, type SealedPackKey } from '../core/shared-pack-key.ts';
import type { KeyService, OpenedKeys } from '../ports/key-service.ts';
import type { Ledger, PackEntry, RepositoryInfo } from '../ports/ledger.ts';
import { NoKeyServersError } from './errors.ts';
import type { SpooledPack } from '../ports/local-repository.ts';

/** A private repository's next pack: its encryptor, and the sealed key its entry records. */
export interface PackSealing {
  encryptor: PackEncryptor;
  sealedKey: string;
}

/**
 * The data key of one pack (or sealed artifact) under `identity`: derived from `identityKey` and a fresh salt when the
 * identity is shared (Seal then seals the identity key, which a reader opens once for all of them), a fresh key
 * sealed by itself otherwise.
 */
export async function newPackSealing(keyService: KeyService, identity: Uint8Array, identityKey: Uint8Array | null = null): Promise<PackSealing> {
  if (identityKey === null) {
    const dataKey = newDataKey();
    return { encryptor: new PackEncryptor(dataKey, identity), sealedKey: await keyService.seal(identity, dataKey) };
  }
  const salt = newSalt();
  const sealedKey = encodeSharedSealedKey(identityKey, salt, await keyService.seal(identity, identityKey));
  return { encryptor: new PackEncryptor(sharedDataKey(identityKey, salt), identity), sealedKey };
}

/**
 * The stored (encrypted) bytes of the pack `plain` spools, read in order as `uploadPack` reads: a frame of plaintext
 * at a time is read from the spool and encrypted, so nothing but one frame and the caller's buffer is held.
 */
export function encryptingSpool(plain: SpooledPack, encryptor: PackEncryptor): SpooledPack {
  const frameSize = encryptor.frameSize;
  // One byte more than a frame: whether a full frame is the last shows only in what follows it.
  const scratch = new Uint8Array(frameSize + 1);
  let plainOffset = 0;
  let delivered = 0;
  let pending: Uint8Array = encryptor.header;
  let finished = false;
  const next = async (): Promise<Uint8Array> => {
    const got = await plain.read(plainOffset, scratch);
    const last = got <= frameSize;
    const frame = encryptor.frame(scratch.subarray(0, Math.min(got, frameSize)), last);
    plainOffset += frameSize;
    finished = last;
    return frame;
  };
  return {
    async read(offset, into) {
      if (offset !== delivered) throw new InternalError(`an encrypted pack is read in order: asked for offset ${offset} after ${delivered} bytes`);
      let filled = 0;
      while (filled < into.length) {
        if (pending.length === 0) {
          if (finished) break;
          pending = await next();
        }
        const n = Math.min(pending.length, into.length - filled);
        into.set(pending.subarray(0, n), filled);
        pending = pending.subarray(n);
        filled += n;
      }
      delivered += filled;
      return filled;
    },
    discard: () => plain.discard(),
  };
}

/**
 * Starts the key session of a private repository (nothing for a public one) while the reads before `PackKeys.of`
 * (the pack list) are under way.
 */
export function prepareKeys(deps: { keyService?: KeyService }, repository: RepositoryInfo): void {
  if (repository.private) deps.keyService?.prepare();
}

/** The keys of one window of packs: their identities and their data keys as they decrypt. */
interface KeyWindow {
  index: number;
  /** Whether its keys are being decrypted ahead of the packs. */
  ahead: boolean;
  opened: Promise<{ identities: Uint8Array[]; keys: OpenedKeys }>;
}

/**
 * The data keys of packs `from`, `from + 1`, … of a private repository, opened from the key service a window of
 * `maxKeysPerRequest` packs at a time as a reader reaches them (a long fetch asks again later, with a renewed
 * session). Creating it checks that the signer may read at all (unless it asks as the provider of a lease), so a
 * refused user gets one clear line before any download and no key server is asked; it then asks for the first window at once, so the key servers answer while
 * the first chunks download.
 */
export class PackKeys {
  readonly #keyService: KeyService;
  readonly #repository: RepositoryInfo;
  readonly #packs: readonly PackEntry[];
  readonly #from: number;
  #window: KeyWindow | null = null;
  /**
   * Identity keys opened so far (src/core/shared-pack-key.ts), by identity and key id: each is decrypted from the
   * sealed key of the first pack that names it, and every later pack naming it derives its data key with no Seal work.
   */
  readonly #identityKeys = new Map<string, Promise<Uint8Array>>();

  private constructor(keyService: KeyService, repository: RepositoryInfo, packs: readonly PackEntry[], from: number) {
    this.#keyService = keyService;
    this.#repository = repository;
    this.#packs = packs;
    this.#from = from;
  }

  /** Null for a public repository (its packs are stored as they are). */
  static async of(deps: { ledger: Ledger; keyService?: KeyService }, repository: RepositoryInfo, packs: readonly PackEntry[], from: number): Promise<PackKeys | null> {
    if (!repository.private) return null;
    if (deps.keyService === undefined) throw new NoKeyServersError(repository.id);
    // The provider of a lease is no member: the key servers alone judge the lease.
    if (deps.keyService.lease === undefined) {
      const address = await deps.ledger.signerAddress();
      if (!canRead(repository, address)) throw new NotReaderError(repository, address);
    }
    const keys = new PackKeys(deps.keyService, repository, packs, from);
    if (packs.length > 0) keys.#windowOf(0);
    return keys;
  }

  /** A decryptor for the pack at position `offset` of `packs` (pack index `from + offset`). */
  async decryptor(offset: number): Promise<PackDecryptor> {
    const window = this.#windowOf(offset);
    const { identities, keys } = await window.opened;
    const at = offset - window.index * this.#keyService.maxKeysPerRequest;
    return new PackDecryptor(await keys[at]!(), identities[at]!, this.#label(offset));
  }

  /**
   * Starts decrypting the keys of the packs from `offset` to the end of the current window, one per turn of the
   * event loop (local work, about a pairing per share each): a fetch calls it once a pack is written to git, whose
   * indexing it would otherwise only wait for; the first pack, the largest of a clone, covers them all.
   */
  decryptAhead(offset: number): void {
    const window = this.#window;
    const size = this.#keyService.maxKeysPerRequest;
    if (window === null || window.ahead || offset >= this.#packs.length || Math.floor(offset / size) !== window.index) return;
    window.ahead = true;
    void window.opened.then(async ({ keys }) => {
      for (const key of keys.slice(offset - window.index * size)) {
        await nextTurn();
        await key();
      }
    }).catch(() => {}); // a key that does not decrypt fails when its pack asks for it
  }

  /** The window holding the pack at `offset`, its keys asked for now unless it is the current one. */
  #windowOf(offset: number): KeyWindow {
    const size = this.#keyService.maxKeysPerRequest;
    const index = Math.floor(offset / size);
    if (this.#window?.index !== index) {
      const opened = this.#open(index * size, size);
      opened.catch(() => {}); // observed by `decryptor`; unobserved when the fetch stops before reaching it
      this.#window = { index, opened, ahead: false };
    }
    return this.#window!;
  }

  async #open(first: number, size: number): Promise<{ identities: Uint8Array[]; keys: OpenedKeys }> {
    const sealed = this.#packs.slice(first, first + size).map((pack, i) => parseSealedPackKey(this.#sealedKeyOf(pack, first + i)));
    // Checked before any key request: a writer could record a key sealed under another repository's id, which
    // the key servers would refuse as if the reader had no access.
    const identities: Uint8Array[] = [];
    for (const [i, key] of sealed.entries()) {
      const identity = await this.#keyService.identityOf(key.sealed);
      if (!isIdentityOf(identity, this.#repository.id)) throw new PackDecryptionError(this.#label(first + i), 'its key is sealed for another repository');
      identities.push(identity);
    }
    const opened = await this.#keyService.open(this.#repository, sealed.map((key) => key.sealed));
    return { identities, keys: sealed.map((key, i) => this.#dataKeyOf(identities[i]!, key, opened[i]!, first + i)) };
  }

  /**
   * The data key of the pack at `offset`: what its sealed key opens to, or derived from its identity key, which is
   * opened (and checked against its key id) only if no earlier pack of this fetch opened it under the same identity.
   */
  #dataKeyOf(identity: Uint8Array, key: SealedPackKey, open: () => Promise<Uint8Array>, offset: number): () => Promise<Uint8Array> {
    if (!key.shared) return open;
    const name = `${Buffer.from(identity).toString('hex')}:${Buffer.from(key.keyId).toString('hex')}`;
    const ownKey = () => checkedIdentityKey(open, key.keyId, this.#label(offset));
    let dataKey: Promise<Uint8Array> | null = null;
    return () => (dataKey ??= (async () => {
      const known = this.#identityKeys.get(name);
      if (known !== undefined) return sharedDataKey(await known.catch(ownKey), key.salt);
      const mine = ownKey();
      this.#identityKeys.set(name, mine);
      // A pack whose sealed key does not open to the key it names fails alone: the next pack naming it tries its own.
      mine.catch(() => { if (this.#identityKeys.get(name) === mine) this.#identityKeys.delete(name); });
      return sharedDataKey(await mine, key.salt);
    })());
  }

  /** The plaintext of the whole stored pack at position `offset` (`show` and `verify --deep` hold packs whole). */
  async decryptAll(offset: number, stored: Uint8Array): Promise<Uint8Array> {
    return (await this.decryptor(offset)).all(stored);
  }

  #sealedKeyOf(pack: PackEntry, offset: number): string {
    // The contract requires one on every pack of a private repository.
    if (pack.sealedKey === undefined) throw new PackDecryptionError(this.#label(offset), 'the private repository records no sealed key for it');
    return pack.sealedKey;
  }

  #label(offset: number): string {
    return `pack ${this.#from + offset} of repository ${this.#repository.id}`;
  }
}

/** The identity key `open` decrypts, refused unless it is the one the pack's key id names. */
async function checkedIdentityKey(open: () => Promise<Uint8Array>, keyId: Uint8Array, label: string): Promise<Uint8Array> {
  const identityKey = await open();
  if (!Buffer.from(identityKeyId(identityKey)).equals(keyId)) throw new PackDecryptionError(label, 'its sealed key opens to another key than the key id it records');
  return identityKey;
}

/** The repository a data key was sealed for (the first 32 bytes of its identity), read locally. */
export async function sealedRepositoryId(keyService: KeyService, sealedKey: string): Promise<string> {
  return repositoryOfIdentity(await keyService.identityOf(parseSealedPackKey(sealedKey).sealed));
}

function repositoryOfIdentity(identity: Uint8Array): string {
  return `0x${Buffer.from(identity.subarray(0, 32)).toString('hex')}`;
}

/**
 * A decryptor for one stream sealed as a pack is, under `sealedKey` (a private repository's build artifact): the
 * key's identity names the repository, whose members get the key, or the provider of a lease on it when the key
 * service asks under that lease. A member check comes first, as for packs, so a refused user gets one clear line.
 */
export async function openSealedStream(deps: { ledger: Ledger; keyService: KeyService }, sealedKey: string, label: string): Promise<PackDecryptor> {
  const { ledger, keyService } = deps;
  const parsed = parseSealedPackKey(sealedKey);
  const identity = await keyService.identityOf(parsed.sealed);
  const repository = await ledger.getRepository(repositoryOfIdentity(identity));
  if (!isIdentityOf(identity, repository.id)) throw new PackDecryptionError(label, 'its key is not sealed for a repository');
  if (keyService.lease === undefined) {
    const address = await ledger.signerAddress();
    if (!canRead(repository, address)) throw new NotReaderError(repository, address);
  }
  const [key] = await keyService.open(repository, [parsed.sealed]);
  const dataKey = parsed.shared ? sharedDataKey(await checkedIdentityKey(key!, parsed.keyId, label), parsed.salt) : await key!();
  return new PackDecryptor(dataKey, identity, label);
}
