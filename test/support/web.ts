/**
 * The world the `git walrus web` tests look at, pushed through stock git and the real helper on the embedded network:
 * - `app` (public): several pushes, a branch, two tags, a forced update, a deleted branch, a binary and a large
 *   file, and a deployment recorded on the market by a provider (and another lease of it, which it closed), which one
 *   other provider reproduced and another did not (their attestations on chain);
 * - `secret` (private): its owner's, with one reader; a stranger's key is neither;
 * - `evil` (public): a README, file names, a commit message, a branch and a tag that carry script and HTML.
 * `startWeb` runs `git walrus web` as a user would and returns the URL it prints.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import * as assert from 'uvu/assert';
import { join } from 'node:path';
import { Ed25519Keypair } from '@mysten/sui/keypairs/ed25519';
import { silentLog } from '../../src/core/log.ts';
import { openLocalNetwork } from '../../src/devnet/local-network.ts';
import { ChainEngine } from '../../src/devnet/chain/engine.ts';
import { DEFAULT_COMMIT_MS } from '../../src/contract/attestation-model.ts';
import { advanceAttestation } from '../../src/remote/market/attest.ts';
import { tarballArchive } from '../../src/fs/tarball.ts';
import { publishArtifact } from '../../src/remote/artifacts.ts';
import { SuiLedger } from '../../src/sui/ledger.ts';
import { SuiMarket } from '../../src/sui/market.ts';
import { HttpBlobStore } from '../../src/walrus/http-blob-store.ts';
import { commit, createWorld, initWorkRepo, type World } from '../../scripts/harness/world.ts';
import { spawnReaped } from '../../scripts/harness/reaper.ts';

/** Payloads in every place a pusher controls; none may run or break a page. */
export const INJECTION = {
  readme: '# Evil\n\n<script>window.__pwned = "readme-script"</script>\n\n<img src=x onerror="window.__pwned=\'readme-img\'">\n\n[click](javascript:window.__pwned=\'readme-link\')\n\n<a href="#" onclick="window.__pwned=1">raw html link</a>\n',
  fileNames: ['<img src=x onerror=window.__pwned=3>.md', '"><svg onload=window.__pwned=4>.txt', 'a\'b"c&d.js'],
  message: 'fix </pre><script>window.__pwned=5</script><b>bold</b>',
  branch: 'refs/heads/"><svg/onload=window.__pwned=6>',
  tag: 'refs/tags/<img/src/onerror=window.__pwned=7>',
};

/**
 * The providers' gateway endpoint: on this machine, where nothing listens (port 2, unassigned; fetch refuses the discard port 9 outright), so the lease page's
 * request for the app's status is refused at once and never leaves the machine.
 */
export const CLOSED_ENDPOINT = 'http://127.0.0.1:2';

export interface WebWorld {
  world: World;
  app: { id: string; url: string; commits: Record<string, string>; forcedSeq: number };
  secret: { id: string; url: string; readme: string };
  evil: { id: string; url: string; commit: string };
  deployment: { commit: string; lease: string; provider: string; artifact: string };
  /** A lease of the same provider that its provider closed while it was funded. */
  endedLease: string;
  keys: { owner: NodeJS.ProcessEnv; reader: NodeJS.ProcessEnv; stranger: NodeJS.ProcessEnv; provider: NodeJS.ProcessEnv };
}

const idOf = (url: string) => url.slice('walrus://'.length);

/** The build key two other providers attest the deployment under: one reproduces its artifact, one reveals this. */
export const ATTESTED_BUILD_KEY = 'b1'.repeat(32);
export const DIFFERING_TAR_SHA256 = 'ee'.repeat(32);

