/**
 * The controller builds only certified heads (the offer's requireCertifiedHeads): one reconcile pass over a real
 * devnet chain, its head read by the controller's HeadReader and proved by certified reads whose only RPC is the
 * network's node. When that node lies, nothing is built: the pass stalls with HeadNotCertified, and the condition and
 * its Warning event name the RPC and what it failed to prove. An honest node's head is built as always.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createHash } from 'node:crypto';
import { SuiGrpcClient } from '@mysten/sui/grpc';
import { Ed25519Keypair } from '@mysten/sui/keypairs/ed25519';
import { openLocalNetwork } from '../../src/devnet/local-network.ts';
import { DEVNET_EPOCH_CHECKPOINTS } from '../../src/core/devnet-protocol.ts';
import { CertifiedSuiReads } from '../../src/sui/certified-reads.ts';
import { CommitteeChain, type LedgerReads } from '../../src/sui/committee-chain.ts';
import { devnetAnchor } from '../../src/sui/anchors.ts';
import { SuiLedger } from '../../src/sui/ledger.ts';
import { u256ToBlobId } from '../../src/core/blob-id-codec.ts';
import { HeadReader, certifiedListing } from '../../src/gitops/watch/head-reader.ts';
import { reconcile } from '../../src/gitops/reconcile/reconcile.ts';
import { lyingLedger, type Lie } from '../support/lying-rpc.ts';
import { Fixture, NAMESPACE, walrusApp } from './support/reconcile-fixture.ts';

interface Context { dir: string; ledger: LedgerReads; owner: SuiLedger; id: string; close(): Promise<void> }

const KEY = `${NAMESPACE}/web`;
const oid = (n: number) => n.toString(16).padStart(40, '0');
const pack = (n: number) => ({ chunks: [u256ToBlobId(BigInt(n) * 0x7654321n)], size: 100 + n, sha256: createHash('sha256').update(`pack ${n}`).digest('hex') });
/** Enough pushes that the head's push lies in epoch 1: its proof needs epoch 0's end-of-epoch summary. */
const PUSHES = DEVNET_EPOCH_CHECKPOINTS;

const test = suite<Context>('controller: certified heads only');

test.before(async (context) => {
  const dir = mkdtempSync(join(tmpdir(), 'walrus-git-certified-heads-'));
  const network = await openLocalNetwork(dir);
  const key = Ed25519Keypair.generate();
  await network.faucet(key.toSuiAddress());
  const owner = new SuiLedger({ client: network.client, packageId: network.packageId, registryId: network.registryId, signer: key });
  const { id } = await owner.createRepository('certified-app');
  for (let n = 1; n <= PUSHES; n++) await owner.push(id, [{ name: 'refs/heads/main', old: n === 1 ? null : oid(n - 1), new: oid(n), force: false }], pack(n));
  const ledger = new SuiGrpcClient({ baseUrl: network.suiGrpcUrl, network: 'localnet', fetch: network.suiGrpcFetch }).ledgerService;
  Object.assign(context, { dir, ledger, owner, id, close: async () => { await network.close(); rmSync(dir, { recursive: true, force: true }); } });
});

test.after(async ({ close }) => close());

/** One pass of the app following `main`, its head proved through `node` alone (a fresh committee cache each time). */
async function passWith({ owner, id }: Context, node: LedgerReads) {
  const f = new Fixture(walrusApp({ spec: { repository: `walrus://${id}` } }));
  const warnings: string[] = [];
  const reads = new CertifiedSuiReads([{ name: 'https://node.example', ledger: node }], new CommitteeChain(devnetAnchor(), null));
  const heads = new HeadReader(owner, certifiedListing(reads, (line) => warnings.push(line)));
  const result = await reconcile(KEY, { ...f.deps(), readHead: (repository, ref) => heads.read(repository, ref) });
  return { f, result, warnings };
}

test('an honest node: the head is proved and its build starts', async (context) => {
  const { f, result, warnings } = await passWith(context, context.ledger);
  assert.is(result.outcome.kind, 'Waiting');
  assert.ok(f.cluster.actions.some((action) => action.startsWith('create jobs')), f.cluster.actions.join('\n'));
  assert.is(f.cluster.statuses[0]!.head?.commit, oid(PUSHES));
  assert.equal(warnings, []);
});

const CAUGHT: Partial<Record<Lie, RegExp>> = {
  'flip-object-byte': /did not write object 0x[0-9a-f]+ with the digest of the object served/,
  'minority-signature': /short of the quorum of 6667/,
  'edit-summary-field': /aggregate signature does not verify under epoch \d+'s committee/,
  'forged-next-committee': /checkpoint 15's aggregate signature does not verify under epoch 0's committee/,
};

for (const [lie, caught] of Object.entries(CAUGHT) as [Lie, RegExp][]) {
  test(`the node lies (${lie}): nothing is built; Ready=False and Stalled=True say which RPC failed to prove what`, async (context) => {
    const { f, result } = await passWith(context, lyingLedger(context.ledger, lie));
    assert.is(result.outcome.kind, 'Stalling');
    if (result.outcome.kind !== 'Stalling') return;
    assert.is(result.outcome.reason, 'HeadNotCertified');
    assert.equal(f.cluster.actions, [`patch walrusapps/status ${KEY}`], 'no Job is created');
    const ready = f.cluster.statuses[0]!.conditions!.find((condition) => condition.type === 'Ready')!;
    assert.equal([ready.status, ready.reason], ['False', 'HeadNotCertified']);
    assert.match(ready.message, /is not built: the node's listing cannot be proved against the validators' certificates/);
    assert.match(ready.message, /https:\/\/node\.example/);
    assert.match(ready.message, caught);
    const warning = f.events.find((event) => event.startsWith('Warning HeadNotCertified'));
    assert.ok(warning, f.events.join('\n'));
    assert.match(warning!, caught);
  });
}

test.run();
