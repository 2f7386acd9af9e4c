/**
 * `npm run lint` fails on an import against the direction docs/architecture.md draws (dependency-cruiser, run on a
 * fixture tree of wrong imports) and on an ESLint error, and passes on the right ones.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ESLint } from 'eslint';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';

const root = fileURLToPath(new URL('../..', import.meta.url));

/**
 * The rules dependency-cruiser reports for a tree of `files` (path → source), as `from rule`; and the exit status of
 * the run `npm run lint` makes (its default reporter exits with the number of violations).
 */
function violations(files: Record<string, string>): { found: string[]; status: number | null } {
  const dir = mkdtempSync(join(tmpdir(), 'lint-rules-'));
  try {
    symlinkSync(join(root, 'node_modules'), join(dir, 'node_modules'));
    mkdirSync(join(dir, 'test'));
    writeFileSync(join(dir, 'tsconfig.json'), JSON.stringify({ compilerOptions: { module: 'nodenext', allowImportingTsExtensions: true, noEmit: true } }));
    for (const [path, source] of Object.entries(files)) {
      mkdirSync(dirname(join(dir, path)), { recursive: true });
      writeFileSync(join(dir, path), source);
    }
    const depcruise = (...args: string[]) =>
      spawnSync(process.execPath, [join(root, 'node_modules/dependency-cruiser/bin/dependency-cruiser.mjs'), 'src', 'test', '--config', join(root, '.dependency-cruiser.cjs'), ...args], { cwd: dir, encoding: 'utf8' });
    const json = depcruise('--output-type', 'json');
    const report = JSON.parse(json.stdout) as { summary: { violations: { from: string; rule: { name: string } }[] } };
    const found = report.summary.violations.map((v) => `${v.from} ${v.rule.name}`).sort();
    return { found, status: depcruise().status };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const depcruise = suite('dependency rules (.dependency-cruiser.cjs)');

depcruise('imports along the drawn direction pass', () => {
  const { found, status } = violations({
    'src/core/a.ts': 'export const a = 1;\n',
    'src/ports/p.ts': "import type { } from '../core/a.ts';\nexport interface P { a: number }\n",
    'src/remote/use.ts': "import { a } from '../core/a.ts';\nimport type { P } from '../ports/p.ts';\nexport const use = (p: P) => p.a + a;\n",
    'src/cli/cmd.ts': "import type { P } from '../ports/p.ts';\nexport const cmd = async (p: P) => (await import('../remote/use.ts')).use(p);\n",
    'src/gitops/t.ts': "import type { V1Job } from '@kubernetes/client-node';\nexport type J = V1Job;\n",
    'src/sui/s.ts': "import { normalizeSuiAddress } from '@mysten/sui/utils';\nimport type { P } from '../ports/p.ts';\nexport const s = (p: P) => normalizeSuiAddress(String(p.a));\n",
    'src/main/m.ts': "import { cmd } from '../cli/cmd.ts';\nimport { s } from '../sui/s.ts';\nexport const m = [cmd, s];\n",
  });
  assert.equal(found, []);
  assert.is(status, 0);
});

depcruise('each import against the direction fails, naming its rule', () => {
  const { found, status } = violations({
    'src/cli/app.ts': 'export const app = 1;\n',
    'src/protocol/session.ts': 'export const session = 1;\n',
    'src/devnet/d.ts': 'export const d = 1;\n',
    'src/core/up.ts': "import { app } from '../cli/app.ts';\nexport const up = app;\n",
    'src/remote/sideways.ts': "import { session } from '../protocol/session.ts';\nexport const sideways = session;\n",
    'src/remote/tooling.ts': "import { t } from '../../test/t.ts';\nexport const tooling = t;\n",
    'test/t.ts': 'export const t = 1;\n',
    'src/walrus/peer.ts': "import { d } from '../devnet/d.ts';\nexport const peer = d;\n",
    'src/cli/sdk.ts': "import { normalizeSuiAddress } from '@mysten/sui/utils';\nexport const sdk = normalizeSuiAddress;\n",
    'src/gitops/client.ts': "import { KubeConfig } from '@kubernetes/client-node';\nexport const client = new KubeConfig();\n",
    'src/protocol/front.ts': "import { app } from '../cli/app.ts';\nexport const front = app;\n",
    'src/cli/root.ts': "import { m } from '../main/m.ts';\nexport const root = m;\n",
    'src/main/m.ts': 'export const m = 1;\n',
    'src/remote/use.ts': 'export const use = 1;\n',
    'src/cli/eager.ts': "import { use } from '../remote/use.ts';\nexport const eager = use;\n",
  });
  assert.is(status, 10);
  assert.equal(found, [
    'src/cli/eager.ts cli-loads-use-cases-on-run',
    'src/cli/root.ts fronts-not-adapters',
    'src/cli/root.ts main-is-the-root',
    'src/cli/sdk.ts sdks-in-adapters-only',
    'src/core/up.ts inner-ring-is-inner',
    'src/gitops/client.ts kubernetes-client-in-k8s-only',
    'src/protocol/front.ts fronts-apart',
    'src/remote/sideways.ts remote-sees-ports-only',
    'src/remote/tooling.ts product-not-tooling',
    'src/walrus/peer.ts adapters-inward',
  ]);
});

const eslint = suite('ESLint (eslint.config.js)');

const lint = async (path: string, source: string) =>
  (await new ESLint({ cwd: root }).lintText(source, { filePath: join(root, path) }))[0]!.messages.map((m) => m.ruleId);

eslint('an unused variable, an unexplained any and process.env outside src/main/ are errors', async () => {
  assert.equal(await lint('src/core/fixture.ts', 'const unused = 1;\nexport const f = (x: any) => x;\nexport const home = process.env.HOME;\n'), [
    '@typescript-eslint/no-unused-vars',
    '@typescript-eslint/no-explicit-any',
    'no-restricted-properties',
  ]);
  assert.equal(await lint('src/main/fixture.ts', 'export const home = process.env.HOME;\n'), []);
});

depcruise.run();
eslint.run();
