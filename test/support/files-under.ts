import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

/** Every file under `dir` (not following links; one removed meanwhile is skipped), except the subtrees in `skip`. */
export function filesUnder(dir: string, skip: readonly string[] = []): string[] {
  if (skip.includes(dir) || !existsSync(dir)) return [];
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    const stat = statSync(path, { throwIfNoEntry: false });
    if (stat === undefined) return [];
    return stat.isDirectory() ? filesUnder(path, skip) : stat.isFile() ? [path] : [];
  });
}
