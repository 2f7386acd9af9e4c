import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createHash } from 'node:crypto';
import { SuiGrpcClient } from '@mysten/sui/grpc';
import { Ed25519Keypair } from '@mysten/sui/keypairs/ed25519';
import type { GrpcTypes } from '@mysten/sui/grpc';
import { openLocalNetwork } from '../../src/devnet/local-network.ts';
import { startDevnetServer } from '../../src/devnet/server.ts';
import { DEVNET_EPOCH_CHECKPOINTS, DEVNET_GENESIS_COMMITTEE } from '../../src/core/devnet-protocol.ts';
import { devnetCommittee } from '../../src/devnet/chain/certification.ts';
import { CertifiedSuiReads, NoCertifiedAnswerError } from '../../src/sui/certified-reads.ts';
import { CommitteeChain, type LedgerReads } from '../../src/sui/committee-chain.ts';
import { devnetAnchor } from '../../src/sui/anchors.ts';
import { SuiLedger } from '../../src/sui/ledger.ts';
import { u256ToBlobId } from '../../src/core/blob-id-codec.ts';
import { LIES, lyingLedger, type Lie } from '../support/lying-rpc.ts';
import { rejected } from '../support/rejected.ts';
import { MemoryBlobStore } from '../support/memory-ports.ts';
import { certifyHeads } from '../../src/remote/certified-heads.ts';
import { UncertifiedHeadsError } from '../../src/remote/errors.ts';
import { verifyRepository } from '../../src/remote/history/verify-repository.ts';
import { formatVerifyText } from '../../src/remote/history/format-verify.ts';
import { plainStyle } from '../../src/remote/history/format-log.ts';
import { silentLog } from '../../src/core/log.ts';

interface Context { dir: string; ledger: LedgerReads; owner: SuiLedger; id: string; seq: number; stale: GrpcTypes.GetObjectResponse; close(): Promise<void> }

const oid = (n: number) => n.toString(16).padStart(40, '0');
const pack = (n: number) => ({ chunks: [u256ToBlobId(BigInt(n) * 0x1234567n)], size: 100 + n, sha256: createHash('sha256').update(`pack ${n}`).digest('hex') });
/** Enough pushes that the repository's last one lies in epoch 2: the reads must ratchet across two rotations. */
const PUSHES = 2 * DEVNET_EPOCH_CHECKPOINTS + 2;

const test = suite<Context>('certified reads of the devnet (in-process gRPC-web)');

test.before(async (context) => {
  const dir = mkdtempSync(join(tmpdir(), 'walrus-git-certified-'));
  const network = await openLocalNetwork(dir);
  const key = Ed25519Keypair.generate();
  await network.faucet(key.toSuiAddress());
  const owner = new SuiLedger({ client: network.client, packageId: network.packageId, registryId: network.registryId, signer: key });
  const { id } = await owner.createRepository('certified');
  const ledger = new SuiGrpcClient({ baseUrl: network.suiGrpcUrl, network: 'localnet', fetch: network.suiGrpcFetch }).ledgerService;
  let stale: GrpcTypes.GetObjectResponse | undefined;
  for (let n = 1; n <= PUSHES; n++) {
    await owner.push(id, [{ name: 'refs/heads/main', old: n === 1 ? null : oid(n - 1), new: oid(n), force: false }], pack(n));
    if (n === PUSHES - 1) stale = (await ledger.getObject({ objectId: id, readMask: { paths: ['bcs', 'previous_transaction'] } })).response;
  }
  Object.assign(context, { dir, ledger, owner, id, seq: PUSHES, stale: stale!, close: async () => { await network.close(); rmSync(dir, { recursive: true, force: true }); } });
});

test.after(async ({ close }) => close());

const anchor = () => devnetAnchor();

test('the pinned devnet anchor is the devnet\'s genesis committee', () => {
  assert.equal(anchor(), devnetCommittee(0n));
  assert.is(DEVNET_GENESIS_COMMITTEE.members.length, 4);
});

