/**
 * Every path docs/architecture.md names exists (part of `npm run lint`): a file or folder the document points a
 * reader to and that has moved or gone is a finding. A path from the repository's root (`src/…`, `test/…`,
 * `contracts/…`) must exist as written; a shorter one (`remote/push.ts`, `reconcile/steps/`, `queue.ts`, as the
 * document writes them inside a section about one folder) must be the end of a path in the repository.
 *
 *   node scripts/check-doc-paths.ts [document…]   (default: docs/architecture.md) exit 1 on any missing path
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { posix } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOTS = ['src', 'test', 'scripts', 'bench', 'docs', 'contracts', 'deploy', 'examples', 'bin'];
const CODE_FILE = /\.(ts|cjs|js|move|sh)$/;
/**
 * What the document names that lives outside the tree: build output (ours, and a build report in a checkout), installed packages, run-time state, git refs,
 * URLs and Kubernetes API groups (a host name before the slash).
 */
const NOT_IN_TREE = /^(dist|node_modules|chain|\.walrus-build)\/|[<>$~*{}]|:\/\/|^refs\/|^[a-z0-9-]+\.[a-z0-9.-]+\//;

export interface MissingPath {
  line: number;
  path: string;
}

/**
 * The paths `text` (the document at `document`) names: its links' targets, from the root; inside code spans anything
 * path-shaped; in prose what starts at a root folder or is a source file.
 */
export function namedPaths(text: string, document = 'docs/architecture.md'): Array<{ line: number; path: string }> {
  const found: Array<{ line: number; path: string }> = [];
  text.split('\n').forEach((content, index) => {
    const add = (raw: string) => {
      const path = raw.replace(/^[('"`]+|[)'"`,.;:]+$/g, '');
      if (path === '' || NOT_IN_TREE.test(path) || path.startsWith('-') || /^\.\w+$/.test(path)) return;
      found.push({ line: index + 1, path });
    };
    for (const link of content.matchAll(/\]\(([^)#\s]+)/g)) if (!link[1]!.includes('://')) found.push({ line: index + 1, path: posix.normalize(posix.join(posix.dirname(document), link[1]!)) });
    for (const span of content.matchAll(/`([^`]+)`/g)) {
      for (const word of span[1]!.split(/\s+/)) if (/^[\w.-]+(\/[\w.-]*)+$/.test(word) || CODE_FILE.test(word)) add(word);
    }
    const prose = content.replace(/`[^`]*`/g, ' ').replace(/\]\([^)]*\)/g, ']');
    for (const word of prose.split(/[\s(),;]+/)) {
      const bare = word.replace(/[.:]+$/, '');
      if (ROOTS.some((root) => bare.startsWith(`${root}/`)) || /^[\w-]+(\/[\w.-]+)*\.(ts|move|cjs)$/.test(bare)) add(bare);
    }
  });
  return found;
}

/** The named paths that are not in `files` (the repository's files, `/`-separated, from its root). */
export function missingPaths(text: string, files: readonly string[], document?: string): MissingPath[] {
  const folders = new Set<string>();
  for (const file of files) for (let at = file.indexOf('/'); at >= 0; at = file.indexOf('/', at + 1)) folders.add(file.slice(0, at));
  const all = [...files, ...folders];
  const exists = (path: string) => {
    const exact = path.replace(/\/$/, '');
    if (files.includes(exact) || folders.has(exact)) return true;
    if (ROOTS.some((root) => exact === root || exact.startsWith(`${root}/`))) return false;
    return all.some((candidate) => candidate.endsWith(`/${exact}`));
  };
  return namedPaths(text, document).filter(({ path }) => !exists(path));
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const root = fileURLToPath(new URL('..', import.meta.url));
  const files = execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard'], { cwd: root, encoding: 'utf8' }).split('\n').filter(Boolean);
  const documents = process.argv.slice(2).length > 0 ? process.argv.slice(2) : ['docs/architecture.md'];
  let missing = 0;
  for (const document of documents) {
    for (const { line, path } of missingPaths(readFileSync(`${root}${document}`, 'utf8'), files, document)) {
      console.error(`${document}:${line}: '${path}' does not exist`);
      missing++;
    }
  }
  if (missing > 0) process.exit(1);
  console.log(`check-doc-paths: every path ${documents.join(', ')} names exists`);
}