export async function buildWebWorld(prefix = 'walrus-web-'): Promise<WebWorld> {
  const world = createWorld(prefix);
  const owner = Ed25519Keypair.generate();
  const reader = Ed25519Keypair.generate();
  const stranger = Ed25519Keypair.generate();
  const providerKey = Ed25519Keypair.generate();
  const keys = {
    owner: { GIT_WALRUS_KEY: owner.getSecretKey() },
    reader: { GIT_WALRUS_KEY: reader.getSecretKey() },
    stranger: { GIT_WALRUS_KEY: stranger.getSecretKey() },
    provider: { GIT_WALRUS_KEY: providerKey.getSecretKey() },
  };
  const as = (repo: string, args: string[], env = keys.owner) => world.ok(repo, args, { env });

  // app: a history with a branch, tags, a forced update and a deletion.
  const app = await initWorkRepo(world, 'app');
  const commits: Record<string, string> = {};
  commits.c1 = await commit(world, app, 'README.md', '# App\n\nSee [the guide](docs/guide.md).\n\n```js\nconsole.log("hi")\n```\n', 'first: a README');
  mkdirSync(world.path(app, 'docs'));
  writeFileSync(world.path(app, 'docs', 'guide.md'), 'The guide.\n');
  writeFileSync(world.path(app, 'index.js'), 'export function main() {\n  return 42;\n}\n');
  writeFileSync(world.path(app, 'logo.bin'), Buffer.from([0, 1, 2, 3, 0, 255, 254]));
  writeFileSync(world.path(app, 'big.txt'), 'x'.repeat(1100 * 1024));
  await world.ok(app, ['add', '.']);
  await world.ok(app, ['commit', '-q', '-m', 'second: code, a binary and a large file']);
  commits.c2 = await world.ok(app, ['rev-parse', 'HEAD']);
  const url = (await as(app, ['walrus', 'init', 'app'])).split('\n').at(-1)!;
  const push = (...args: string[]) => as(app, ['push', '-q', 'walrus', ...args]);
  await push('main'); //                                               1
  await world.ok(app, ['checkout', '-q', '-b', 'topic']);
  commits.t1 = await commit(world, app, 'topic.txt', 'topic\n', 'topic work');
  await push('topic'); //                                              2
  await world.ok(app, ['checkout', '-q', 'main']);
  await world.ok(app, ['tag', 'v1', commits.c2]);
  await world.ok(app, ['tag', '-a', '-m', 'release two', 'v2', commits.c2]);
  await push('v1', 'v2'); //                                           3
  commits.c3 = await commit(world, app, 'index.js', 'export function main() {\n  return 43;\n}\n', 'third: the answer changes');
  await push('main'); //                                               4
  await world.ok(app, ['commit', '-q', '--amend', '-m', 'third, reworded']);
  commits.c3b = await world.ok(app, ['rev-parse', 'HEAD']);
  await push('--force', 'main'); //                                    5 (forced)
  await push(':topic'); //                                             6 (deleted)

  // A deployment of main's tip, recorded by a provider as the controller does.
  await world.ok(app, ['walrus', 'provider', 'register', '--stake', '20', '--price', '1MIST', '--endpoint', CLOSED_ENDPOINT, '--attribute', 'region=eu'], { env: keys.provider });
  const provider = (await world.ok(app, ['walrus', 'provider', 'show'], { env: keys.provider })).match(/provider\s+(0x[0-9a-f]{64})/)![1]!;
  const lease = (await world.ok(app, ['walrus', 'lease', 'open', 'walrus', '--provider', provider, '--deposit', '5'])).trim();
  const network = await openLocalNetwork(join(world.path('walrus-home'), 'local'));
  let artifact: string;
  try {
    await network.faucet(providerKey.toSuiAddress());
    const ledger = new SuiLedger({ client: network.client, signer: providerKey, packageId: network.packageId, registryId: network.registryId });
    const market = new SuiMarket({ client: network.client, ledger, packageId: network.packageId, marketId: network.marketId });
    const blobs = new HttpBlobStore({ publisherUrl: network.walrusUrl, aggregatorUrl: network.walrusUrl, numShards: network.numShards, fetch: network.walrusFetch });
    mkdirSync(world.path('built'));
    writeFileSync(world.path('built', 'index.js'), 'console.log("built")\n');
    const published = await publishArtifact({ blobStore: blobs, archive: tarballArchive, log: silentLog }, world.path('built'), false);
    artifact = published.blobId;
    await market.recordDeploy(lease, commits.c3b, published.blobId, published.sha256);
    // Two other providers attest the deployed commit: one reproduced the artifact, one built something else.
    const engine = await ChainEngine.open(join(world.path('walrus-home'), 'local', 'chain'));
    const at = { repositoryId: idOf(url), commit: commits.c3b!, buildKey: ATTESTED_BUILD_KEY };
    const attesters = await Promise.all([published.sha256, DIFFERING_TAR_SHA256].map(async (tarSha256) => {
      const key = Ed25519Keypair.generate();
      await network.faucet(key.toSuiAddress());
      const signer = new SuiLedger({ client: network.client, signer: key, packageId: network.packageId, registryId: network.registryId });
      const attesting = new SuiMarket({ client: network.client, ledger: signer, packageId: network.packageId, marketId: network.marketId });
      const { providerId } = await attesting.register(20n * 1_000_000_000n, 1n, 'https://attester.example', {});
      const step = { attestations: attesting.attestations(), clockMs: () => attesting.clockMs(), signPersonalMessage: (message: Uint8Array) => key.signPersonalMessage(message) };
      const attester = { providerId, capId: await attesting.providerCapId(providerId) };
      const digests = { tarSha256, manifestRoot: published.manifestRoot };
      await advanceAttestation(step, attester, at, digests);
      return () => advanceAttestation(step, attester, at, digests);
    }));
    await engine.setClock((await engine.clockMs()) + DEFAULT_COMMIT_MS, { frozen: false });
    for (const reveal of attesters) await reveal();
  } finally {
    await network.close();
  }
  const endedLease = (await world.ok(app, ['walrus', 'lease', 'open', 'walrus', '--provider', provider, '--deposit', '5'])).trim();
  await world.ok(app, ['walrus', 'lease', 'close', endedLease], { env: keys.provider });

  // secret: private, the owner's, with one reader.
  const secret = await initWorkRepo(world, 'secret');
  const secretReadme = 'Top secret plans: launch on Tuesday.\n';
  await commit(world, secret, 'README.md', secretReadme, 'the plan');
  const secretUrl = (await as(secret, ['walrus', 'init', 'secret', '--private'])).split('\n').at(-1)!;
  await as(secret, ['push', '-q', 'walrus', 'main']);
  await as(secret, ['walrus', 'readers', 'add', 'walrus', reader.toSuiAddress()]);

  // evil: script and HTML wherever a pusher can put it.
  const evil = await initWorkRepo(world, 'evil');
  writeFileSync(world.path(evil, 'README.md'), INJECTION.readme);
  for (const name of INJECTION.fileNames) writeFileSync(world.path(evil, name), `content of ${name}\n`);
  await world.ok(evil, ['add', '.']);
  await world.ok(evil, ['commit', '-q', '-m', INJECTION.message]);
  const evilCommit = await world.ok(evil, ['rev-parse', 'HEAD']);
  await world.ok(evil, ['update-ref', INJECTION.branch, evilCommit]);
  await world.ok(evil, ['update-ref', INJECTION.tag, evilCommit]);
  const evilUrl = (await as(evil, ['walrus', 'init', 'evil'])).split('\n').at(-1)!;
  await as(evil, ['push', '-q', 'walrus', 'main', INJECTION.branch, INJECTION.tag]);

  return {
    world,
    app: { id: idOf(url), url, commits, forcedSeq: 5 },
    secret: { id: idOf(secretUrl), url: secretUrl, readme: secretReadme },
    evil: { id: idOf(evilUrl), url: evilUrl, commit: evilCommit },
    deployment: { commit: commits.c3b!, lease, provider, artifact },
    endedLease,
    keys,
  };
}

