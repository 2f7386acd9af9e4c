/**
 * Generates the error catalogue docs/errors.md from the code: every `WalrusGitError` code under src/, the class that
 * carries it, when it is thrown (the class's doc comment), what the user sees (the message, with `<…>` where the
 * code fills in a value) and what to do. Found by reading the classes with the TypeScript compiler: a class's
 * `super(…)` call is followed up to `WalrusGitError`'s constructor, the arguments each level passes substituted, and a
 * class that takes its code as a parameter is listed once per `new …('CODE', …)` in the code. "What to do" is the
 * class's `What to do:` line when its comment has one, else the part of the message that tells the user what to do.
 *
 *   node scripts/gen-errors.ts           write the catalogue
 *   node scripts/gen-errors.ts --check   exit 1 when the catalogue is stale (part of `npm run lint`)
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { writeOrCheck } from './generated-file.ts';

const root = fileURLToPath(new URL('..', import.meta.url));
export const CATALOGUE = `${root}docs/errors.md`;
const BASE = 'WalrusGitError';

export interface CatalogueEntry {
  code: string;
  className: string;
  file: string;
  when: string;
  message: string;
  retryable: boolean;
  remedy: string;
}

interface ClassInfo {
  name: string;
  file: string;
  parent: string | null;
  params: string[];
  superArgs: readonly ts.Expression[] | null;
  doc: string;
  source: ts.SourceFile;
}

/**
 * A rendered argument: literal text, `<name>` where the value is only known at run time, `[x]` for a part that may be
 * left out and `{x | y}` for one of two wordings.
 */
type Bindings = Map<string, string>;

/** The message text of `expression` with `bindings` for the names it uses; anything else shown as `<its source>`. */
function render(expression: ts.Expression, bindings: Bindings, source: ts.SourceFile): string {
  if (ts.isStringLiteral(expression) || ts.isNoSubstitutionTemplateLiteral(expression)) return expression.text;
  if (ts.isTemplateExpression(expression)) {
    return expression.head.text + expression.templateSpans.map((span) => render(span.expression, bindings, source) + span.literal.text).join('');
  }
  if (ts.isParenthesizedExpression(expression)) return render(expression.expression, bindings, source);
  if (ts.isBinaryExpression(expression) && expression.operatorToken.kind === ts.SyntaxKind.PlusToken) {
    return render(expression.left, bindings, source) + render(expression.right, bindings, source);
  }
  if (ts.isIdentifier(expression) && bindings.has(expression.text)) return bindings.get(expression.text)!;
  if (ts.isConditionalExpression(expression)) {
    // Two wordings: `[x]` when one is empty, else `{x | y}`.
    const [yes, no] = [render(expression.whenTrue, bindings, source), render(expression.whenFalse, bindings, source)];
    return yes === '' || no === '' ? `[${yes || no}]` : `{${yes} | ${no}}`;
  }
  return `<${expression.getText(source).replace(/\s+/g, ' ')}>`;
}

function docOf(node: ts.Node, source: ts.SourceFile): string {
  const ranges = ts.getLeadingCommentRanges(source.text, node.getFullStart()) ?? [];
  const last = ranges.filter((range) => source.text.slice(range.pos, range.pos + 3) === '/**').at(-1);
  if (!last) return '';
  return source.text.slice(last.pos + 3, last.end - 2).split('\n').map((line) => line.replace(/^\s*\*\s?/, '')).join(' ').replace(/\s+/g, ' ').trim();
}

function classesOf(source: ts.SourceFile, file: string): ClassInfo[] {
  const found: ClassInfo[] = [];
  const visit = (node: ts.Node) => {
    if (ts.isClassDeclaration(node) && node.name) {
      const heritage = node.heritageClauses?.find((clause) => clause.token === ts.SyntaxKind.ExtendsKeyword)?.types[0];
      const constructor = node.members.find(ts.isConstructorDeclaration);
      let superArgs: readonly ts.Expression[] | null = null;
      constructor?.body?.forEachChild(function find(child) {
        if (ts.isCallExpression(child) && child.expression.kind === ts.SyntaxKind.SuperKeyword) superArgs = child.arguments;
        else child.forEachChild(find);
      });
      found.push({
        name: node.name.text, file, source, superArgs, doc: docOf(node, source),
        parent: heritage ? heritage.expression.getText(source) : null,
        params: constructor ? constructor.parameters.map((parameter) => parameter.name.getText(source)) : [],
      });
    }
    node.forEachChild(visit);
  };
  visit(source);
  return found;
}

