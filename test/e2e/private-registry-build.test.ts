import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { silentLog } from '../../src/core/log.ts';
import { BUILD_SECRETS_FILE_VARIABLE } from '../../src/gitops/manifest/manifest.ts';
import { openNetwork } from '../../src/main/context.ts';
import { initWorkRepo } from '../../scripts/harness/world.ts';
import type { World } from '../../scripts/harness/world.ts';
import { embeddedFront } from '../support/network-fronts.ts';
import type { NetworkFront } from '../support/network-fronts.ts';
import { startPrivateRegistry } from '../support/private-npm-registry.ts';
import type { PrivateRegistry } from '../support/private-npm-registry.ts';
import { identity } from '../support/identity.ts';
import { filesUnder } from '../support/files-under.ts';

/**
 * An app that installs a package from a private npm registry with a token the lease holds (walrus.buildSecrets), built
 * on the devnet by the build Job's own steps as the provider runs them (checkout, manifest plan, the build-secrets
 * step's `secrets export`, the planned build script, pack), then fetched and run. Without the secret the build stops
 * naming it; a wrong one is refused by the registry; an operator's own build command gets it through the plan's
 * wrapper; the tenant repeats the build with `artifact rebuild`, a reader who is neither tenant nor provider cannot.
 * The token is in no output, no file of the artifact and no file of the network's state.
 */

const TOKEN = 'npm_priv4te-7c3e9a1f0b2d4e6a';
const WRONG = 'npm_wr0ng-token-51d2e8c4a7';
const GREETING = 'hello from a private package';

function shell(script: string, cwd: string, env: NodeJS.ProcessEnv): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn('sh', ['-c', script], { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (text: string) => { stdout += text; });
    child.stderr.setEncoding('utf8').on('data', (text: string) => { stderr += text; });
    child.on('error', reject);
    child.on('close', (status) => resolve({ status, stdout, stderr }));
  });
}

/** The app: package.json depending on the private package through a scoped registry whose token .npmrc reads from NPM_TOKEN. */
async function pushApp(w: World, registry: PrivateRegistry): Promise<string> {
  const src = await initWorkRepo(w, 'src');
  writeFileSync(w.path(src, 'package.json'), `${JSON.stringify({
    name: 'app', version: '1.0.0', private: true, dependencies: { [registry.name]: registry.version },
    walrus: { buildSecrets: ['NPM_TOKEN'], start: 'node server.js' },
  }, null, 2)}\n`);
  writeFileSync(w.path(src, '.npmrc'), `@acme:registry=${registry.url}\n${registry.authKey}:_authToken=\${NPM_TOKEN}\naudit=false\n`);
  writeFileSync(w.path(src, 'server.js'), `process.stdout.write(require(${JSON.stringify(registry.name)}).greeting + '\\n');\n`);
  await w.ok(src, ['add', '-A']);
  await w.ok(src, ['commit', '-q', '-m', 'app']);
  await w.ok(src, ['walrus', 'init', 'app', '--private']);
  await w.ok(src, ['push', '-q', 'walrus', 'main']);
  return w.ok(src, ['rev-parse', 'HEAD']);
}

const test = suite<{ front: NetworkFront; registry: PrivateRegistry }>('a private npm registry through the lease\'s build secrets');

test.before(async (context) => {
  context.front = await embeddedFront.open();
  context.registry = await startPrivateRegistry('@acme/greet', '1.0.0', GREETING, TOKEN);
});

test.after(async ({ front, registry }) => {
  await registry.close();
  await front.close();
});

