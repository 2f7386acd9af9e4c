import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { execFileSync } from 'node:child_process';
import { cpSync, mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { tempDir } from '../../scripts/harness/git-env.ts';
import { diffManifests } from '../../src/core/manifest-root.ts';
import { packTree } from '../../src/fs/tarball.ts';
import { writeSource } from '../../src/gitops/build/build-report.ts';
import { buildLocally } from '../../src/gitops/build/local-build.ts';
import type { LocalBuildOptions } from '../../src/gitops/build/local-build.ts';
import { formatVerdict, LOCAL_IMAGE } from '../../src/gitops/build/rebuild.ts';
import { readBuildInfo } from '../../src/gitops/build/build-report.ts';

/**
 * Two builds of one commit, as two providers (or a provider and a tenant) would run them, under deliberately
 * different conditions: the checkout's path, HOME and so the npm cache, TZ, locale, umask, host name (a UTS
 * namespace), and the clock (they run seconds apart). npm ci reaches the npm registry; each build has its own cache.
 */
/**
 * The machine's own node and npm, as a user's rebuild finds them (the test runner's npx puts the project's node
 * first, which does not trust this machine's CA store for the registry).
 */
const PATH = (process.env.PATH ?? '/usr/bin:/bin').split(':').filter((entry) => !entry.includes('node_modules')).join(':');
const SOURCE = { repository: `0x${'ab'.repeat(32)}`, commit: 'c0ffee'.padEnd(40, '0'), commitTime: 1_700_000_000 };

/** The first condition set: close to a provider's build pod. */
const A: LocalBuildOptions = { path: PATH };
/** The second: everything the build's prelude must override, and another host name and umask. */
const B: LocalBuildOptions = {
  path: PATH,
  extraEnv: { TZ: 'Pacific/Chatham', LC_ALL: 'tr_TR.UTF-8', LANG: 'tr_TR.UTF-8', HOSTNAME: 'rebuilder-b', npm_config_cache: '/nonexistent-shared-cache' },
  wrap: ['unshare', '-Uru', 'sh', '-c', 'hostname rebuilder-b && umask 077 && exec "$@"', 'sh'],
};

const made: Array<{ remove(): void }> = [];
function scratch(prefix: string): string {
  const dir = tempDir(prefix);
  made.push(dir);
  return dir.path;
}

async function buildAt(fixture: string, parent: string, options: LocalBuildOptions) {
  const dir = join(parent, 'checkout', 'of', 'the', 'app');
  mkdirSync(dirname(dir), { recursive: true });
  cpSync(fixture, dir, { recursive: true, filter: (path) => !path.includes('node_modules') });
  await writeSource(dir, SOURCE);
  await buildLocally(dir, { ...options, scratch: parent });
  return { packed: await packTree(dir, async () => {}), info: await readBuildInfo(dir, LOCAL_IMAGE, null) };
}

const express = suite('reproducible build: examples/express-app');

express('two builds under different conditions give the same tar sha256, manifest root and build key', async () => {
  const first = await buildAt(join(import.meta.dirname, '../../examples/express-app'), scratch('repro-a-'), A);
  const second = await buildAt(join(import.meta.dirname, '../../examples/express-app'), scratch('repro-b-long-other-path-'), B);
  assert.ok(first.packed.manifest.some((entry) => entry.path === 'node_modules/express/package.json'), 'express was installed');
  assert.equal(diffManifests(first.packed.manifest, second.packed.manifest), []);
  assert.is(second.packed.sha256, first.packed.sha256);
  assert.is(second.packed.manifestRoot, first.packed.manifestRoot);
  assert.ok(first.info !== null && second.info !== null);
  assert.is(second.info!.buildKey, first.info!.buildKey);
  assert.match(first.info!.inputs.tools.node, /^v\d+\./);
  assert.equal(first.info!.installScripts, { ran: [], heldBack: [] });
  assert.ok(first.info!.resolved.some((entry) => entry.path === 'node_modules/express' && entry.integrity?.startsWith('sha512-')));
});

express.after(() => { for (const dir of made.splice(0)) dir.remove(); });
express.run();

const stamped = suite('reproducible build: a build that stamps the clock');

stamped('two builds disagree, and the manifests name exactly the stamped file', async () => {
  const fixture = scratch('repro-stamp-src-');
  const build = "node -e \"const fs=require('fs');fs.writeFileSync('built-at.txt',process.env.SOURCE_DATE_EPOCH);fs.writeFileSync('stamp.txt',new Date().toISOString())\"";
  writeFileSync(join(fixture, 'package.json'), `${JSON.stringify({ name: 'stamp', version: '1.0.0', private: true, walrus: { build } })}\n`);
  writeFileSync(join(fixture, 'package-lock.json'), `${JSON.stringify({ name: 'stamp', version: '1.0.0', lockfileVersion: 3, requires: true, packages: { '': { name: 'stamp', version: '1.0.0' } } })}\n`);
  writeFileSync(join(fixture, 'server.js'), 'console.log("hi")\n');
  const first = await buildAt(fixture, scratch('repro-stamp-a-'), A);
  execFileSync('sleep', ['0.01']);
  const second = await buildAt(fixture, scratch('repro-stamp-b-'), B);
  assert.is.not(second.packed.sha256, first.packed.sha256);
  const differences = diffManifests(second.packed.manifest, first.packed.manifest);
  assert.equal(differences.map((difference) => difference.path), ['stamp.txt']);
  const verdictUnder = (buildInfo: typeof second.info) => formatVerdict({
    target: { repository: SOURCE.repository, commit: SOURCE.commit, artifact: 'provider-blob', sha256: first.packed.sha256, lease: `0x${'1'.repeat(64)}` },
    reproduced: false, sha256: second.packed.sha256, manifestRoot: second.packed.manifestRoot, buildInfo, differences,
  });
  // Built with this machine's tools (image local): another key than the provider's, which the verdict says, not a dispute.
  const verdict = verdictUnder(second.info);
  assert.match(verdict, new RegExp(`different bytes under a different build key, not a dispute: .* under build key ${second.info!.buildKey} \\(image local\\), with its own tools \\(node v`));
  assert.not.match(verdict, /NOT reproduced/);
  // Built in a named image: the same key as a provider's in that image, so other bytes are a disagreement.
  const pinned = `node@sha256:${'d1'.repeat(32)}`;
  assert.match(verdictUnder({ ...second.info!, inputs: { ...second.info!.inputs, image: pinned } }), new RegExp(`NOT reproduced: the provider recorded tar sha256 ${first.packed.sha256}, this machine built ${second.packed.sha256} under build key [0-9a-f]{64} \\(image ${pinned}\\)`));
  assert.match(verdict, new RegExp(`stamp.txt\\n    here:     ${differences[0]!.ours!.sha256} \\(644\\)\\n    provider: ${differences[0]!.theirs!.sha256} \\(644\\)`));
  assert.ok(first.packed.manifest.some((entry) => entry.path === 'built-at.txt'), 'SOURCE_DATE_EPOCH reached the build');
});

stamped.after(() => { for (const dir of made.splice(0)) dir.remove(); });
stamped.run();
