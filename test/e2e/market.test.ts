/**
 * The compute market end to end on the embedded network, through `git walrus`: a provider registers, a tenant
 * leases it for a pushed repository, the provider claims twice (the second pays nothing), the tenant closes and gets
 * the rest back, the provider unbonds and withdraws its stake once the delay has passed. The devnet Clock is set by
 * the test (a second engine on the same state directory), so every amount is exact. Each way a lease ends (closed by
 * its tenant, by its provider, after its funds ran out, by a provider leaving the market) is what `lease show`
 * prints. Then `deployments --verify` checks a deploy record whose artifact is on Walrus, and fails on one whose
 * sha256 does not match; once the lease has ended its records say so.
 */
import { join } from 'node:path';
import { mkdirSync, writeFileSync } from 'node:fs';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { Ed25519Keypair } from '@mysten/sui/keypairs/ed25519';
import { silentLog } from '../../src/core/log.ts';
import { tarballArchive } from '../../src/fs/tarball.ts';
import { publishArtifact } from '../../src/remote/artifacts.ts';
import { ChainEngine } from '../../src/devnet/chain/engine.ts';
import { openLocalNetwork } from '../../src/devnet/local-network.ts';
import { SuiLedger } from '../../src/sui/ledger.ts';
import { SuiMarket } from '../../src/sui/market.ts';
import { HttpBlobStore } from '../../src/walrus/http-blob-store.ts';
import { commit, createWorld, initWorkRepo, walrusInit } from '../../scripts/harness/world.ts';

const test = suite('git walrus provider / lease / providers / deployments');
const world = createWorld('walrus-market-');
const providerKey = Ed25519Keypair.generate();
const asProvider = { GIT_WALRUS_KEY: providerKey.getSecretKey() };
const DAY = 86_400_000n;

const repo = 'app';
let head = '';
let engine: ChainEngine;
let t0 = 0n;
const at = (ms: bigint) => engine.setClock(t0 + ms, { frozen: true });
/** The Clock time `ms` after t0 as the CLI prints it. */
const iso = (ms: bigint) => new Date(Number(t0 + ms)).toISOString().replace('.000Z', 'Z');

const walrus = (args: string[], env: NodeJS.ProcessEnv = {}) => world.run(repo, ['walrus', ...args], { env });
const ok = async (args: string[], env: NodeJS.ProcessEnv = {}) => {
  const result = await walrus(args, env);
  assert.is(result.code, 0, `git walrus ${args.join(' ')}: ${result.stderr}`);
  return result;
};
let providerId = '';
let leaseId = '';

// In a hook, not at import: uvu imports every test file before it runs the first suite, and the clock runs meanwhile.
test.before(async () => {
  await initWorkRepo(world, repo);
  head = await commit(world, repo, 'index.js', 'console.log("hello")\n', 'app');
  await walrusInit(world, repo, 'app');
  await world.ok(repo, ['push', '-q', 'walrus', 'main']);
  engine = await ChainEngine.open(join(world.path('walrus-home'), 'local', 'chain'));
  t0 = (await engine.clockMs()) + 60_000n;
});

test('a provider registers with a stake and a price, and is listed', async () => {
  await at(0n);
  const registered = await ok(['provider', 'register', '--stake', '20', '--price', '1MIST', '--endpoint', 'https://compute.example', '--attribute', 'region=eu'], asProvider);
  providerId = registered.stdout.trim();
  assert.match(providerId, /^0x[0-9a-f]{64}$/);
  assert.match(registered.stderr, /stake of 20 SUI at 1 MIST\/ms \(0\.0036 SUI\/hour\)/);
  const list = (await ok(['providers'])).stdout;
  assert.match(list, new RegExp(`${providerId}\\s+20 SUI\\s+1 MIST/ms\\s+0\\s+0\\s+bonded\\s+https://compute.example`));
  assert.match(list, /minimum stake 10 SUI, unbonding delay 7 days, minimum lease 1 h/);
  assert.match((await ok(['provider', 'show'], asProvider)).stdout, /attributes region=eu/);
  const listed = JSON.parse((await ok(['providers', '--json'])).stdout);
  assert.equal(listed.params, { minStake: '10000000000', unbondingMs: 7 * 86_400_000, minLeaseMs: 3_600_000 });
  assert.equal(listed.providers.map((p: { id: string; stake: string; pricePerMs: string; status: string }) => [p.id, p.stake, p.pricePerMs, p.status]), [[providerId, '20000000000', '1', 'bonded']]);
  const shown = JSON.parse((await ok(['provider', 'show', '--json'], asProvider)).stdout);
  assert.equal([shown.id, shown.endpoint, shown.attributes, shown.activeLeases], [providerId, 'https://compute.example', { region: 'eu' }, 0]);
});