test('GetEpoch answers a past epoch as it was: its system state as it began, and when it ended', async ({ ledger }) => {
  const epochs = await Promise.all([0n, 1n, 2n].map(async (epoch) => (await ledger.getEpoch({ epoch, readMask: { paths: ['*'] } })).response.epoch!));
  assert.equal(epochs.map((e) => e.systemState?.epoch), [0n, 1n, 2n]);
  const ms = (t: { seconds: bigint; nanos: number } | undefined) => (t ? Number(t.seconds) * 1000 + t.nanos / 1e6 : null);
  for (const [n, epoch] of epochs.slice(0, 2).entries()) {
    const last = (await ledger.getCheckpoint({ checkpointId: { oneofKind: 'sequenceNumber', sequenceNumber: epoch.lastCheckpoint! }, readMask: { paths: ['summary'] } })).response.checkpoint!;
    assert.is(ms(epoch.end), ms(last.summary!.timestamp), `epoch ${n} ends with its last checkpoint`);
    assert.is(ms(epochs[n + 1]!.start), ms(epoch.end), `epoch ${n + 1} starts when epoch ${n} ended`);
    assert.is(ms(epochs[n + 1]!.start), Number(epochs[n + 1]!.systemState!.epochStartTimestampMs));
  }
  assert.is(epochs[2]!.end, undefined, 'the current epoch has not ended');
  assert.ok(ms(epochs[0]!.start)! < ms(epochs[1]!.start)!);
});

test('the repository is proved across two committee rotations, and the verified end-of-epoch summaries are kept', async ({ dir, ledger, id, seq }) => {
  const cache = join(dir, 'committees');
  const reads = new CertifiedSuiReads([{ name: 'node-a', ledger }], new CommitteeChain(anchor(), cache));
  const { best, answers } = await reads.repository(id);
  assert.is(best.repository.seq, seq);
  assert.is(best.epoch, '2');
  assert.is(best.rpc, 'node-a');
  assert.equal(answers, [{ rpc: 'node-a', version: best.version, checkpoint: best.checkpoint }]);
  assert.equal(readdirSync(cache).sort(), ['epoch-1.json', 'epoch-2.json']);
  // From the cache alone: an RPC that cannot say where epochs end still serves a proof.
  const noEpochs: LedgerReads = {
    getObject: (r) => ledger.getObject(r), getTransaction: (r) => ledger.getTransaction(r), getCheckpoint: (r) => ledger.getCheckpoint(r),
    getEpoch: async () => { throw new Error('GetEpoch unavailable'); },
  };
  const again = await new CertifiedSuiReads([{ name: 'node-b', ledger: noEpochs }], new CommitteeChain(anchor(), cache)).repository(id);
  assert.is(again.best.version, best.version);
  assert.ok(existsSync(join(cache, 'epoch-2.json')));
});

const CAUGHT: Record<Exclude<Lie, 'stale-version'>, RegExp> = {
  'flip-object-byte': /did not write object 0x[0-9a-f]+ with the digest of the object served/,
  'substitute-effects': /with these effects is not in checkpoint \d+/,
  'drop-contents-entry': /the contents served for checkpoint \d+ are not the certified ones/,
  'edit-summary-field': /checkpoint 15's aggregate signature does not verify under epoch 0's committee/,
  'minority-signature': /signed by 4000 of 10000 stake, short of the quorum of 6667/,
  'forged-next-committee': /checkpoint 15's aggregate signature does not verify under epoch 0's committee/,
};

for (const lie of LIES) {
  test(`a lying RPC (${lie}) is caught and named; the honest RPC's answer stands`, async ({ ledger, id, stale, seq }) => {
    const liar = { name: 'liar.example', ledger: lyingLedger(ledger, lie, stale) };
    const honest = { name: 'honest.example', ledger };
    const { best, answers } = await new CertifiedSuiReads([liar, honest], new CommitteeChain(anchor(), null)).repository(id);
    assert.is(best.rpc, 'honest.example');
    assert.is(best.repository.seq, seq);
    const told = answers.find((a) => a.rpc === 'liar.example')!;
    if (lie === 'stale-version') {
      // A withheld push proves fine on its own: only the fresher answer of another RPC shows the lag.
      assert.is(told.problem, undefined);
      assert.ok(BigInt(told.version!) < BigInt(best.version));
      return;
    }
    assert.match(told.problem!, CAUGHT[lie]);
    assert.match(told.problem!, /served by liar\.example/);
    // Alone, the liar gets no answer accepted: a typed refusal, not a crash.
    try {
      await new CertifiedSuiReads([liar], new CommitteeChain(anchor(), null)).repository(id);
      assert.unreachable('the lie was accepted');
    } catch (error) {
      assert.instance(error, NoCertifiedAnswerError);
      assert.match((error as Error).message, CAUGHT[lie]);
    }
  });
}

