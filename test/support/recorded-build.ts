/**
 * For the rebuild and attestation tests: an npm app without dependencies (no registry needed) whose build writes a
 * file from SOURCE_DATE_EPOCH, pushed to a walrus remote, and a provider's build of it done with the build Job's own
 * steps (checkout, manifest plan, build script, pack).
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Ed25519Keypair } from '@mysten/sui/keypairs/ed25519';
import { ChainEngine } from '../../src/devnet/chain/engine.ts';
import { openLocalNetwork } from '../../src/devnet/local-network.ts';
import { SuiLedger } from '../../src/sui/ledger.ts';
import { SuiMarket } from '../../src/sui/market.ts';
import { toolEnvironment } from '../../src/gitops/build/tool-environment.ts';
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

/** The build Job's steps by hand into `dir` (new): checkout of `head` from `repo`'s remote, plan, build, `artifact pack` with `packArgs`. */
export async function buildLikeTheJob(world: World, repo: string, head: string, packArgs: string[] = [], dir = 'built'): Promise<PackedBuild> {
  const url = (await world.ok(repo, ['config', 'remote.walrus.url'])).trim();
  await world.ok('.', ['walrus', 'checkout', url, dir, '--commit', head]);
  await world.ok('.', ['walrus', 'manifest', dir, '--plan', world.path(`${dir}-plan`)]);
  try {
    execFileSync('sh', [world.path(`${dir}-plan`, 'build.sh')], { cwd: world.path(dir), env: { PATH: process.env.PATH, HOME: world.path(`${dir}-home`), ...toolEnvironment(process.env) }, stdio: ['ignore', 'pipe', 'pipe'], maxBuffer: 64 * 2 ** 20 });
  } catch (error) {
    const { status, stdout, stderr } = error as { status: number | null; stdout?: Buffer; stderr?: Buffer };
    const tail = (text: string, lines: number) => text.trimEnd().split('\n').slice(-lines).join('\n');
    // npm may fail saying only where its debug log is (and the world, with that log, is removed after).
    const logs = join(world.path(`${dir}-home`), '.npm-build', '_logs');
    const npmLog = existsSync(logs) ? readdirSync(logs).sort().map((name) => `\nnpm's ${name} ends:\n${tail(readFileSync(join(logs, name), 'utf8'), 25)}`).join('') : '';
    throw new Error(`the build plan's build.sh exited ${status}; its output ends:\n${tail(`${stdout ?? ''}${stderr ?? ''}`, 30)}${npmLog}`);
  }
  return JSON.parse(await world.ok('.', ['walrus', 'artifact', 'pack', dir, ...packArgs])) as PackedBuild;
}

/**
 * The world's embedded network opened in this process, its chain engine (to move the Clock), its genesis admin's
 * market, and a market signed by any key (funded from the faucet first).
 */
export async function worldMarkets(world: World) {
  const dir = join(world.path('walrus-home'), 'local');
  const network = await openLocalNetwork(dir);
  const engine = await ChainEngine.open(join(dir, 'chain'));
  const signed = async (key: Ed25519Keypair) => {
    await network.faucet(key.toSuiAddress());
    const ledger = new SuiLedger({ client: network.client, signer: key, packageId: network.packageId, registryId: network.registryId });
    return new SuiMarket({ client: network.client, ledger, packageId: network.packageId, marketId: network.marketId });
  };
  return { network, engine, signed, admin: await signed(Ed25519Keypair.fromSecretKey(engine.genesis.faucetKey)) };
}
