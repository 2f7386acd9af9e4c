import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { KubeconfigError, loadKubeConfig } from '../../src/k8s/kubeconfig.ts';

const root = fileURLToPath(new URL('../..', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'kubeconfig-'));
const file = (name: string, text: string) => { const path = join(dir, name); writeFileSync(path, text); return path; };
const TOKEN = 'eyJhbGciOiJSUzI1NiJ9.secret-token';

/** What `load` throws: its code, message and data. */
function refusal(load: () => unknown): KubeconfigError {
  try {
    load();
  } catch (error) {
    assert.instance(error, KubeconfigError);
    return error as KubeconfigError;
  }
  throw new Error('expected a KubeconfigError');
}

const kubeconfig = suite('the controller\'s kubeconfig: a file that cannot be used is the user\'s to fix, said so');

kubeconfig('git walrus controller --kubeconfig /missing/file: the file named, what is wrong, what to do; exit 1, no internal error', () => {
  const missing = join(dir, 'missing', 'file');
  const run = spawnSync(join(root, 'bin', 'git-walrus'), ['controller', '--kubeconfig', missing], { encoding: 'utf8', env: { ...process.env, GIT_WALRUS_HOME: dir } });
  assert.is(run.status, 1);
  assert.is(run.stdout, '');
  assert.ok(run.stderr.startsWith(`fatal: cannot use the kubeconfig ${missing}: there is no such file; pass --kubeconfig the path of a kubeconfig that names the cluster`), run.stderr);
  assert.not.match(run.stderr, 'internal error');
});

kubeconfig('KUBECONFIG naming a missing file: that file named (it may be one of several), no internal error', () => {
  const missing = join(dir, 'gone.yaml');
  const run = spawnSync(join(root, 'bin', 'git-walrus'), ['controller'], { encoding: 'utf8', env: { ...process.env, GIT_WALRUS_HOME: dir, KUBECONFIG: `${missing}:${join(dir, 'other.yaml')}` } });
  assert.is(run.status, 1);
  assert.ok(run.stderr.startsWith(`fatal: cannot use the kubeconfig ${missing} (from $KUBECONFIG or ~/.kube/config): there is no such file; fix it,`), run.stderr);
});

kubeconfig('a directory, a YAML error (without the file\'s lines, which may hold a token), no current context, a context without its cluster', () => {
  assert.equal([refusal(() => loadKubeConfig({ file: dir })).data, refusal(() => loadKubeConfig({ file: dir })).code], [{ source: dir, code: 'EISDIR' }, 'KUBECONFIG']);
  assert.match(refusal(() => loadKubeConfig({ file: dir })).message, `cannot use the kubeconfig ${dir}: it is a directory;`);
  const broken = file('broken.yaml', `apiVersion: v1\nusers:\n- name: u\n  user:\n    token: ${TOKEN}\n   bad: [\n`);
  const invalid = refusal(() => loadKubeConfig({ file: broken }));
  assert.match(invalid.message, `cannot use the kubeconfig ${broken}: it is not a valid kubeconfig (`);
  assert.not.match(invalid.message, TOKEN);
  const none = file('none.yaml', 'apiVersion: v1\nkind: Config\nclusters: []\n');
  assert.match(refusal(() => loadKubeConfig({ file: none })).message, 'it sets no current-context;');
  const dangling = file('dangling.yaml', 'apiVersion: v1\nkind: Config\ncurrent-context: prod\ncontexts:\n- name: prod\n  context: { cluster: gone, user: u }\nclusters: []\nusers: [{ name: u, user: {} }]\n');
  assert.match(refusal(() => loadKubeConfig({ file: dangling })).message, 'its current context "prod" names no cluster it defines;');
});

kubeconfig('a usable file loads, its current cluster\'s server as written', () => {
  const good = file('good.yaml', 'apiVersion: v1\nkind: Config\ncurrent-context: dev\ncontexts:\n- name: dev\n  context: { cluster: dev, user: u }\nclusters:\n- name: dev\n  cluster: { server: "https://127.0.0.1:6443" }\nusers: [{ name: u, user: {} }]\n');
  assert.is(loadKubeConfig({ file: good }).getCurrentCluster()?.server, 'https://127.0.0.1:6443');
});

kubeconfig.after(() => rmSync(dir, { recursive: true, force: true }));
kubeconfig.run();
