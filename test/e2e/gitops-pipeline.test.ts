import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, lstatSync, mkdirSync, readdirSync, readFileSync, readlinkSync, symlinkSync, writeFileSync } from 'node:fs';
import { commit, createWorld, initWorkRepo, startDevnet } from '../../scripts/harness/world.ts';
import type { World } from '../../scripts/harness/world.ts';

/**
 * The build pipeline's steps by hand, with real git: `git walrus checkout` (verified clone, reachability check),
 * `git walrus artifact pack` and `git walrus artifact fetch` (deterministic tarball on Walrus, sha256 check).
 */
async function pipeline(w: World, env: NodeJS.ProcessEnv): Promise<void> {
  const src = await initWorkRepo(w, 'src');
  mkdirSync(w.path(src, 'bin'));
  writeFileSync(w.path(src, 'bin', 'start'), '#!/bin/sh\necho started\n');
  chmodSync(w.path(src, 'bin', 'start'), 0o755);
  symlinkSync('server.js', w.path(src, 'main.js'));
  writeFileSync(w.path(src, 'server.js'), 'v1\n');
  await w.ok(src, ['add', '-A']);
  const c1 = await commit(w, src, 'package.json', '{"name":"app","version":"1.0.0"}\n', 'v1');
  const url = (await w.ok(src, ['walrus', 'init', 'app'], { env })).split('\n').at(-1)!;
  await w.ok(src, ['push', '-q', 'walrus', 'main'], { env });
  const c2 = await commit(w, src, 'server.js', 'v2\n', 'v2');
  await w.ok(src, ['push', '-q', 'walrus', 'main'], { env });

  // checkout at a named commit: detached, the tree of that commit, exec bit and link kept, origin set.
  assert.is(await w.ok('.', ['walrus', 'checkout', url, 'co1', '--commit', c1], { env }), c1);
  assert.is(await w.ok('co1', ['rev-parse', 'HEAD']), c1);
  assert.is((await w.run('co1', ['symbolic-ref', '-q', 'HEAD'])).code, 1, 'HEAD is detached');
  assert.is(readFileSync(w.path('co1', 'server.js'), 'utf8'), 'v1\n');
  assert.is(lstatSync(w.path('co1', 'bin', 'start')).mode & 0o111, 0o111);
  assert.is(readlinkSync(w.path('co1', 'main.js')), 'server.js');
  assert.is(await w.ok('co1', ['config', 'remote.origin.url']), url);
  assert.is(await w.ok('co1', ['rev-parse', 'origin/main']), c2);
  // The source of a reproducible build (never packed): the commit and its committer time.
  const source = JSON.parse(readFileSync(w.path('co1', '.walrus-build', 'source.json'), 'utf8')) as { commit: string; commitTime: number };
  assert.is(source.commit, c1);
  assert.is(source.commitTime, Number(await w.ok('co1', ['show', '-s', '--format=%ct', c1])));
  // Without --commit: the HEAD branch's commit.
  assert.is(await w.ok('.', ['walrus', 'checkout', url, 'co2'], { env }), c2);

  // Refusals, each naming the commit: not in the repository, no longer reachable, a non-empty directory.
  const unknown = 'f'.repeat(40);
  const missing = await w.run('.', ['walrus', 'checkout', url, 'co3', '--commit', unknown], { env });
  assert.is(missing.code, 1);
  assert.match(missing.stderr, new RegExp(`fatal: commit ${unknown} is not in repository`));
  assert.equal(readdirSync(w.path('co3')), [], 'a refused checkout leaves nothing behind');
  await w.ok(src, ['push', '-q', '-f', 'walrus', `${c1}:refs/heads/main`], { env });
  const unreachable = await w.run('.', ['walrus', 'checkout', url, 'co4', '--commit', c2], { env });
  assert.is(unreachable.code, 1);
  assert.match(unreachable.stderr, new RegExp(`fatal: commit ${c2} is not reachable from any branch or tag`));
  const busy = await w.run('.', ['walrus', 'checkout', url, 'co1', '--commit', c1], { env });
  assert.is(busy.code, 129);
  assert.match(busy.stderr, /is not empty/);

  // pack: JSON on stdout and in the termination message; packing the same tree again gives the same artifact.
  const printed = await w.ok('.', ['walrus', 'artifact', 'pack', 'co1', '--termination-message', w.path('termination-log')], { env });
  const artifact = JSON.parse(printed) as { blobId: string; sha256: string; size: number; manifestRoot: string };
  // No build ran here (no plan, no tools in the report): no build key, only the manifest root beside the digest.
  assert.equal(Object.keys(artifact), ['blobId', 'sha256', 'size', 'manifestRoot']);
  assert.match(artifact.manifestRoot, /^[0-9a-f]{64}$/);
  assert.match(artifact.sha256, /^[0-9a-f]{64}$/);
  assert.ok(artifact.size > 0);
  assert.equal(JSON.parse(readFileSync(w.path('termination-log'), 'utf8')), artifact);
  assert.equal(JSON.parse(await w.ok('.', ['walrus', 'artifact', 'pack', 'co1'], { env })), artifact);

  // fetch: the same tree, without .git; a wrong sha256 is refused and leaves the directory empty.
  await w.ok('.', ['walrus', 'artifact', 'fetch', artifact.blobId, '--sha256', artifact.sha256, 'run'], { env });
  assert.is(readFileSync(w.path('run', 'server.js'), 'utf8'), 'v1\n');
  assert.is(lstatSync(w.path('run', 'bin', 'start')).mode & 0o777, 0o755);
  assert.is(readlinkSync(w.path('run', 'main.js')), 'server.js');
  assert.not.ok(existsSync(w.path('run', '.git')));
  assert.equal(JSON.parse(await w.ok('.', ['walrus', 'artifact', 'pack', 'run'], { env })).sha256, artifact.sha256);
  const wrong = await w.run('.', ['walrus', 'artifact', 'fetch', artifact.blobId, '--sha256', '0'.repeat(64), 'bad'], { env });
  assert.is(wrong.code, 1);
  assert.match(wrong.stderr, new RegExp(`fatal: artifact ${artifact.blobId} unpacks to a tarball with sha256 ${artifact.sha256}, but 0{64} was expected`));
  assert.equal(readdirSync(w.path('bad')), []);
}