/** `new <name>(…)` calls whose first argument is a string literal: the codes a parameterised class is thrown with. */
function constructionsOf(source: ts.SourceFile): Array<{ name: string; args: readonly ts.Expression[] }> {
  const found: Array<{ name: string; args: readonly ts.Expression[] }> = [];
  const visit = (node: ts.Node) => {
    if (ts.isNewExpression(node) && ts.isIdentifier(node.expression) && node.arguments?.[0] && ts.isStringLiteral(node.arguments[0])) {
      found.push({ name: node.expression.text, args: node.arguments });
    }
    node.forEachChild(visit);
  };
  visit(source);
  return found;
}

const IMPERATIVE = /^((the|its) (tenant|owner|provider|repository's owner) \w+s\b|run|use|add|ask|fix|grant|set|try|wait|check|top|pass|give|pick|choose|install|start|push|fetch|pull|remove|delete|open|create|point|rename|retry|re-run|report|call|make|keep|free|raise|name|see|fund|move|stop|clone|extend|let|get|upgrade|update|commit|close|sign|claim|publish|write|edit|register|configure|restart|reduce|split|store|drop|unset|release|repack|put|say|go|enable|mount|switch|import|repair|send|state|apply|deposit|lower|increase|leave|cut|correct|reconnect|contact|read|please|restore|renew|ask)\b/i;

/** The clause of `message` that tells the user what to do (after a `;`, `:`, `(`, `,` or a sentence's end), or ''. */
export function remedyOf(message: string): string {
  const clauses = message.split(/;\s+|:\s+|\s+\(|,\s+|\.\s+|\s+-\s+/);
  const at = clauses.findIndex((clause, index) => index > 0 && IMPERATIVE.test(clause.trim()));
  if (at < 0) return '';
  const start = message.indexOf(clauses[at]!);
  // Without what closes the message: an abort's location, or the parenthesis the advice stood in.
  return message.slice(start).replace(/\s*\([^()]*\)$/, '').replace(/[)}]$/, '').trim();
}

/** Every code the classes under `files` (path → source text) carry, sorted by code then class. */
export function catalogueOf(files: ReadonlyMap<string, string>): CatalogueEntry[] {
  const classes = new Map<string, ClassInfo>();
  const constructions: Array<{ name: string; args: readonly ts.Expression[]; source: ts.SourceFile }> = [];
  for (const [file, text] of files) {
    const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
    for (const info of classesOf(source, file)) classes.set(info.name, info);
    for (const construction of constructionsOf(source)) constructions.push({ ...construction, source });
  }
  const descends = (name: string): boolean => {
    for (let at = classes.get(name); at; at = at.parent ? classes.get(at.parent) : undefined) if (at.parent === BASE) return true;
    return name === BASE;
  };
  /** Follows `cls`'s super call up to WalrusGitError with `bindings` for its own parameters. */
  const resolve = (cls: ClassInfo, bindings: Bindings): { code: string | null; message: string; retryable: boolean } | null => {
    if (!cls.superArgs) return null;
    const args = cls.superArgs;
    if (cls.parent === BASE) {
      const code = args[0] && (ts.isStringLiteral(args[0]) ? args[0].text : ts.isIdentifier(args[0]) && /^'[A-Z0-9_]+'$/.test(bindings.get(args[0].text) ?? '') ? bindings.get(args[0].text)!.slice(1, -1) : null);
      const options = args[3];
      const retryableText = options && ts.isObjectLiteralExpression(options)
        ? options.properties.find((p) => p.name?.getText(cls.source) === 'retryable')
        : undefined;
      let retryable = false;
      if (retryableText && ts.isPropertyAssignment(retryableText)) retryable = retryableText.initializer.kind === ts.SyntaxKind.TrueKeyword || bindings.get(retryableText.initializer.getText(cls.source)) === 'true';
      else if (retryableText && ts.isShorthandPropertyAssignment(retryableText)) retryable = bindings.get(retryableText.name.text) === 'true';
      return { code, message: args[1] ? render(args[1], bindings, cls.source) : '', retryable };
    }
    const parent = cls.parent ? classes.get(cls.parent) : undefined;
    if (!parent) return null;
    const passed: Bindings = new Map();
    parent.params.forEach((param, index) => {
      const arg = args[index];
      if (arg === undefined) return;
      passed.set(param, ts.isStringLiteral(arg) && index === 0 ? `'${arg.text}'` : arg.kind === ts.SyntaxKind.TrueKeyword ? 'true' : render(arg, bindings, cls.source));
    });
    return resolve(parent, passed);
  };
  const entries: CatalogueEntry[] = [];
  /** `perCode`: a class thrown with several codes, whose messages say what to do more precisely than its comment. */
  const add = (cls: ClassInfo, resolved: { code: string | null; message: string; retryable: boolean } | null, perCode = false) => {
    if (!resolved?.code) return;
    const [when, stated] = cls.doc.split(/\s*What to do:\s*/);
    const remedy = perCode ? remedyOf(resolved.message) || stated : stated ?? remedyOf(resolved.message);
    entries.push({ code: resolved.code, className: cls.name, file: cls.file, when: when ?? '', message: resolved.message, retryable: resolved.retryable, remedy: remedy ?? '' });
  };
  for (const cls of classes.values()) {
    if (cls.name === BASE || !descends(cls.name)) continue;
    add(cls, resolve(cls, new Map(cls.params.map((param) => [param, `<${param}>`]))));
  }
  for (const { name, args, source } of constructions) {
    const cls = name === BASE ? null : classes.get(name);
    if (name === BASE) {
      const file = source.fileName;
      entries.push({ code: (args[0] as ts.StringLiteral).text, className: BASE, file, when: '', message: args[1] ? render(args[1], new Map(), source) : '', retryable: false, remedy: args[1] ? remedyOf(render(args[1], new Map(), source)) : '' });
      continue;
    }
    if (!cls || !descends(name) || !cls.superArgs || !ts.isIdentifier(cls.superArgs[0]!)) continue;
    const bindings: Bindings = new Map(cls.params.map((param, index) => {
      const arg = args[index];
      if (arg === undefined) return [param, `<${param}>`];
      if (index === 0 && ts.isStringLiteral(arg)) return [param, `'${arg.text}'`];
      return [param, arg.kind === ts.SyntaxKind.TrueKeyword ? 'true' : render(arg, new Map(), source)];
    }));
    add(cls, resolve(cls, bindings), true);
  }
  const seen = new Set<string>();
  return entries
    .filter((entry) => {
      const key = `${entry.code}\u0000${entry.className}\u0000${entry.message}`;
      return seen.has(key) ? false : (seen.add(key), true);
    })
    .sort((a, b) => a.code.localeCompare(b.code) || a.className.localeCompare(b.className) || a.message.localeCompare(b.message));
}

const cell = (text: string) => text.replace(/\|/g, '\\|').replace(/`/g, "'");

/** The catalogue as Markdown. */
export function catalogueMarkdown(entries: readonly CatalogueEntry[]): string {
  const codes = [...new Set(entries.map((entry) => entry.code))];
  const lines = [
    '# Error catalogue',
    '',
    'Generated by `node scripts/gen-errors.ts` from the error classes under `src/` (do not edit by hand; `npm run lint`',
    'fails when it is stale). Every error this project throws on purpose is a `WalrusGitError` with a stable `code`:',
    'match on the code, never on the message. `git walrus` prints the message as one `fatal:` line and exits 1 (129 for',
    'a usage error); the remote helper answers git with it (`error <ref> <message>` for a refused ref, else `fatal:`);',
    'the controller puts it in the app\'s condition and events. `<…>` marks what the message fills in at run time, `[…]`',
    'a part it may leave out, `{… | …}` one of two wordings. A retryable error is a transient fault of the network,',
    'the storage or the cluster: what raised it has retried already, and running the command again may succeed.',
    '',
    `${codes.length} codes, ${entries.length} entries (a code some classes share, or a class thrown with several codes, has one entry each).`,
    '',
    '| Code | Class | When | What the user sees | What to do |',
    '| --- | --- | --- | --- | --- |',
  ];
  for (const entry of entries) {
    const remedy = entry.remedy || (entry.retryable ? 'run it again: the fault is transient' : 'see the message');
    lines.push(`| \`${entry.code}\` | \`${entry.className}\` (${entry.file})${entry.retryable ? ', retryable' : ''} | ${cell(entry.when)} | ${cell(entry.message)} | ${cell(remedy)} |`);
  }
  return `${lines.join('\n')}\n`;
}

function sourceFiles(): Map<string, string> {
  const paths = execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard', 'src/*.ts'], { cwd: root, encoding: 'utf8' }).split('\n').filter(Boolean);
  return new Map(paths.map((path) => [path, readFileSync(`${root}${path}`, 'utf8')]));
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  writeOrCheck(CATALOGUE, catalogueMarkdown(catalogueOf(sourceFiles())), 'node scripts/gen-errors.ts');
}
