/**
 * `npm run lint` fails on an import against the direction docs/architecture.md draws (dependency-cruiser, run on a
 * fixture tree of wrong imports) and on an ESLint error, and passes on the right ones.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ESLint } from 'eslint';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';

const root = fileURLToPath(new URL('../..', import.meta.url));

const config = createRequire(import.meta.url)(join(root, '.dependency-cruiser.cjs')) as { forbidden: { name: string }[] };
const rootPackage = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { dependencies: object; devDependencies: object };

/**
 * The rules dependency-cruiser reports for a tree of `files` (path → source), as `from rule`; and the exit status of
 * the run `npm run lint` makes (its default reporter exits with the number of violations). The tree has the
 * project's package.json (its dependencies decide which packages are declared) and node_modules.
 */
function violations(files: Record<string, string>): { found: string[]; status: number | null } {
  const dir = mkdtempSync(join(tmpdir(), 'lint-rules-'));
  try {
    symlinkSync(join(root, 'node_modules'), join(dir, 'node_modules'));
    for (const folder of ['src', 'test', 'scripts', 'bench']) mkdirSync(join(dir, folder));
    writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'fixture', type: 'module', dependencies: rootPackage.dependencies, devDependencies: rootPackage.devDependencies }));
    writeFileSync(join(dir, 'tsconfig.json'), JSON.stringify({ compilerOptions: { module: 'nodenext', allowImportingTsExtensions: true, noEmit: true } }));
    for (const [path, source] of Object.entries(files)) {
      mkdirSync(dirname(join(dir, path)), { recursive: true });
      writeFileSync(join(dir, path), source);
    }
    const depcruise = (...args: string[]) =>
      spawnSync(process.execPath, [join(root, 'node_modules/dependency-cruiser/bin/dependency-cruiser.mjs'), 'src', 'test', 'scripts', 'bench', '--config', join(root, '.dependency-cruiser.cjs'), ...args], { cwd: dir, encoding: 'utf8' });
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
    'src/core/a.ts': "import { createHash } from 'node:crypto';\nexport const a = createHash('sha256').digest().length;\n",
    'src/ports/p.ts': "import type { } from '../core/a.ts';\nexport interface P { a: number }\n",
    'src/remote/use.ts': "import { a } from '../core/a.ts';\nimport type { P } from '../ports/p.ts';\nexport const use = (p: P) => p.a + a;\n",
    'src/fs/files.ts': "import { readFileSync } from 'node:fs';\nexport const files = readFileSync;\n",
    'src/gitops/manifest/manifest.ts': 'export const manifest = 1;\n',
    'src/cli/cmd.ts': "import type { P } from '../ports/p.ts';\nexport const cmd = async (p: P) => (await import('../remote/use.ts')).use(p) + String(await import('../fs/files.ts')) + (await import('../gitops/manifest/manifest.ts')).manifest;\n",
    'src/gitops/t.ts': "import type { V1Job } from '@kubernetes/client-node';\nexport type J = V1Job;\n",
    'src/sui/s.ts': "import { normalizeSuiAddress } from '@mysten/sui/utils';\nimport type { P } from '../ports/p.ts';\nexport const s = (p: P) => normalizeSuiAddress(String(p.a));\n",
    'src/main/m.ts': "import { cmd } from '../cli/cmd.ts';\nimport { s } from '../sui/s.ts';\nexport const m = [cmd, s];\n",
    'test/support/helper.ts': "import { use } from '../../src/remote/use.ts';\nexport const helper = use;\n",
    'test/remote/use.test.ts': "import { test } from 'uvu';\nimport { helper } from '../support/helper.ts';\ntest('use', () => void helper);\n",
    'bench/b.ts': "import { helper } from '../test/support/helper.ts';\nexport const b = helper;\n",
  });
  assert.equal(found, []);
  assert.is(status, 0);
});

