/**
 * The size of noble's table for BLS12-381's G2 base point, which the Seal SDK multiplies in every process that seals
 * or opens keys: once per key request (the session's ElGamal verification key), once per data key opened (its nonce
 * check) and once per data key sealed. noble builds the table on the first multiplication with 6-bit windows (1,408 points),
 * sized for many multiplications; a helper makes a few to a few dozen. 4-bit windows (520 points) cost a third of
 * the build and about as much per multiplication (CPU time of a fresh process: 2 multiplications 0.29 s → 0.16 s, 12
 * multiplications 0.34 s → 0.23 s). The multiplication stays noble's constant-time one; no point is checked less.
 */
import { bls12_381 } from '@noble/curves/bls12-381.js';

const G2_BASE_WINDOW_BITS = 4;

let sized = false;

/** Sizes the table (before its first use; once per process). */
export function sizeG2BaseTable(): void {
  if (sized) return;
  sized = true;
  bls12_381.G2.Point.BASE.precompute(G2_BASE_WINDOW_BITS);
}
