import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { buildScript, MANIFEST_MAX_BYTES, ManifestError, manifestFromReport, parseManifest, testScript } from '../../src/gitops/manifest/manifest.ts';
import { applyManifest } from '../../src/gitops/manifest/precedence.ts';
import { API_VERSION, KIND, type WalrusApp, type WalrusAppSpec } from '../../src/ports/walrus-app.ts';

const pkg = (walrus?: unknown) => JSON.stringify({ name: 'app', scripts: { start: 'node server.js' }, ...(walrus === undefined ? {} : { walrus }) });

test('no package.json, or one without "walrus": npm defaults, npm ci only with a lockfile, install scripts held back', () => {
  assert.equal(parseManifest(null, false), { source: 'defaults', lockfile: false });
  assert.equal(parseManifest(pkg(), true), { source: 'defaults', lockfile: true });
  assert.match(buildScript(parseManifest(pkg(), true)), /^npm ci --ignore-scripts$/m);
  assert.match(buildScript(parseManifest(pkg(), false)), /^npm install --ignore-scripts$/m);
  assert.not.match(buildScript(parseManifest(pkg(), true)), /npm rebuild/);
  assert.match(buildScript(parseManifest(pkg(), false)), /^npm run build --if-present$/m);
  assert.match(testScript(parseManifest(pkg(), false)), /nothing to run/);
});

test('allowScripts: only the named packages run their install scripts (npm rebuild), after the install', () => {
  const manifest = parseManifest(pkg({ allowScripts: ['esbuild', '@swc/core'] }), true);
  assert.equal(manifest.allowScripts, ['esbuild', '@swc/core']);
  assert.match(buildScript(manifest), /^npm ci --ignore-scripts\n.*\nnpm rebuild 'esbuild' '@swc\/core'$/m);
  assert.throws(() => parseManifest(pkg({ allowScripts: ['esbuild; rm -rf /'] }), true), /walrus.allowScripts: expected npm package names/);
  assert.throws(() => parseManifest(pkg({ allowScripts: 'esbuild' }), true), /walrus.allowScripts: expected a list/);
});

test('every field the app may set is read as written', () => {
  const walrus = { version: 1, port: 3000, health: { path: '/', periodSeconds: 2, failureThreshold: 4 }, build: 'npm run compile', test: 'npm test', start: 'node server.js', replicas: 2, env: { NODE_ENV: 'production' } };
  const { version: _version, ...rest } = walrus;
  const manifest = parseManifest(pkg(walrus), true);
  assert.equal(manifest, { source: 'package.json', lockfile: true, ...rest });
  assert.match(buildScript(manifest), /^npm run compile$/m);
  assert.match(testScript(manifest), /^npm test$/m);
  // The report the manifest step writes reads back the same, through the same checks.
  assert.equal(manifestFromReport(JSON.parse(JSON.stringify(manifest))), manifest);
});

test('each bad field is named, with why', () => {
  const cases: [unknown, string, RegExp][] = [
    [{ port: 0 }, 'walrus.port', /whole number from 1 to 65535/],
    [{ port: '3000' }, 'walrus.port', /whole number/],
    [{ health: { path: 'healthz' } }, 'walrus.health.path', /HTTP path/],
    [{ health: { timeout: 1 } }, 'walrus.health', /unknown field "timeout"/],
    [{ replicas: 0 }, 'walrus.replicas', /from 1/],
    [{ start: '' }, 'walrus.start', /one-line shell command/],
    [{ test: 'npm test\nrm -rf /' }, 'walrus.test', /one-line/],
    [{ env: { PORT: '1' } }, 'walrus.env.PORT', /walrus\.port/],
    [{ env: { '1X': 'a' } }, 'walrus.env.1X', /variable name/],
    [{ env: { A: 1 } }, 'walrus.env.A', /string/],
    [{ version: 2 }, 'walrus.version', /version 1/],
    [{ replica: 2 }, 'walrus', /unknown field "replica"/],
    [[], 'walrus', /JSON object/],
    [{ env: { BIG: 'x'.repeat(MANIFEST_MAX_BYTES) } }, 'walrus', /bytes/],
  ];
  for (const [walrus, field, reason] of cases) {
    try {
      parseManifest(pkg(walrus), false);
      assert.unreachable(`accepted ${JSON.stringify(walrus)}`);
    } catch (error) {
      assert.instance(error, ManifestError, JSON.stringify(walrus));
      assert.is((error as ManifestError).data.field, field, JSON.stringify(walrus));
      assert.match((error as Error).message, reason);
    }
  }
  assert.throws(() => parseManifest('{', false), (error: ManifestError) => error.data.field === 'package.json');
});

const app = (spec: Partial<WalrusAppSpec> = {}): WalrusApp => ({
  apiVersion: API_VERSION, kind: KIND, metadata: { name: 'web', namespace: 'team', uid: 'u1' }, spec: { repository: 'walrus://0x1', ...spec },
});
const manifest = parseManifest(pkg({ port: 3000, replicas: 3, start: 'node server.js', health: { path: '/up' }, env: { MODE: 'app', SHARED: 'from-app' } }), true);

test('precedence: the manifest fills what the operator left unset', () => {
  const decision = applyManifest(app(), manifest, { maxReplicas: 5 });
  assert.ok(decision.ok);
  const spec = decision.ok ? decision.app.spec : undefined;
  assert.is(spec?.port, 3000);
  assert.is(spec?.replicas, 3);
  assert.is(spec?.run?.command, 'node server.js');
  assert.is(spec?.health?.path, '/up');
  assert.equal(spec?.env, [{ name: 'MODE', value: 'app' }, { name: 'SHARED', value: 'from-app' }]);
});

test('precedence: an operator-written field wins over the manifest, field by field', () => {
  const decision = applyManifest(app({ port: 8080, replicas: 9, run: { command: 'npm start' }, health: { periodSeconds: 1 }, env: [{ name: 'SHARED', value: 'operator' }] }), manifest, { maxReplicas: 5 });
  assert.ok(decision.ok);
  const spec = decision.ok ? decision.app.spec : undefined;
  assert.is(spec?.port, 8080);
  // The operator's own replica count is not bounded by the offer: it is the provider's choice.
  assert.is(spec?.replicas, 9);
  assert.is(spec?.run?.command, 'npm start');
  assert.equal(spec?.health, { path: '/up', periodSeconds: 1 });
  assert.equal(spec?.env, [{ name: 'SHARED', value: 'operator' }, { name: 'MODE', value: 'app' }]);
});

test('precedence: the offer bounds the manifest; beyond it, the field is named and nothing applies', () => {
  const decision = applyManifest(app(), manifest, { maxReplicas: 2 });
  assert.equal(decision, { ok: false, field: 'walrus.replicas', reason: "asks for 3 replicas; the provider's offer allows at most 2" });
  assert.ok(applyManifest(app(), manifest, { maxReplicas: 3 }).ok);
  // No manifest at all: the spec as written, defaults filled later by resolveSpec.
  const none = applyManifest(app(), parseManifest(null, false), { maxReplicas: 1 });
  assert.equal(none, { ok: true, app: app() });
});

test.run();
