/**
 * One identity key per shared identity (src/core/shared-pack-key.ts), read through PackKeys with the stock SealClient
 * against the embedded devnet's key servers: a reader decrypts one Seal object for all the packs one pusher sealed under
 * one identity (counted at the key service), every pack still decrypts with a data key of its own, and a sealed key
 * that names another key than it holds, or a salt that was altered, is refused.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { newPackIdentity, PackDecryptionError } from '../../src/core/pack-cipher.ts';
import { accessStateMessage, identityOfSignature } from '../../src/core/pack-identity.ts';
import { encodeSharedSealedKey, identityKeyOfSignature, MalformedSealedKeyError, newSalt, parseSealedPackKey, UnsupportedSealedKeyError } from '../../src/core/shared-pack-key.ts';
import type { KeyService } from '../../src/ports/key-service.ts';
import type { PackEntry } from '../../src/ports/ledger.ts';
import { newPackSealing, PackKeys } from '../../src/remote/sealed-packs.ts';
import { closePrivateVault, openPrivateVault, vaultKeyService, type PrivateVault } from '../support/private-vault.ts';

const test = suite<PrivateVault>('Seal: one identity key per shared identity');

test.before(async (context) => { await openPrivateVault(context, 'walrus-shared-pack-key-'); });
test.after(async (context) => { await closePrivateVault(context); });

/** The owner's shared identity and identity key of the vault's access state, as a push derives them. */
async function sharedIdentity(context: PrivateVault) {
  const message = accessStateMessage(context.repository.id, { removals: 0, endedLeases: 0, members: [context.repository.owner] });
  const signature = Buffer.from((await context.ownerKey.signPersonalMessage(message)).signature, 'base64');
  return { identity: identityOfSignature(context.repository.id, signature), identityKey: identityKeyOfSignature(signature) };
}

/** Packs of `plaintexts`, each sealed as a push seals it under `identity` (and `identityKey` when shared). */
async function sealPacks(context: PrivateVault, plaintexts: string[], identity: Uint8Array, identityKey: Uint8Array | null) {
  const service = vaultKeyService(context, context.ownerKey);
  const packs: Array<PackEntry & { sealedKey: string }> = [];
  const stored: Uint8Array[] = [];
  for (const text of plaintexts) {
    const { encryptor, sealedKey } = await newPackSealing(service, identity, identityKey);
    stored.push(Buffer.concat([encryptor.header, encryptor.frame(Buffer.from(text), true)]));
    packs.push({ chunks: [], size: 0, sha256: '', sealedKey });
  }
  return { packs, stored };
}

/** The owner's key service, counting the sealed keys it decrypts (each a Seal decryption: pairings and checks). */
function countingService(context: PrivateVault): { service: KeyService; decrypted: () => number } {
  const inner = vaultKeyService(context, context.ownerKey);
  let decrypted = 0;
  const service: KeyService = {
    maxKeysPerRequest: inner.maxKeysPerRequest,
    forLease: (grant) => inner.forLease(grant),
    forLeaseSecrets: (grant) => inner.forLeaseSecrets(grant),
    seal: (identity, dataKey) => inner.seal(identity, dataKey),
    identityOf: (sealedKey) => inner.identityOf(sealedKey),
    prepare: () => inner.prepare(),
    open: async (repository, sealedKeys) => (await inner.open(repository, sealedKeys)).map((key) => () => { decrypted += 1; return key(); }),
  };
  return { service, decrypted: () => decrypted };
}

async function readAll(context: PrivateVault, service: KeyService, packs: PackEntry[], stored: Uint8Array[]): Promise<string[]> {
  const keys = (await PackKeys.of({ ledger: context.owner, keyService: service }, await context.owner.getRepository(context.repository.id), packs, 0))!;
  const texts: string[] = [];
  for (const [i, bytes] of stored.entries()) texts.push(Buffer.from((await keys.decryptor(i)).all(bytes)).toString());
  return texts;
}

