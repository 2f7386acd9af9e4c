import type { KeptAttestations } from '../core/kept-attestations.ts';

/** Where an attester keeps what it built and finished between runs (core/kept-attestations.ts). */
export interface AttesterState {
  /** What was kept; nothing kept yet is NOTHING_KEPT. */
  load(): Promise<KeptAttestations>;
  save(kept: KeptAttestations): Promise<void>;
}