/** One wrong import or more for every rule of the configuration: each is caught, under its rule's name. */
const WRONG: Record<string, string> = {
  'src/cli/app.ts': 'export const app = 1;\n',
  'src/protocol/session.ts': 'export const session = 1;\n',
  'src/devnet/d.ts': 'export const d = 1;\n',
  'src/main/m.ts': 'export const m = 1;\n',
  'src/remote/use.ts': 'export const use = 1;\n',
  'src/fs/atomic.ts': 'export const atomic = 1;\n',
  'src/gitops/controller.ts': 'export const controller = 1;\n',
  'test/t.ts': 'export const t = 1;\n',
  'src/core/up.ts': "import { app } from '../cli/app.ts';\nexport const up = app;\n",
  // The inner ring does no I/O.
  'src/core/disk.ts': "import { readFileSync } from 'node:fs';\nexport const disk = readFileSync;\n",
  'src/ports/spawn.ts': "import { spawn } from 'node:child_process';\nexport const run = spawn;\n",
  'src/remote/sideways.ts': "import { session } from '../protocol/session.ts';\nexport const sideways = session;\n",
  'src/remote/tooling.ts': "import { t } from '../../test/t.ts';\nexport const tooling = t;\n",
  'src/walrus/peer.ts': "import { d } from '../devnet/d.ts';\nexport const peer = d;\n",
  'src/cli/sdk.ts': "import { normalizeSuiAddress } from '@mysten/sui/utils';\nexport const sdk = normalizeSuiAddress;\n",
  // The controller's push policy has no exemption: core/walrus-url.ts normalises ids.
  'src/gitops/reconcile/policy.ts': "import { normalizeSuiAddress } from '@mysten/sui/utils';\nexport const policy = normalizeSuiAddress;\n",
  'src/remote/codec.ts': "import { bcs } from '@mysten/bcs';\nexport const codec = bcs;\n",
  'src/gitops/client.ts': "import { KubeConfig } from '@kubernetes/client-node';\nexport const client = new KubeConfig();\n",
  'src/remote/job.ts': "import type { V1Job } from '@kubernetes/client-node';\nexport type Job = V1Job;\n",
  'src/protocol/front.ts': "import { app } from '../cli/app.ts';\nexport const front = app;\n",
  // The web front end never reaches the controller, statically or lazily, nor files.
  'src/web/page.ts': "import { controller } from '../gitops/controller.ts';\nexport const page = controller;\n",
  'src/web/lazy.ts': "export const lazy = async () => (await import('../gitops/controller.ts')).controller;\n",
  'src/web/files.ts': "import { atomic } from '../fs/atomic.ts';\nexport const files = atomic;\n",
  'src/cli/controller.ts': "export const run = async () => (await import('../gitops/controller.ts')).controller;\n",
  'src/cli/root.ts': "import { m } from '../main/m.ts';\nexport const root = m;\n",
  'src/cli/eager.ts': "import { use } from '../remote/use.ts';\nexport const eager = use;\n",
  'src/remote/dev.ts': "import { test } from 'uvu';\nexport const dev = test;\n",
  'test/width.ts': "import stringWidth from 'string-width';\nexport const width = stringWidth('a');\n",
  // A circle, in the product and in the tests.
  'src/core/ping.ts': "import { pong } from './pong.ts';\nexport const ping = () => pong;\n",
  'src/core/pong.ts': "import { ping } from './ping.ts';\nexport const pong = () => ping;\n",
  'test/support/one.ts': "import { two } from './two.ts';\nexport const one = () => two;\n",
  'test/support/two.ts': "import { one } from './one.ts';\nexport const two = () => one;\n",
  'scripts/borrow.ts': "import { t } from '../test/some.test.ts';\nexport const borrow = t;\n",
  'test/some.test.ts': 'export const t = 1;\n',
  'bench/typo.ts': "import { nothing } from './nowhere.ts';\nexport const typo = nothing;\n",
};

depcruise('each import against the direction fails, naming its rule; every rule is shown failing', () => {
  const { found, status } = violations(WRONG);
  const expected = [
    'bench/typo.ts not-to-unresolvable',
    'scripts/borrow.ts tests-are-not-libraries',
    'src/cli/controller.ts cli-fronts-only-the-manifest-step',
    'src/cli/eager.ts cli-loads-use-cases-on-run',
    'src/cli/root.ts fronts-not-adapters',
    'src/cli/root.ts main-is-the-root',
    'src/cli/sdk.ts sdks-in-adapters-only',
    'src/core/disk.ts inner-ring-does-no-io',
    'src/core/ping.ts no-circles',
    'src/core/up.ts inner-ring-is-inner',
    'src/gitops/client.ts kubernetes-client-in-k8s-only',
    'src/gitops/reconcile/policy.ts sdks-in-adapters-only',
    'src/ports/spawn.ts inner-ring-does-no-io',
    'src/protocol/front.ts fronts-apart',
    'src/remote/codec.ts bcs-in-codecs-only',
    'src/remote/dev.ts product-on-declared-dependencies',
    'src/remote/job.ts kubernetes-types-in-controller-only',
    'src/remote/sideways.ts remote-sees-ports-only',
    'src/remote/tooling.ts product-not-tooling',
    'src/walrus/peer.ts adapters-inward',
    'src/web/files.ts only-the-cli-touches-files',
    'src/web/lazy.ts fronts-apart',
    'src/web/page.ts fronts-apart',
    'test/support/one.ts no-circles',
    'test/width.ts no-undeclared-packages',
  ];
  assert.equal(found, expected);
  assert.is(status, expected.length);
  const shown = new Set(found.map((line) => line.split(' ')[1]));
  assert.equal(config.forbidden.map((rule) => rule.name).filter((name) => !shown.has(name)), [], 'a rule no wrong import shows failing');
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