test('the build installs the private package with the lease\'s token and the app runs; without it, or with a wrong one, it stops and says why', async ({ front, registry }) => {
  const w = front.world();
  try {
    const head = await pushApp(w, registry);
    const url = await w.ok('src', ['config', 'remote.walrus.url']);
    const provider = identity();
    const providerId = (await w.ok('.', ['walrus', 'provider', 'register', '--stake', '10', '--price', '1MIST', '--endpoint', 'https://p.example'], { env: provider.env })).trim();
    const lease = (await w.ok('src', ['walrus', 'lease', 'open', 'walrus', '--provider', providerId, '--deposit', '4'])).trim();
    const outputs: string[] = [];
    const walrus = async (args: string[], env: NodeJS.ProcessEnv = {}) => {
      const result = await w.run('.', ['walrus', ...args], { env });
      outputs.push(result.stdout, result.stderr);
      return result;
    };

    /** The build Job's steps before the pack, as the provider: the named build secrets exported, then the planned script. */
    const build = async (name: string, command?: string) => {
      assert.is((await walrus(['checkout', url, name, '--commit', head, '--lease', lease], provider.env)).code, 0);
      assert.is((await walrus(['manifest', name, '--plan', w.path(`${name}-plan`)])).code, 0);
      mkdirSync(w.path(`${name}-secrets`));
      const file = w.path(`${name}-secrets`, 'env');
      const exported = await walrus(['secrets', 'export', '--names-from', w.path(`${name}-plan`, 'build-secrets'), '--to', file, '--', lease], provider.env);
      if (exported.code !== 0) return { exported, built: null, file };
      const script = command ?? `sh ${w.path(`${name}-plan`, 'build.sh')}`;
      // Not spawnSync: the registry answers from this process.
      const built = await shell(script, w.path(name), { PATH: process.env.PATH, HOME: w.path(`${name}-home`), CI: 'true', npm_config_update_notifier: 'false', [BUILD_SECRETS_FILE_VARIABLE]: file });
      outputs.push(built.stdout, built.stderr);
      return { exported, built, file };
    };

    // No secret set: the build-secrets step stops the build, naming the secret and the fix.
    const unset = await build('no-secret');
    assert.is.not(unset.exported.code, 0);
    assert.match(unset.exported.stderr, new RegExp(`walrus\\.buildSecrets names NPM_TOKEN, which lease ${lease} has not set: run git walrus secrets set ${lease} NPM_TOKEN=…`));
    assert.not.ok(existsSync(unset.file));
    assert.is(registry.requests.length, 0, 'nothing asked of the registry');

    // A wrong token: the registry refuses (401) and the build says so, without the token.
    assert.is((await walrus(['secrets', 'set', lease, `NPM_TOKEN=${WRONG}`], {})).code, 0);
    const wrong = await build('wrong-secret');
    assert.is(wrong.exported.code, 0, wrong.exported.stderr);
    assert.is.not(wrong.built!.status, 0);
    assert.match(wrong.built!.stdout + wrong.built!.stderr, /E401|401 Unauthorized/);
    assert.ok(registry.requests.some((request) => request.status === 401 && request.auth === 'bearer-wrong'), JSON.stringify(registry.requests));

    // The right token: packument and tarball fetched with it; the file is gone once the install ran.
    assert.is((await walrus(['secrets', 'set', lease, `NPM_TOKEN=${TOKEN}`], {})).code, 0);
    registry.requests.length = 0;
    const right = await build('built');
    assert.is(right.built!.status, 0, right.built!.stdout + right.built!.stderr);
    assert.match(right.built!.stdout, /\$ npm install --ignore-scripts \(with the build secrets NPM_TOKEN\)/);
    assert.equal(registry.requests.filter((request) => request.status === 200).map((request) => [request.path, request.auth]), [
      ['/@acme/greet', 'bearer-right'], ['/@acme/greet/-/greet-1.0.0.tgz', 'bearer-right'],
    ]);
    assert.not.ok(existsSync(right.file), 'the build removed the secrets file');

    // Packed as the pack step does, fetched as a run pod does, and run.
    const packed = JSON.parse((await walrus(['artifact', 'pack', 'built', '--repository', url], provider.env)).stdout) as { blobId: string; sha256: string };
    assert.is((await walrus(['artifact', 'fetch', packed.blobId, '--sha256', packed.sha256, '--lease', lease, 'run'], provider.env)).code, 0);
    assert.is(execFileSync(process.execPath, ['server.js'], { cwd: w.path('run'), encoding: 'utf8' }), `${GREETING}\n`);
    for (const file of filesUnder(w.path('run'))) assert.not.ok(readFileSync(file).includes(TOKEN), `${file} holds the token`);

    // An operator's own build command: the plan's wrapper gives the secrets to the install it wraps, and only to it.
    const own = await build('own-command', `sh ${w.path('own-command-plan', 'with-build-secrets.sh')} npm install --ignore-scripts && node server.js && echo "after:\${NPM_TOKEN:-none}"`);
    assert.is(own.built!.status, 0, own.built!.stdout + own.built!.stderr);
    assert.match(own.built!.stdout, new RegExp(`${GREETING}\\nafter:none\\n$`));
    assert.not.ok(existsSync(own.file));

    // The provider records the deploy; the tenant repeats the build on this machine with the lease's token, opened here.
    const network = await openNetwork({ env: { ...w.env, ...provider.env }, log: silentLog, role: 'setup' });
    try {
      await (await network.market()).recordDeploy(lease, head, packed.blobId, packed.sha256);
    } finally {
      await network.close();
    }
    const rebuilt = await walrus(['artifact', 'rebuild', lease]);
    assert.is(rebuilt.code, 0, rebuilt.stdout + rebuilt.stderr);
    assert.match(rebuilt.stdout, new RegExp(`artifact ${packed.blobId}: reproduced \\(tar sha256 ${packed.sha256}`));
    // A reader of the repository who is neither the tenant nor the provider cannot read the token, so cannot rebuild.
    const reader = identity();
    await w.ok('src', ['walrus', 'readers', 'add', 'walrus', reader.address]);
    const refused = await walrus(['artifact', 'rebuild', lease], reader.env);
    assert.is.not(refused.code, 0);
    assert.match(refused.stderr, new RegExp(`this build installs with the build secrets NPM_TOKEN of lease ${lease} .*which only the lease's tenant 0x[0-9a-f]{64} and its provider can read; ${reader.address} is neither: rebuild with the tenant's key`));

    // The token is in no output, nor in any file of the network's state (the chain, every Walrus blob).
    for (const value of [TOKEN, WRONG]) {
      for (const text of outputs) assert.not.ok(text.includes(value), `an output holds a token: ${text.slice(0, 400)}`);
      for (const file of filesUnder(front.stateDir(w))) assert.not.ok(readFileSync(file).includes(value), `${file} holds a token`);
    }
  } finally {
    w.remove();
  }
});

test.run();