test('clone heads: the node\'s listing is proved, a lied ref or a withheld push is refused', async ({ ledger, owner, id, seq }) => {
  const reads = new CertifiedSuiReads([{ name: 'node-a', ledger }], new CommitteeChain(anchor(), null));
  const listed = { info: await owner.getRepository(id), refs: await owner.listRefs(id) };
  const pushes = await owner.listPushes(id);
  const ignore = () => {};
  await certifyHeads(reads, id, listed, pushes, ignore);
  await rejected(certifyHeads(reads, id, { ...listed, refs: new Map([['refs/heads/main', oid(99)]]) }, pushes, ignore),
    (error) => error instanceof UncertifiedHeadsError && /ref refs\/heads\/main is 0+63 on chain, but the push events leave it at 0+22/.test(error.message));
  await rejected(certifyHeads(reads, id, { ...listed, info: { ...listed.info, seq: seq - 1 } }, pushes, ignore),
    (error) => error instanceof UncertifiedHeadsError && new RegExp(`the node lists the refs at push ${seq - 1}, the certified state is at push ${seq}`).test(error.message));
});

test('verify: a lying RPC beside an honest one is a finding that names it; the log replays to the certified head', async ({ ledger, owner, id, seq }) => {
  const reads = new CertifiedSuiReads([{ name: 'liar.example', ledger: lyingLedger(ledger, 'edit-summary-field') }, { name: 'honest.example', ledger }], new CommitteeChain(anchor(), null));
  const report = await verifyRepository({ ledger: owner, blobStore: new MemoryBlobStore(), blobIdOf: async () => '', certified: reads, log: silentLog }, id);
  assert.is(report.certified?.rpc, 'honest.example');
  assert.is(report.seq, seq);
  const certification = report.findings.filter((f) => f.code.startsWith('CERT_'));
  assert.is(certification.length, 1);
  assert.match(certification[0]!.message, /^RPC liar\.example: checkpoint 15's aggregate signature does not verify under epoch 0's committee \(served by liar\.example\)$/);
  assert.equal(report.findings.filter((f) => f.code.startsWith('LOG_') || f.code.startsWith('STATE_')), []);
  assert.match(formatVerifyText(report, plainStyle), /certified: as of checkpoint \d+, epoch 2, time \d{4}-\d\d-\d\dT[\d:.]+Z \(version \d+, from honest\.example\)/);
});

test.run();

const server = suite<{ dir: string; close(): Promise<void>; url: string; id: string }>('certified reads through `git walrus devnet` (gRPC-web over HTTP)');

server.before(async (context) => {
  const dir = mkdtempSync(join(tmpdir(), 'walrus-git-certified-server-'));
  const devnet = await startDevnetServer({ dir, port: 0 });
  const client = new SuiGrpcClient({ baseUrl: devnet.suiRpcUrl, network: 'localnet' });
  const key = Ed25519Keypair.generate();
  await fetch(`${devnet.faucetUrl}/v2/gas`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ FixedAmountRequest: { recipient: key.toSuiAddress() } }) });
  const owner = new SuiLedger({ client, packageId: devnet.packageId, registryId: devnet.registryId, signer: key });
  const { id } = await owner.createRepository('over-http');
  await owner.push(id, [{ name: 'refs/heads/main', old: null, new: oid(1), force: false }], pack(1));
  Object.assign(context, { dir, url: devnet.suiRpcUrl, id, close: async () => { await devnet.close(); rmSync(dir, { recursive: true, force: true }); } });
});

server.after(async ({ close }) => close());

server('the same proof over the server front', async ({ url, id }) => {
  const ledger = new SuiGrpcClient({ baseUrl: url, network: 'localnet' }).ledgerService;
  const { best } = await new CertifiedSuiReads([{ name: url, ledger }], new CommitteeChain(devnetAnchor(), null)).repository(id);
  assert.is(best.repository.seq, 1);
  assert.is(best.epoch, '0');
});

server.run();
