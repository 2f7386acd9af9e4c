/**
 * For the rebuild and attestation tests: an npm app without dependencies (no registry needed) whose build writes a
 * file from SOURCE_DATE_EPOCH, pushed to a walrus remote, and a provider's build of it done with the build Job's own
 * steps (checkout, manifest plan, build script, pack).
 */
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { initWorkRepo, walrusInit } from '../../scripts/harness/world.ts';
import type { World } from '../../scripts/harness/world.ts';

const BUILD = "node -e \"require('fs').writeFileSync('built-at.txt', String(process.env.SOURCE_DATE_EPOCH))\"";

/** Commits the app in a new work repository `repo` and pushes it to its walrus remote; returns the commit. */
export async function pushTimestampApp(world: World, repo: string): Promise<string> {
  await initWorkRepo(world, repo);
  writeFileSync(world.path(repo, 'package.json'), `${JSON.stringify({ name: 'app', version: '1.0.0', private: true, walrus: { build: BUILD } })}\n`);
  writeFileSync(world.path(repo, 'package-lock.json'), `${JSON.stringify({ name: 'app', version: '1.0.0', lockfileVersion: 3, requires: true, packages: { '': { name: 'app', version: '1.0.0' } } })}\n`);
  writeFileSync(world.path(repo, 'server.js'), 'console.log("hello")\n');
  await world.ok(repo, ['add', '.']);
  await world.ok(repo, ['commit', '-q', '-m', 'app']);
  const head = await world.ok(repo, ['rev-parse', 'HEAD']);
  await walrusInit(world, repo, 'app');
  await world.ok(repo, ['push', '-q', 'walrus', 'main']);
  return head;
}

export interface PackedBuild {
  blobId: string;
  sha256: string;
  manifestRoot: string;
  buildKey: string;
  buildInfo: string;
}

/** The build Job's steps by hand into `built/`: checkout of `head` from `repo`'s remote, plan, build, `artifact pack` with `packArgs`. */
export async function buildLikeTheJob(world: World, repo: string, head: string, packArgs: string[] = []): Promise<PackedBuild> {
  const url = (await world.ok(repo, ['config', 'remote.walrus.url'])).trim();
  await world.ok('.', ['walrus', 'checkout', url, 'built', '--commit', head]);
  await world.ok('.', ['walrus', 'manifest', 'built', '--plan', world.path('plan')]);
  execFileSync('sh', [world.path('plan', 'build.sh')], { cwd: world.path('built'), env: { PATH: process.env.PATH, HOME: world.path('build-home') }, stdio: 'ignore' });
  return JSON.parse(await world.ok('.', ['walrus', 'artifact', 'pack', 'built', ...packArgs])) as PackedBuild;
}