test('a deposit too small for the minimum lease is refused in words', async () => {
  const refused = await walrus(['lease', 'open', 'walrus', '--provider', providerId, '--deposit', '0.0035']);
  assert.is(refused.code, 1);
  assert.match(refused.stderr, /fatal: opening a lease .* refused: the deposit pays for less than the market's minimum lease duration/);
  assert.not.match(refused.stderr, /EDepositTooSmall|\b7\b/);
});

test('a tenant leases the provider for the pushed repository', async () => {
  await at(1000n);
  const opened = await ok(['lease', 'open', 'walrus', '--provider', providerId, '--deposit', '5']);
  leaseId = opened.stdout.trim();
  assert.match(opened.stderr, /lease of refs\/heads\/main with 5 SUI at 1 MIST\/ms/);
  const shown = (await ok(['lease', 'show', leaseId])).stdout;
  assert.match(shown, /state\s+open/);
  assert.match(shown, /escrow\s+5 SUI/);
  assert.match((await ok(['providers'])).stdout, new RegExp(`${providerId}\\s+20 SUI\\s+1 MIST/ms\\s+1\\s+0`));
});

test('a push to the leased ref names the lease that deploys it and the command that follows it; an unreachable gateway is named', async () => {
  const next = await commit(world, repo, 'index.js', 'console.log("again")\n', 'again');
  const pushed = await world.run(repo, ['push', 'walrus', 'main']);
  assert.is(pushed.code, 0, pushed.stderr);
  head = next.trim();
  const short = head.slice(0, 12);
  assert.match(pushed.stderr, `remote: refs/heads/main ${short} deploys on lease ${leaseId} (provider ${providerId}): git walrus lease status ${leaseId} --wait ${short}`);
  const status = await walrus(['lease', 'status', leaseId]);
  assert.is.not(status.code, 0);
  assert.match(status.stderr, `the gateway of provider ${providerId} at https://compute.example did not answer`);
  assert.match(status.stderr, /check that the endpoint the provider registered is where its gateway runs/);
});

test('the provider claims what accrued; a second claim pays nothing', async () => {
  await at(1000n + 600_000n);
  assert.match(await ok(['lease', 'show', leaseId]).then((r) => r.stdout), /0\.0006 SUI accrued to the provider/);
  const lease = JSON.parse((await ok(['lease', 'show', leaseId, '--json'])).stdout);
  assert.equal([lease.id, lease.state, lease.escrow, lease.accrued, lease.provider], [leaseId, 'open', '5000000000', '600000', providerId]);
  assert.is(lease.fundedUntilMs, lease.settledUntilMs + 5_000_000_000);
  assert.is((await ok(['provider', 'claim'], asProvider)).stdout, 'claimed 0.0006 SUI from 1 lease\n');
  assert.is((await ok(['provider', 'claim'], asProvider)).stdout, 'claimed 0 SUI from 1 lease\n');
});

test('the tenant closes: the rest is refunded, the provider paid up to the close', async () => {
  await at(1000n + 900_000n);
  assert.is((await ok(['lease', 'close', leaseId])).stdout, 'closed: 4.9991 SUI refunded to the tenant, 0.0003 SUI paid to the provider\n');
  assert.match((await ok(['lease', 'show', leaseId])).stdout, `state       closed\nended       closed by the tenant at ${iso(1000n + 900_000n)}\n`);
  const again = await walrus(['lease', 'close', leaseId]);
  assert.is(again.code, 1);
  assert.match(again.stderr, /refused: the lease is closed/);
  assert.match((await ok(['providers'])).stdout, new RegExp(`${providerId}\\s+20 SUI\\s+1 MIST/ms\\s+0\\s+1`));
});

test('every way a lease ends is recorded on chain: lease show says why, who and when', async () => {
  const open = async (provider: string, deposit: string) => (await ok(['lease', 'open', 'walrus', '--provider', provider, '--deposit', deposit])).stdout.trim();
  const ended = async (lease: string) => /^ended {7}(.*)$/m.exec((await ok(['lease', 'show', lease])).stdout)?.[1];

  await at(1_000_000n);
  const byProvider = await open(providerId, '5');
  assert.is(await ended(byProvider), undefined, 'an open lease has not ended');
  assert.is(JSON.parse((await ok(['lease', 'show', byProvider, '--json'])).stdout).end, null);
  await at(1_100_000n);
  assert.is((await ok(['lease', 'close', byProvider], asProvider)).stdout, 'closed: 4.9999 SUI refunded to the tenant, 0.0001 SUI paid to the provider\n');
  assert.is(await ended(byProvider), `closed by the provider while it was still funded at ${iso(1_100_000n)}`);
  const json = JSON.parse((await ok(['lease', 'show', byProvider, '--json'])).stdout);
  assert.equal(json.end, { reason: 'closed_by_provider', by: providerKey.toSuiAddress(), byTenant: false, atMs: Number(t0 + 1_100_000n) });

  // The minimum deposit at 1 MIST/ms pays for one hour.
  await at(1_200_000n);
  const ranOut = await open(providerId, '0.0036');
  await at(1_200_000n + 3_600_000n + 1000n);
  assert.match((await ok(['lease', 'show', ranOut])).stdout, /state\s+open/, 'unsettled: its funds ran out by the clock only');
  assert.is((await ok(['lease', 'close', ranOut])).stdout, 'closed: 0 SUI refunded to the tenant, 0.0036 SUI paid to the provider\n');
  assert.is(await ended(ranOut), `its funds ran out (closed by the tenant) at ${iso(1_200_000n + 3_600_000n + 1000n)}`);

  // A provider leaving the market closes its leases before it can take its stake back.
  const leaverKey = Ed25519Keypair.generate();
  const asLeaver = { GIT_WALRUS_KEY: leaverKey.getSecretKey() };
  const leaver = (await ok(['provider', 'register', '--stake', '20', '--price', '1MIST', '--endpoint', 'https://leaving.example'], asLeaver)).stdout.trim();
  const left = await open(leaver, '5');
  await at(5_000_000n);
  await ok(['provider', 'unbond'], asLeaver);
  await at(5_100_000n);
  await ok(['lease', 'close', left], asLeaver);
  assert.is(await ended(left), `closed by the provider, which is leaving the market (unbonding) at ${iso(5_100_000n)}`);
  assert.equal(JSON.parse((await ok(['lease', 'show', left, '--json'])).stdout).end, { reason: 'provider_unbonding', by: leaverKey.toSuiAddress(), byTenant: false, atMs: Number(t0 + 5_100_000n) });
});

test('the stake comes back only after unbonding and its delay', async () => {
  const early = await walrus(['provider', 'withdraw'], asProvider);
  assert.match(early.stderr, /refused: the provider is not unbonding: run `git walrus provider unbond` first/);
  await at(DAY);
  assert.match((await ok(['provider', 'unbond'], asProvider)).stderr, /no new lease from now on/);
  const refused = await walrus(['lease', 'open', 'walrus', '--provider', providerId, '--deposit', '5']);
  assert.match(refused.stderr, /refused: the provider is unbonding and takes no new lease/);
  await at(DAY + 7n * DAY - 1n);
  const tooEarly = await walrus(['provider', 'withdraw'], asProvider);
  assert.is(tooEarly.code, 1);
  assert.match(tooEarly.stderr, /refused: the unbonding delay has not passed yet/);
  await at(DAY + 7n * DAY);
  assert.match((await ok(['provider', 'withdraw'], asProvider)).stderr, /Withdrew 20 SUI/);
  assert.match((await ok(['provider', 'show'], asProvider)).stdout, /stake\s+0 SUI[\s\S]*status\s+unbonded/);
});

test('deployments lists the deploy records; --verify checks artifacts and commits', async () => {
  // A provider that records deploys (what the controller does in provider mode), through the product's adapters.
  const network = await openLocalNetwork(join(world.path('walrus-home'), 'local'));
  await network.faucet(providerKey.toSuiAddress());
  const ledger = new SuiLedger({ client: network.client, signer: providerKey, packageId: network.packageId, registryId: network.registryId });
  const market = new SuiMarket({ client: network.client, ledger, packageId: network.packageId, marketId: network.marketId });
  const blobs = new HttpBlobStore({ publisherUrl: network.walrusUrl, aggregatorUrl: network.walrusUrl, numShards: network.numShards, fetch: network.walrusFetch });
  const { providerId: second } = await market.register(20n * 1_000_000_000n, 1n, 'https://compute.example', {});
  const lease = (await ok(['lease', 'open', 'walrus', '--provider', second, '--deposit', '5'])).stdout.trim();
  // A built app as the build Job stores it (a deterministic tarball; the record names its blob and its tar's sha256).
  mkdirSync(world.path('built'));
  writeFileSync(world.path('built', 'index.js'), 'console.log("built")\n');
  const { blobId, sha256 } = await publishArtifact({ blobStore: blobs, archive: tarballArchive, log: silentLog }, world.path('built'), false);
  await market.recordDeploy(lease, head, blobId, sha256);

  const listed = await ok(['deployments', 'walrus', '--verify']);
  assert.match(listed.stdout, new RegExp(`${head}  refs/heads/main\\n    provider ${second}  lease ${lease}\\n    artifact ${blobId}  sha256 ${sha256}\\n    reproduced by 0 providers\\n    verified`));
  const records = JSON.parse((await ok(['deployments', 'walrus', '--verify', '--json'])).stdout);
  assert.equal(records.map((r: { commit: string; lease: string; artifact: string; sha256: string; verified: boolean; problems: string[]; reproducedBy: string[] }) => [r.commit, r.lease, r.artifact, r.sha256, r.verified, r.problems, r.reproducedBy]), [[head, lease, blobId, sha256, true, [], []]]);

  await market.recordDeploy(lease, head, blobId, 'ab'.repeat(32));
  const failed = await walrus(['deployments', 'walrus', '--verify']);
  assert.is(failed.code, 1);
  assert.match(failed.stdout, /PROBLEM: artifact .* has sha256 .*, not the recorded abab/);

  // Once the lease has ended, each of its records says so.
  await ok(['lease', 'close', lease]);
  const afterEnd = (await ok(['deployments', 'walrus'])).stdout;
  assert.is(afterEnd.split(`lease ended: closed by the tenant at ${iso(DAY + 7n * DAY)}`).length - 1, 2, afterEnd);
  const ends = JSON.parse((await ok(['deployments', 'walrus', '--json'])).stdout).map((r: { leaseEnd?: { reason: string } }) => r.leaseEnd?.reason);
  assert.equal(ends, ['closed_by_tenant', 'closed_by_tenant']);
});

test.run();

const lease = suite('a private repository read under a lease, by hand (git walrus checkout --lease)');
lease.after(() => world.remove()); // the last suite of the file: the world is shared

lease('the lease\'s provider checks out while the lease is open; refused as no reader without it, and for "lease closed" after close', async () => {
  await at(DAY + 7n * DAY + 1000n);
  const secret = 'secret';
  await initWorkRepo(world, secret);
  const commitId = await commit(world, secret, 'recipe.txt', 'the secret sauce\n', 'recipe');
  const url = (await world.ok(secret, ['walrus', 'init', 'secret', '--private'])).split('\n').at(-1)!;
  await world.ok(secret, ['push', '-q', 'walrus', 'main']);
  const inSecret = (args: string[], env: NodeJS.ProcessEnv = {}) => world.run(secret, ['walrus', ...args], { env });
  const provider = (await inSecret(['provider', 'register', '--stake', '20', '--price', '1MIST', '--endpoint', 'https://private.example'], asProvider)).stdout.trim();
  const opened = await inSecret(['lease', 'open', 'walrus', '--provider', provider, '--deposit', '5']);
  assert.is(opened.code, 0, opened.stderr);
  const privateLease = opened.stdout.trim();

  const asMember = await inSecret(['checkout', url, world.path('as-member')], asProvider);
  assert.is.not(asMember.code, 0);
  assert.match(asMember.stderr, new RegExp(`fatal: repository 'secret' \\(0x[0-9a-f]{64}\\) is private and ${providerKey.toSuiAddress()} is not one of its readers: ask its owner 0x[0-9a-f]{64} to run`));

  const underLease = await inSecret(['checkout', url, world.path('under-lease'), '--lease', privateLease], asProvider);
  assert.is(underLease.code, 0, underLease.stderr);
  assert.is(underLease.stdout.trim(), commitId);
  assert.is(await world.ok('.', ['-C', world.path('under-lease'), 'show', 'HEAD:recipe.txt']), 'the secret sauce');

  const otherRepository = await inSecret(['checkout', url, world.path('other-lease'), '--lease', leaseId], asProvider);
  assert.is.not(otherRepository.code, 0);
  assert.match(otherRepository.stderr, new RegExp(`fatal: lease ${leaseId} serves repository 0x[0-9a-f]{64}, not 0x[0-9a-f]{64}`));

  assert.is((await inSecret(['lease', 'close', privateLease])).code, 0);
  const closed = await inSecret(['checkout', url, world.path('after-close'), '--lease', privateLease], asProvider);
  assert.is.not(closed.code, 0);
  assert.match(closed.stderr, new RegExp(`^fatal: cannot decrypt the packs of repository 'secret' \\(0x[0-9a-f]{64}\\): lease closed: the Seal key servers give ${providerKey.toSuiAddress()} no keys of 0x[0-9a-f]{64}'s repository under lease ${privateLease}, which is closed`, 'm'));
  assert.not.match(closed.stderr, /no Seal key servers/);
});

lease.run();
