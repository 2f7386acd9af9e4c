/**
 * A pack's sealed data key as the chain holds it: Seal's `EncryptedObject` (BCS). Whoever pushed the pack wrote
 * those bytes, so a key that is no EncryptedObject is refused with a code, not the codec's RangeError.
 */
import { EncryptedObject } from '@mysten/seal';
import { WalrusGitError, messageOf } from '../core/errors.ts';

export class MalformedSealedKeyError extends WalrusGitError {
  constructor(reason: string) {
    super('SEALED_KEY_MALFORMED', `a pack's sealed key on chain is no Seal EncryptedObject (${reason}); the pack cannot be decrypted: the pusher wrote a broken key`, { reason });
  }
}

/** What a sealed key names: the Seal identity, the package whose `seal_approve` guards it, the key servers' threshold. */
export function parseSealedKey(hex: string): { bytes: Uint8Array; id: string; packageId: string; threshold: number } {
  const bytes = Uint8Array.from(Buffer.from(hex, 'hex'));
  try {
    const parsed = EncryptedObject.parse(bytes);
    return { bytes, id: parsed.id, packageId: parsed.packageId, threshold: parsed.threshold };
  } catch (error) {
    throw new MalformedSealedKeyError(messageOf(error).split('\n', 1)[0]!.slice(0, 200));
  }
}
