/**
 * Sui personal-message signatures: the provider's gateway checks a tenant's signed request with them
 * (docs/architecture.md, The provider's gateway). Every scheme Sui accepts (Ed25519, secp256k1, secp256r1, multisig,
 * passkey, zkLogin) is checked by the SDK's own verifier.
 */
import { verifyPersonalMessageSignature } from '@mysten/sui/verify';

/** Whether `signature` (Sui's serialized, base64) is `address`'s over `message` as a personal message. */
export async function verifyPersonalMessage(message: Uint8Array, signature: string, address: string): Promise<boolean> {
  try {
    await verifyPersonalMessageSignature(message, signature, { address });
    return true;
  } catch {
    return false;
  }
}
