// Certified reads: the first committee ratchet per 100 epochs (one BLS aggregate verification per epoch), a
// certified read of a repository beside the node's word for it, the chain reads a certified clone adds (the
// proof's reads and the push log it replays), and `verify` and `clone --mirror` of a repository of express's shape,
// certified and on the node's word. Run: node bench/certified.ts [--short]
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createHash } from 'node:crypto';
import { Ed25519Keypair } from '@mysten/sui/keypairs/ed25519';
import { SuiGrpcClient, type GrpcTypes } from '@mysten/sui/grpc';
import { openLocalNetwork } from '../src/devnet/local-network.ts';
import { devnetCommittee, signersOf, validatorsOf } from '../src/devnet/chain/certification.ts';
import { signSummary } from '../src/devnet/chain/validators.ts';
import { CheckpointSummaryLayout } from '../src/light-client/bcs.ts';
import { parseSignature, type SignedSummary } from '../src/light-client/certificate.ts';
import { ratchet } from '../src/light-client/ratchet.ts';
import { CertifiedSuiReads } from '../src/sui/certified-reads.ts';
import { CommitteeChain, type LedgerReads } from '../src/sui/committee-chain.ts';
import { devnetAnchor } from '../src/sui/anchors.ts';
import { SuiLedger } from '../src/sui/ledger.ts';
import { u256ToBlobId } from '../src/core/blob-id-codec.ts';
import { createWorld, walrusInit } from '../scripts/harness/world.ts';
import { EXPRESS, EXPRESS_SHORT, addRefs, generate } from './git.ts';

export async function run(short: boolean): Promise<void> {
  await measureRatchet(short ? 10 : 100);
  await measureReads(short ? 3 : 20);
  await measureExpress(short);
}

/** End-of-epoch summaries of `epochs` devnet epochs, signed as the devnet signs them, then the ratchet through them. */
async function measureRatchet(epochs: number): Promise<void> {
  const ends: SignedSummary[] = [];
  for (let e = 0n; e < BigInt(epochs); e++) {
    const summaryBcs = CheckpointSummaryLayout.serialize({
      epoch: e, sequenceNumber: (e + 1n) * 16n - 1n, networkTotalTransactions: (e + 1n) * 16n - 1n, contentDigest: new Uint8Array(32), previousDigest: new Uint8Array(32),
      epochRollingGasCostSummary: { computationCost: 0n, storageCost: 0n, storageRebate: 0n, nonRefundableStorageFee: 0n }, timestampMs: 0n, checkpointCommitments: [],
      endOfEpochData: { nextEpochCommittee: devnetCommittee(e + 1n).members, nextEpochProtocolVersion: 100n, epochCommitments: [] }, versionSpecificData: new Uint8Array(),
    }).toBytes();
    ends.push({ summaryBcs, signature: parseSignature(signSummary(validatorsOf(e), signersOf(validatorsOf(e)), summaryBcs, e)) });
  }
  const started = performance.now();
  ratchet(devnetCommittee(0n), ends, BigInt(epochs));
  const ms = performance.now() - started;
  console.log(`first ratchet: ${epochs} epochs in ${ms.toFixed(0)} ms (${((ms / epochs) * 100 / 1000).toFixed(2)} s per 100 epochs, 4 validators, 3 signing; pure, no reads)`);
  // The same summaries served by a node RTT_MS away (GetEpoch for where an epoch ends, then GetCheckpoint): read one
  // after the other, each epoch would add two round trips to its checks; the committee chain reads ahead.
  const delayed = <T>(value: T) => new Promise<{ response: T }>((resolve) => setTimeout(() => resolve({ response: value }), RTT_MS));
  const remote: LedgerReads = {
    getObject: () => { throw new Error('not asked by a ratchet'); },
    getTransaction: () => { throw new Error('not asked by a ratchet'); },
    getEpoch: (request) => delayed({ epoch: { epoch: request.epoch, lastCheckpoint: (request.epoch! + 1n) * 16n - 1n } } as GrpcTypes.GetEpochResponse),
    getCheckpoint: (request) => {
      const end = ends[Number((request.checkpointId as { sequenceNumber: bigint }).sequenceNumber / 16n)]!;
      const { epoch, signature, signersMap } = end.signature;
      const checkpoint = { summary: { bcs: { name: 'CheckpointSummary', value: end.summaryBcs } }, signature: { epoch: BigInt(epoch), signature: Uint8Array.from(signature), bitmap: Uint8Array.from(signersMap) } };
      return delayed({ checkpoint } as GrpcTypes.GetCheckpointResponse);
    },
  };
  const remoteStarted = performance.now();
  await new CommitteeChain(devnetCommittee(0n), null).committee(BigInt(epochs), remote);
  const remoteMs = performance.now() - remoteStarted;
  console.log(`first ratchet through a node ${RTT_MS} ms away: ${((remoteMs / epochs) * 100 / 1000).toFixed(2)} s per 100 epochs (reads one after the other would add ${(2 * RTT_MS * 100 / 1000).toFixed(0)} s)`);
}

const RTT_MS = 50;

