import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MAX_SECRETS } from '../../src/core/lease-secrets.ts';
import { BUILD_SECRETS_FILE_VARIABLE, buildScript, buildSecretsWrapper, MANIFEST_MAX_BYTES, ManifestError, manifestFromReport, parseManifest, testScript } from '../../src/gitops/manifest/manifest.ts';
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

test('buildSecrets: names read as written; a bad, repeated, env-clashing or excess name is refused, naming the field', () => {
  assert.equal(parseManifest(pkg({ buildSecrets: ['NPM_TOKEN', '_GH'] }), true).buildSecrets, ['NPM_TOKEN', '_GH']);
  assert.is(parseManifest(pkg({ port: 3000 }), true).buildSecrets, undefined);
  const token = 'npm-' + 'S3cr3t/T0k3n+'.repeat(3);
  const cases: [unknown, RegExp][] = [
    [{ buildSecrets: 'NPM_TOKEN' }, /expected a list of secret names/],
    [{ buildSecrets: ['1TOKEN'] }, /entry 1 is not an environment variable name/],
    [{ buildSecrets: ['NPM_TOKEN', token] }, /entry 2 is not an environment variable name/],
    [{ buildSecrets: ['NPM-TOKEN'] }, /entry 1 is not/],
    [{ buildSecrets: [7] }, /entry 1 is not/],
    [{ buildSecrets: ['NPM_TOKEN', 'NPM_TOKEN'] }, /names NPM_TOKEN twice/],
    [{ env: { NPM_TOKEN: 'x' }, buildSecrets: ['NPM_TOKEN'] }, /NPM_TOKEN is also in walrus\.env/],
    [{ buildSecrets: Array.from({ length: MAX_SECRETS + 1 }, (_, i) => `S${i}`) }, new RegExp(`names ${MAX_SECRETS + 1} secrets; a lease holds at most ${MAX_SECRETS}`)],
  ];
  for (const [walrus, reason] of cases) {
    try {
      parseManifest(pkg(walrus), true);
      assert.unreachable(`accepted ${JSON.stringify(walrus)}`);
    } catch (error) {
      assert.instance(error, ManifestError);
      assert.is((error as ManifestError).data.field, 'walrus.buildSecrets');
      assert.match((error as Error).message, reason);
      // An entry that is no name may be a pasted token: the refusal never repeats it.
      assert.not.ok((error as Error).message.includes(token), 'the entry is not repeated');
    }
  }
  // The report the manifest step writes reads back the same.
  const manifest = parseManifest(pkg({ buildSecrets: ['NPM_TOKEN'] }), true);
  assert.equal(manifestFromReport(JSON.parse(JSON.stringify(manifest))), manifest);
  // No buildSecrets: the script is what it always was (so the build key of every other app stays the same).
  assert.not.match(buildScript(parseManifest(pkg({ port: 3000 }), true)), /walrus-build-secrets/);
});

