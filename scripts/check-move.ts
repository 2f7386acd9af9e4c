/**
 * Syntax check of the Move package without a Move compiler: parses every .move file with Mysten's Move 2024
 * tree-sitter grammar (shipped as tree-sitter-move.wasm in @mysten/prettier-plugin-move) and prints
 * `file:line:col: message` for each parse error or missing token, for legacy `struct` declarations without
 * `public` and for `friend`. Also fails when a generated Move test file is stale (scripts/gen-move-tests.ts).
 * It does NOT check names, types, abilities or borrows: `sui move build` / `sui move test` do that.
 *
 * Usage: node scripts/check-move.ts [dir-or-file…]   (default: contracts/). Exit 1 on any finding.
 */
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import Parser from 'web-tree-sitter';
import { staleGeneratedFiles } from './gen-move-tests.ts';

export interface Finding {
  file: string;
  line: number;
  column: number;
  message: string;
}

let language: Promise<Parser.Language> | undefined;

function loadMove(): Promise<Parser.Language> {
  language ??= (async () => {
    await Parser.init();
    const require = createRequire(import.meta.url);
    return Parser.Language.load(require.resolve('@mysten/prettier-plugin-move/tree-sitter-move.wasm'));
  })();
  return language;
}

/** Findings for one Move source (pure apart from the parser). */
export async function checkMoveSource(file: string, text: string): Promise<Finding[]> {
  const move = await loadMove(); // Parser.init() must finish before a Parser is constructed
  const parser = new Parser();
  parser.setLanguage(move);
  const tree = parser.parse(text);
  const findings: Finding[] = [];
  const at = (row: number, column: number, message: string) => findings.push({ file, line: row + 1, column: column + 1, message });

  const visit = (node: Parser.SyntaxNode): void => {
    if (node.type === 'ERROR') {
      const snippet = node.text.split('\n')[0]!.slice(0, 40);
      at(node.startPosition.row, node.startPosition.column, `syntax error near \`${snippet}\``);
      return;
    }
    if (node.isMissing()) {
      at(node.startPosition.row, node.startPosition.column, `missing \`${node.type}\``);
      return;
    }
    for (const child of node.children) visit(child);
  };
  visit(tree.rootNode);
  tree.delete();
  parser.delete();

  text.split('\n').forEach((line, row) => {
    const struct = /^(\s*)(native\s+)?struct\s/.exec(line);
    if (struct) at(row, struct[1]!.length, 'legacy `struct` declaration: Move 2024 needs `public struct`');
    const friend = /\bfriend\b/.exec(line.replace(/\/\/.*$/, ''));
    if (friend) at(row, friend.index, '`friend` is legacy: use `public(package)`');
  });
  return findings.sort((a, b) => a.line - b.line || a.column - b.column);
}

function moveFiles(path: string): string[] {
  if (!statSync(path).isDirectory()) return path.endsWith('.move') ? [path] : [];
  return readdirSync(path)
    .sort()
    .flatMap((entry) => (entry === 'build' || entry.startsWith('.') ? [] : moveFiles(join(path, entry))));
}

/** Relative to `cwd` when inside it, absolute otherwise. */
function displayPath(file: string, cwd: string): string {
  const rel = relative(cwd, file);
  return rel === '' || rel.startsWith('..') ? resolve(file) : rel;
}

/** Findings for every .move file under `paths`, with file names relative to `cwd`. */
export async function checkMovePaths(paths: string[], cwd = process.cwd()): Promise<Finding[]> {
  const findings: Finding[] = [];
  for (const file of paths.flatMap(moveFiles)) findings.push(...(await checkMoveSource(displayPath(file, cwd), readFileSync(file, 'utf8'))));
  return findings;
}

async function main(argv: string[]): Promise<number> {
  const root = fileURLToPath(new URL('..', import.meta.url));
  const paths = argv.length > 0 ? argv : [join(root, 'contracts')];
  const findings = await checkMovePaths(paths);
  if (argv.length === 0) {
    for (const file of staleGeneratedFiles(root)) {
      findings.push({ file: displayPath(file, process.cwd()), line: 1, column: 1, message: 'generated file is stale: run `node scripts/gen-move-tests.ts`' });
    }
  }
  for (const f of findings) process.stderr.write(`${f.file}:${f.line}:${f.column}: ${f.message}\n`);
  const count = moveFiles(paths[0]!).length;
  if (findings.length === 0) process.stderr.write(`check-move: ${argv.length === 0 ? count : 'all'} Move files parse cleanly\n`);
  return findings.length === 0 ? 0 : 1;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) process.exitCode = await main(process.argv.slice(2));
