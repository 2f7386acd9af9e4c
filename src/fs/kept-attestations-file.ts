/** The local attester's state (`git walrus attest`): a file, written whole and atomically. */
import { readFile } from 'node:fs/promises';
import { formatKeptAttestations, NOTHING_KEPT, parseKeptAttestations } from '../core/kept-attestations.ts';
import type { AttesterState } from '../ports/attester-state.ts';
import { writeFileAtomic } from './atomic.ts';

export function keptAttestationsFile(path: string): AttesterState {
  return {
    load: async () => {
      const text = await readFile(path, 'utf8').catch((error: NodeJS.ErrnoException) => {
        if (error.code === 'ENOENT') return null;
        throw error;
      });
      return text === null ? NOTHING_KEPT : parseKeptAttestations(text, path);
    },
    save: (kept) => writeFileAtomic(path, formatKeptAttestations(kept)),
  };
}