test('buildSecrets: run for real, the install alone sees them; install scripts, the build and later steps do not, and the file is gone', () => {
  const dir = mkdtempSync(join(tmpdir(), 'build-secrets-'));
  try {
    const bin = join(dir, 'bin');
    execFileSync('mkdir', ['-p', bin, join(dir, 'tree')]);
    // A stand-in npm that records what each of its runs sees of NPM_TOKEN and EXTRA.
    writeFileSync(join(bin, 'npm'), '#!/bin/sh\necho "$1:${NPM_TOKEN:-none}:${EXTRA:-none}" >> "$SEEN"\n');
    chmodSync(join(bin, 'npm'), 0o755);
    const file = join(dir, 'secrets.env');
    const value = "tok'en with $pace and \"quotes\"";
    writeFileSync(file, `NPM_TOKEN='${value.replaceAll("'", "'\\''")}'\nEXTRA='other'\n`, { mode: 0o600 });
    const manifest = parseManifest(pkg({ buildSecrets: ['NPM_TOKEN', 'EXTRA'], allowScripts: ['esbuild'], build: 'echo "build:${NPM_TOKEN:-none}:$(cat ' + file + ' 2>/dev/null || echo gone)" >> "$SEEN"' }), true);
    const script = buildScript(manifest);
    const seen = join(dir, 'seen');
    // The file where the build Job's step writes it, or where the variable says (a rebuild on the tenant's machine).
    const env = { PATH: `${bin}:/usr/bin:/bin`, SEEN: seen, [BUILD_SECRETS_FILE_VARIABLE]: file };
    execFileSync('sh', ['-c', script], { cwd: join(dir, 'tree'), env });
    assert.equal(readFileSync(seen, 'utf8').split('\n').filter(Boolean), [`ci:${value}:other`, 'rebuild:none:none', 'build:none:gone']);
    assert.not.ok(existsSync(file), 'removed once the install ran');
    // A build that got no secrets (an app under no lease) stops before the install, naming them.
    let failure = '';
    try {
      execFileSync('sh', ['-c', script], { cwd: join(dir, 'tree'), env, stdio: 'pipe' });
    } catch (error) {
      failure = String((error as { stderr: Buffer }).stderr);
    }
    assert.match(failure, /walrus\.buildSecrets names NPM_TOKEN, EXTRA, but this build got no secrets: only an app run under a lease has them \(git walrus secrets set/);
    assert.is(readFileSync(seen, 'utf8').split('\n').filter(Boolean).length, 3, 'nothing ran');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("buildSecrets with an operator's own build command: the plan's wrapper gives them to the command it runs alone, then removes the file, even when it fails", () => {
  const dir = mkdtempSync(join(tmpdir(), 'build-secrets-wrapper-'));
  try {
    const wrapper = join(dir, 'with-build-secrets.sh');
    const file = join(dir, 'secrets.env');
    const value = "tok'en $x";
    const write = () => writeFileSync(file, `NPM_TOKEN='${value.replaceAll("'", "'\\''")}'\n`, { mode: 0o600 });
    const run = (command: string, text: string) => execFileSync('sh', ['-c', command], { cwd: dir, env: { PATH: '/usr/bin:/bin', [BUILD_SECRETS_FILE_VARIABLE]: file }, encoding: 'utf8', stdio: 'pipe', input: text });
    writeFileSync(wrapper, buildSecretsWrapper(parseManifest(pkg({ buildSecrets: ['NPM_TOKEN'] }), true)));
    write();
    // The operator's command: the wrapped install sees the token; what follows it does not, nor the file.
    const seen = run(`sh ${wrapper} sh -c 'echo "install:$NPM_TOKEN:$1"' - 'an argument' && echo "build:\${NPM_TOKEN:-none}:$(ls ${file} 2>/dev/null || echo gone)"`, '');
    assert.equal(seen.split('\n').filter(Boolean), [`install:${value}:an argument`, 'build:none:gone']);
    // The wrapped command's failure is the wrapper's, and the file goes all the same.
    write();
    let code = 0;
    try {
      run(`sh ${wrapper} sh -c 'exit 7'`, '');
    } catch (error) {
      code = (error as { status: number }).status;
    }
    assert.is(code, 7);
    assert.not.ok(existsSync(file));
    // No file (no lease): refused before the command runs, naming the secrets.
    let failure = '';
    try {
      run(`sh ${wrapper} sh -c 'echo ran'`, '');
    } catch (error) {
      failure = String((error as { stderr: string; stdout: string }).stderr) + String((error as { stdout: string }).stdout);
    }
    assert.match(failure, /walrus\.buildSecrets names NPM_TOKEN, but this build got no secrets/);
    assert.not.match(failure, /ran/);
    // A manifest naming none: the wrapper only runs its command.
    writeFileSync(wrapper, buildSecretsWrapper(parseManifest(pkg({ port: 3000 }), true)));
    assert.is(run(`sh ${wrapper} sh -c 'echo "ran:\${NPM_TOKEN:-none}"'`, ''), 'ran:none\n');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
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
