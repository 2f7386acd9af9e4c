/**
 * What an attester keeps between runs (docs/architecture.md, Reproduced builds): the builds it made and may have
 * committed to, so that a restart reveals them without building again, and the (repository, commit) pairs it is done
 * with, so that a restart does not build those again either. Small and pure: the stores (a ConfigMap in the
 * controller's namespace, a file under GIT_WALRUS_HOME) keep its JSON.
 */
import { WalrusGitError } from './errors.ts';

/** A build made for attestation, under its key, until its attestation is revealed or missed. */
export interface KeptBuild {
  repositoryId: string;
  commit: string;
  /** The lease that asked for it. */
  lease: string;
  tarSha256: string;
  manifestRoot: string;
  buildKey: string;
  /** The image the key names. */
  image: string;
}

export interface KeptAttestations {
  builds: KeptBuild[];
  /** `repository:commit` pairs finished (revealed, missed, or not attestable), newest last, at most FINISHED_KEPT. */
  finished: string[];
}

export const FINISHED_KEPT = 256;

export const NOTHING_KEPT: KeptAttestations = { builds: [], finished: [] };

/** The stored state of an attester cannot be read. What to do: remove it (the attester then builds its heads again). */
export class KeptAttestationsError extends WalrusGitError {
  constructor(source: string, detail: string) {
    super('ATTESTER_STATE_INVALID', `${source} is not an attester's state (${detail}): remove it, and the attester builds its heads again`, { source });
  }
}

const HEX64 = /^[0-9a-f]{64}$/;

export function parseKeptAttestations(text: string, source: string): KeptAttestations {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new KeptAttestationsError(source, 'not JSON');
  }
  const { builds, finished } = (parsed ?? {}) as Partial<Record<keyof KeptAttestations, unknown>>;
  if (!Array.isArray(builds) || !Array.isArray(finished) || !finished.every((key) => typeof key === 'string')) throw new KeptAttestationsError(source, 'expected {builds, finished}');
  const strings = ['repositoryId', 'commit', 'lease', 'image'] as const;
  for (const build of builds as Record<string, unknown>[]) {
    const ok = build !== null && typeof build === 'object' && strings.every((field) => typeof build[field] === 'string') &&
      [build.tarSha256, build.manifestRoot, build.buildKey].every((value) => typeof value === 'string' && HEX64.test(value));
    if (!ok) throw new KeptAttestationsError(source, 'a build lacks its repository, commit, lease, image or digests');
  }
  return { builds: builds as KeptBuild[], finished: finished as string[] };
}

export function formatKeptAttestations(kept: KeptAttestations): string {
  return `${JSON.stringify({ builds: kept.builds, finished: kept.finished.slice(-FINISHED_KEPT) })}\n`;
}