export interface WebProcess {
  url: string;
  stderr(): string;
  stop(): Promise<void>;
}

/**
 * `git walrus web <args>` in the world's root, as the key in `env`; resolves with the URL it prints. The server never
 * outlives the test process (scripts/harness/reaper.ts).
 */
export async function startWeb(world: World, args: string[] = [], env: NodeJS.ProcessEnv = {}): Promise<WebProcess> {
  const child = spawnReaped('git', ['walrus', 'web', ...args], { cwd: world.root, env: { ...world.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (d: string) => { stderr += d; });
  const exited = new Promise<void>((done) => child.once('close', () => done()));
  const url = await new Promise<string>((done, fail) => {
    let out = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => {
      out += d;
      const match = out.match(/^(http:\/\/\S+)$/m);
      if (match) done(match[1]!);
    });
    child.on('close', (code) => fail(new Error(`git walrus web exited (${code}):\n${stderr}`)));
  });
  return { url, stderr: () => stderr, stop: () => { child.kill('SIGTERM'); return exited; } };
}

/** Page fetching and checks every web test shares. */
export interface Fetched { status: number; headers: Headers; text: string }
export async function get(base: WebProcess, path: string, init: RequestInit = {}): Promise<Fetched> {
  const response = await fetch(new URL(path, base.url), { redirect: 'manual', ...init });
  return { status: response.status, headers: response.headers, text: await response.text() };
}
export async function ok(base: WebProcess, path: string): Promise<string> {
  const page = await get(base, path);
  assert.is(page.status, 200, `GET ${path}: ${page.status}\n${page.text.slice(0, 2000)}\n${base.stderr()}`);
  assert.match(page.headers.get('content-security-policy') ?? '', /script-src 'self'; style-src 'self'/, `GET ${path} has the strict CSP`);
  assert.is(page.headers.get('x-dns-prefetch-control'), 'off', `GET ${path} keeps the hosts of its links unresolved`);
  assertInert(page.text, path);
  return page.text;
}

/** Markup that could run anything: only our own script tag may appear, and no tag carries a handler or a js: URL. */
function assertInert(page: string, where: string): void {
  // Attribute values are quoted and escaped: what is inside them is data, whatever it reads like.
  const text = page.replace(/="[^"]*"/g, '=""');
  const scripts = text.match(/<script\b[^>]*>/gi) ?? [];
  assert.ok(scripts.every((tag) => tag === '<script src="" defer>'), `${where}: only /static/app.js is a script: ${scripts.join(' ')}`);
  assert.not.match(text, /<(iframe|object|embed|style|base|meta http-equiv)\b/i, `${where}: no frame, object, style or base element`);
  assert.not.match(text, /<[a-z][^>]*[\s/]on[a-z]+\s*=/i, `${where}: no event handler attribute`);
  assert.not.match(page, /(href|src)\s*=\s*"\s*javascript:/i, `${where}: no javascript: URL`);
  assert.match(page, /<script src="\/static\/app\.js" defer><\/script>/);
}

/** Waits until `verify.json` says the run is over; returns its badges. */
export async function verified(base: WebProcess, id: string): Promise<Array<{ seq: number; state: string; findings: string[] }>> {
  for (let i = 0; i < 300; i++) {
    const status = JSON.parse((await get(base, `/repos/${id}/verify.json`)).text) as { state: string; badges: Array<{ seq: number; state: string; findings: string[] }> };
    if (status.state === 'done' || status.state === 'error') return status.badges;
    if (status.state === 'idle') await get(base, `/repos/${id}/verify`, { method: 'POST' });
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`verify of ${id} did not finish in 60 s:\n${base.stderr()}`);
}

/** A page's text: tags dropped, entities decoded, white space collapsed. */
export const text = (html: string) => html.replace(/<[^>]*>/g, ' ').replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&quot;/g, '"').replace(/&#39;/g, "'").replace(/&amp;/g, '&').replace(/\s+/g, ' ');