const e2e = suite('gitops pipeline by hand');

e2e('checkout → artifact pack → artifact fetch on the embedded network', async () => {
  const w = createWorld();
  try {
    await pipeline(w, {});
  } finally {
    w.remove();
  }
});

e2e('the same on a git walrus devnet server', async () => {
  const w = createWorld();
  const server = await startDevnet(w);
  try {
    await pipeline(w, { GIT_WALRUS_NETWORK: 'devnet', GIT_WALRUS_DEVNET_URL: server.url });
  } finally {
    await server.stop(); // before removing its HOME: an exiting `git walrus` process writes its module compile cache there
    w.remove();
  }
});

e2e('an artifact larger than one Walrus blob is stored as several and comes back whole', async () => {
  const w = createWorld();
  try {
    mkdirSync(w.path('big'));
    const noise = randomBytes(10 * 1024 * 1024 + 123_456); // incompressible: more than one 10 MiB blob once gzipped
    writeFileSync(w.path('big', 'noise.bin'), noise);
    const artifact = JSON.parse(await w.ok('.', ['walrus', 'artifact', 'pack', 'big'])) as { blobId: string; sha256: string; size: number };
    assert.ok(artifact.size > 10 * 1024 * 1024, String(artifact.size));
    assert.is(w.takeStats().find((s) => s.role === 'cli')!.blobWrites, 3, 'two chunks and the index');
    await w.ok('.', ['walrus', 'artifact', 'fetch', artifact.blobId, '--sha256', artifact.sha256, 'back']);
    assert.ok(readFileSync(w.path('back', 'noise.bin')).equals(noise));
  } finally {
    w.remove();
  }
});

e2e.run();
