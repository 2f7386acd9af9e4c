import { createHash } from 'node:crypto';

/**
 * A tree's manifest: one leaf per entry of its artifact (path, mode and the sha256 of the file's bytes, or of a link's
 * target), and a Merkle root over the leaves in byte order of their paths. Two builds with the same tar sha256 have the
 * same root; when the tar digests differ, comparing the two manifests names the files that differ, which the tar
 * digest alone cannot. Directories carry nothing a build could vary (always 0755, no content) and are left out.
 *
 * Hashing: a leaf is sha256(0x00 ‖ JSON [path, mode, digest]) and an inner node sha256(0x01 ‖ left ‖ right), the
 * prefixes keeping a leaf from passing for a node (RFC 6962's rule); an odd node is carried up unpaired. The root of
 * an empty tree is sha256 of nothing.
 */
export interface ManifestEntry {
  path: string;
  /** 0644, 0755, or 0777 for a link (as the artifact's tar header says). */
  mode: number;
  /** sha256 of the file's bytes or the link's target, lowercase hex. */
  sha256: string;
}

export function manifestRoot(entries: readonly ManifestEntry[]): string {
  let level = sortedEntries(entries).map((entry) => sha256(Buffer.concat([Buffer.of(0), Buffer.from(JSON.stringify([entry.path, entry.mode, entry.sha256]))])));
  if (level.length === 0) return sha256(Buffer.alloc(0)).toString('hex');
  while (level.length > 1) {
    const next: Buffer[] = [];
    for (let i = 0; i < level.length; i += 2) next.push(i + 1 < level.length ? sha256(Buffer.concat([Buffer.of(1), level[i]!, level[i + 1]!])) : level[i]!);
    level = next;
  }
  return level[0]!.toString('hex');
}

/** One path where two manifests disagree: absent on one side, or with another mode or digest. */
export interface ManifestDifference {
  path: string;
  ours: Pick<ManifestEntry, 'mode' | 'sha256'> | null;
  theirs: Pick<ManifestEntry, 'mode' | 'sha256'> | null;
}

/** The paths where `ours` and `theirs` differ, in byte order. */
export function diffManifests(ours: readonly ManifestEntry[], theirs: readonly ManifestEntry[]): ManifestDifference[] {
  const mine = new Map(ours.map((entry) => [entry.path, entry]));
  const other = new Map(theirs.map((entry) => [entry.path, entry]));
  const paths = [...new Set([...mine.keys(), ...other.keys()])].sort(byUtf8);
  const differences: ManifestDifference[] = [];
  for (const path of paths) {
    const a = mine.get(path);
    const b = other.get(path);
    if (a && b && a.mode === b.mode && a.sha256 === b.sha256) continue;
    differences.push({ path, ours: a ? { mode: a.mode, sha256: a.sha256 } : null, theirs: b ? { mode: b.mode, sha256: b.sha256 } : null });
  }
  return differences;
}

function sortedEntries(entries: readonly ManifestEntry[]): ManifestEntry[] {
  return [...entries].sort((a, b) => byUtf8(a.path, b.path));
}

/** Byte order of UTF-8 names: the same on every machine and locale (the artifact's entry order too). */
export function byUtf8(a: string, b: string): number {
  return Buffer.compare(Buffer.from(a), Buffer.from(b));
}

function sha256(bytes: Uint8Array): Buffer {
  return createHash('sha256').update(bytes).digest();
}