/** Every ledger call counted, to tell the reads a certified clone adds. */
function counting(ledger: LedgerReads, counts: Map<string, number>): LedgerReads {
  const count = (name: string) => counts.set(name, (counts.get(name) ?? 0) + 1);
  return {
    getObject: (request) => { count('getObject'); return ledger.getObject(request); },
    getTransaction: (request) => { count('getTransaction'); return ledger.getTransaction(request); },
    getCheckpoint: (request) => { count('getCheckpoint'); return ledger.getCheckpoint(request); },
    getEpoch: (request) => { count('getEpoch'); return ledger.getEpoch(request); },
  };
}

async function measureReads(rounds: number): Promise<void> {
  const root = mkdtempSync(join(tmpdir(), 'bench-certified-'));
  try {
    const network = await openLocalNetwork(root);
    const key = Ed25519Keypair.generate();
    await network.faucet(key.toSuiAddress());
    const owner = new SuiLedger({ client: network.client, packageId: network.packageId, registryId: network.registryId, signer: key });
    const { id } = await owner.createRepository('bench');
    // Past the first two epochs, so a cold read ratchets.
    for (let n = 1; n <= 34; n++) {
      await owner.push(id, [{ name: 'refs/heads/main', old: n === 1 ? null : (n - 1).toString(16).padStart(40, '0'), new: n.toString(16).padStart(40, '0'), force: false }],
        { chunks: [u256ToBlobId(BigInt(n))], size: n, sha256: createHash('sha256').update(String(n)).digest('hex') });
    }
    const ledger = new SuiGrpcClient({ baseUrl: network.suiGrpcUrl, network: 'localnet', fetch: network.suiGrpcFetch }).ledgerService;
    const cold = new Map<string, number>();
    let started = performance.now();
    await new CertifiedSuiReads([{ name: 'node', ledger: counting(ledger, cold) }], new CommitteeChain(devnetAnchor(), null)).repository(id);
    console.log(`certified read, cold (ratchet to epoch 2): ${(performance.now() - started).toFixed(0)} ms, reads ${[...cold].map(([k, v]) => `${k} ${v}`).join(', ')}`);
    const chain = new CommitteeChain(devnetAnchor(), null);
    const warm = new Map<string, number>();
    const reads = new CertifiedSuiReads([{ name: 'node', ledger: counting(ledger, warm) }], chain);
    await reads.repository(id);
    warm.clear();
    const times = { certified: 0, plain: 0 };
    for (let i = 0; i < rounds; i++) {
      started = performance.now();
      await reads.repository(id);
      times.certified += performance.now() - started;
      started = performance.now();
      await owner.getRepository(id);
      times.plain += performance.now() - started;
    }
    console.log(`repository read: certified ${(times.certified / rounds).toFixed(1)} ms, the node's word ${(times.plain / rounds).toFixed(1)} ms (in-process devnet, committees known)`);
    console.log(`extra chain reads per certified clone (committees cached): ${[...warm].map(([k, v]) => `${k} ${v / rounds}`).join(', ')}, plus the push log it replays (one listPushes)`);
    await network.close();
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

async function timedMs(action: () => Promise<unknown>): Promise<number> {
  const started = performance.now();
  await action();
  return performance.now() - started;
}

/**
 * `git walrus verify` and `git clone --mirror` of a repository of express's shape on the embedded network, each
 * certified (the Repository object proved, the push log replayed to it) and on the node's word, interleaved over two
 * rounds so both see the same machine load; the best of each is the figure.
 */
async function measureExpress(short: boolean): Promise<void> {
  const spec = short ? EXPRESS_SHORT : EXPRESS;
  const world = createWorld('walrus-bench-certified-');
  try {
    await generate(world, 'repo', spec.shape, 7);
    const commits = await addRefs(world, 'repo', spec);
    const refs = (await world.ok('repo', ['for-each-ref', '--format=%(refname)'])).split('\n').length;
    const url = await walrusInit(world, 'repo', 'express');
    await world.ok('repo', ['push', '-q', '--mirror', 'walrus']);
    const times = { verify: [] as number[], verifyPlain: [] as number[], clone: [] as number[], clonePlain: [] as number[] };
    for (let round = 0; round < 2; round++) {
      times.verifyPlain.push(await timedMs(() => world.ok('repo', ['walrus', 'verify', 'walrus', '--no-certified'])));
      times.verify.push(await timedMs(() => world.ok('repo', ['walrus', 'verify', 'walrus', '--certified'])));
      times.clonePlain.push(await timedMs(() => world.ok('.', ['clone', '-q', '--mirror', url, `plain-${round}.git`])));
      times.clone.push(await timedMs(() => world.ok('.', ['clone', '-q', '--mirror', url, `certified-${round}.git`], { env: { GIT_WALRUS_REQUIRE_CERTIFIED: 'true' } })));
    }
    const best = (list: number[]) => `${(Math.min(...list) / 1000).toFixed(2)} s`;
    console.log(`express-shaped repository (${commits.length} commits, ${refs} refs), embedded network:`);
    console.log(`  verify: certified ${best(times.verify)}, the node's word ${best(times.verifyPlain)}`);
    console.log(`  clone --mirror: certified heads required ${best(times.clone)}, the node's word ${best(times.clonePlain)}`);
  } finally {
    world.remove();
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  await run(process.argv.includes('--short'));
  process.exit(0);
}
