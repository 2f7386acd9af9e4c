/**
 * A pack's sealed data key as the chain holds it: Seal's `EncryptedObject` (BCS). Whoever pushed the pack wrote
 * those bytes, so a key that is no EncryptedObject is refused with a code, not the codec's RangeError.
 */
import { EncryptedObject } from '@mysten/seal';
import { messageOf } from '../core/errors.ts';
import { MalformedSealedKeyError } from '../core/shared-pack-key.ts';

/** What a sealed key names: the Seal identity, the package whose `seal_approve` guards it, the key servers' threshold. */
export function parseSealedKey(hex: string): { bytes: Uint8Array; id: string; packageId: string; threshold: number } {
  const bytes = Uint8Array.from(Buffer.from(hex, 'hex'));
  try {
    const parsed = EncryptedObject.parse(bytes);
    return { bytes, id: parsed.id, packageId: parsed.packageId, threshold: parsed.threshold };
  } catch (error) {
    throw new MalformedSealedKeyError('no Seal EncryptedObject: ' + messageOf(error).split('\n', 1)[0]!.slice(0, 200));
  }
}