test('a reader decrypts one sealed key for every pack of one identity key, and each pack its own data key', async (context) => {
  const { identity, identityKey } = await sharedIdentity(context);
  const texts = ['one', 'two', 'three', 'four', 'five', 'six'];
  const { packs, stored } = await sealPacks(context, texts, identity, identityKey);
  const random = await sealPacks(context, ['alone'], newPackIdentity(context.repository.id), null);
  const salts = new Set(packs.map((pack) => {
    const key = parseSealedPackKey(pack.sealedKey);
    return key.shared ? Buffer.from(key.salt).toString('hex') : 'none';
  }));
  assert.is(salts.size, texts.length, 'a salt of its own per pack');
  const { service, decrypted } = countingService(context);
  assert.equal(await readAll(context, service, [...packs, ...random.packs], [...stored, ...random.stored]), [...texts, 'alone']);
  assert.is(decrypted(), 2, 'one Seal decryption for the six shared packs, one for the pack under a random identity');
  assert.is(parseSealedPackKey(random.packs[0]!.sealedKey).shared, false, 'a random identity keeps the plain form');
});

test('a pack naming an identity key its sealed key does not hold is refused, and the next pack opens its own', async (context) => {
  const { identity, identityKey } = await sharedIdentity(context);
  const { packs, stored } = await sealPacks(context, ['honest one', 'honest two'], identity, identityKey);
  // A writer's pack: the honest key id and salt, but the Seal object of another key under the same identity.
  const forged = await sealPacks(context, ['forged'], identity, new Uint8Array(32).fill(7));
  const first = parseSealedPackKey(packs[0]!.sealedKey);
  const other = parseSealedPackKey(forged.packs[0]!.sealedKey);
  const mixed = { ...forged.packs[0]!, sealedKey: packs[0]!.sealedKey.slice(0, packs[0]!.sealedKey.length - first.sealed.length) + other.sealed };
  const { service, decrypted } = countingService(context);
  const keys = (await PackKeys.of({ ledger: context.owner, keyService: service }, await context.owner.getRepository(context.repository.id), [mixed, ...packs], 0))!;
  const refused = await keys.decryptor(0).then(() => null, (error: unknown) => error);
  assert.instance(refused, PackDecryptionError);
  assert.match((refused as Error).message, /opens to another key than the key id it records/);
  assert.is(Buffer.from((await keys.decryptor(1)).all(stored[0]!)).toString(), 'honest one');
  assert.is(Buffer.from((await keys.decryptor(2)).all(stored[1]!)).toString(), 'honest two');
  assert.is(decrypted(), 2, 'the forged pack and the first honest one each decrypted their own sealed key; the second derived its key');
});

test('a key id or salt altered on chain is refused', async (context) => {
  const { identity, identityKey } = await sharedIdentity(context);
  const { packs, stored } = await sealPacks(context, ['pack'], identity, identityKey);
  const flip = (hex: string, at: number) => hex.slice(0, at) + (hex[at] === '0' ? '1' : '0') + hex.slice(at + 1);
  // The key id starts after "wgsk" and the version (5 bytes), the salt after the 32-byte key id.
  for (const [what, at, reason] of [['key id', 10, /key id it records/], ['salt', 10 + 64, /does not decrypt/]] as const) {
    const altered = [{ ...packs[0]!, sealedKey: flip(packs[0]!.sealedKey, at) }];
    const { service } = countingService(context);
    const refused = await readAll(context, service, altered, stored).then(() => null, (error: unknown) => error);
    assert.instance(refused, PackDecryptionError, what);
    assert.match((refused as Error).message, reason, what);
  }
});

test('a sealed key of a newer shared-key form asks for an upgrade; a form no version wrote is malformed', () => {
  const sealed = encodeSharedSealedKey(new Uint8Array(32).fill(7), newSalt(), '00');
  const withVersion = (version: number) => sealed.slice(0, 8) + version.toString(16).padStart(2, '0') + sealed.slice(10);
  assert.is(parseSealedPackKey(sealed).shared, true);
  const newer = (() => { try { parseSealedPackKey(withVersion(2)); } catch (error) { return error; } })();
  assert.instance(newer, UnsupportedSealedKeyError);
  assert.match((newer as Error).message, /upgrade git-remote-walrus/);
  assert.throws(() => parseSealedPackKey(withVersion(0)), (error: unknown) => error instanceof MalformedSealedKeyError);
  assert.throws(() => parseSealedPackKey(sealed.slice(0, 8)), (error: unknown) => error instanceof MalformedSealedKeyError);
});

test.run();
