/**
 * The order refs are listed in: the default branch first, then branches by name, then tags newest version first
 * (semver's order, pre-releases before their release: v1.10.0 after v1.9.0, v2.0.0-rc.1 before v2.0.0), with tags
 * that are no version after them in natural order (numbers compared as numbers); other refs last, by name.
 */
import semver from 'semver';

const natural = new Intl.Collator('en', { numeric: true, sensitivity: 'base' });

/** `refs/tags/v1.2.3` → its version, or null when the tag is no version. */
function versionOf(name: string): string | null {
  return semver.valid(semver.clean(name.replace(/^refs\/tags\//, ''), { loose: true }));
}

/** Tags, newest version first. */
export function compareTags(a: string, b: string): number {
  const [va, vb] = [versionOf(a), versionOf(b)];
  if (va !== null && vb !== null) return semver.rcompare(va, vb) || natural.compare(a, b);
  if (va !== null || vb !== null) return va !== null ? -1 : 1;
  return natural.compare(b, a);
}

export function sortRefs(names: Iterable<string>, head: string): string[] {
  const rank = (name: string) => (name === head ? 0 : name.startsWith('refs/heads/') ? 1 : name.startsWith('refs/tags/') ? 2 : 3);
  return [...names].sort((a, b) => rank(a) - rank(b) || (rank(a) === 2 ? compareTags(a, b) : natural.compare(a, b)));
}
