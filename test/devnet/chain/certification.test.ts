import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ChainEngine } from '../../../src/devnet/chain/engine.ts';
import { devnetCommittee, epochOfCheckpoint, validatorsOf } from '../../../src/devnet/chain/certification.ts';
import { DevnetCoreClient } from '../../../src/devnet/chain/core-client.ts';
import { executedEpoch } from '../../../src/devnet/chain/effects.ts';
import { DEVNET_EPOCH_CHECKPOINTS } from '../../../src/core/devnet-protocol.ts';
import { parseSignature, verifyCertificate } from '../../../src/light-client/certificate.ts';
import { checkLink, ratchet } from '../../../src/light-client/ratchet.ts';
import { hashTyped } from '../../../src/light-client/digests.ts';
import { totalStake } from '../../../src/light-client/committee.ts';

test('each epoch one validator is replaced and the stakes move one seat on', () => {
  for (let epoch = 0n; epoch < 6n; epoch++) {
    const [now, next] = [validatorsOf(epoch), validatorsOf(epoch + 1n)];
    const kept = next.filter((v) => now.some((w) => Buffer.from(w.publicKey).equals(Buffer.from(v.publicKey))));
    assert.is(kept.length, 3, `epoch ${epoch + 1n} keeps three of epoch ${epoch}'s validators`);
    assert.not.equal(now.map((v) => v.stake), next.map((v) => v.stake));
    assert.is(totalStake(devnetCommittee(epoch)), 10000n);
  }
});

test('three epochs of checkpoints: chained, certified by a quorum, and the committee ratchets through them', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'walrus-git-checkpoints-'));
  try {
    const engine = await ChainEngine.open(dir);
    const address = '0x' + '7'.repeat(64);
    const client = new DevnetCoreClient(engine);
    const epochs: bigint[] = [];
    while (engine.store.checkpoint < 2 * DEVNET_EPOCH_CHECKPOINTS + 1) {
      const { systemState } = await client.getCurrentSystemState();
      const record = await engine.faucet(address);
      // Each transaction runs in the epoch the network was in when it was sent, the epoch of its checkpoint.
      assert.is(executedEpoch(Buffer.from(record.effects, 'base64')), BigInt(systemState.epoch), `transaction at checkpoint ${record.checkpoint}`);
      assert.is(BigInt(systemState.epoch), epochOfCheckpoint(record.checkpoint));
      epochs.push(BigInt(systemState.epoch));
    }
    assert.equal([...new Set(epochs)], [0n, 1n, 2n]);
    // An epoch starts when the previous one's last checkpoint (the one naming the new committee) was made.
    const { systemState } = await client.getCurrentSystemState();
    const lastOfEpoch1 = await engine.certifier.checkpoint(2 * DEVNET_EPOCH_CHECKPOINTS - 1);
    assert.is(systemState.epochStartTimestampMs, String(lastOfEpoch1!.summary.timestampMs));
    const checkpoints = await Promise.all(Array.from({ length: engine.store.checkpoint + 1 }, (_, n) => engine.certifier.checkpoint(n)));
    const ends = [];
    for (const checkpoint of checkpoints) {
      const { sequence, summary } = checkpoint!;
      const signed = { summaryBcs: checkpoint!.summaryBcs, signature: parseSignature(checkpoint!.signatureBcs) };
      verifyCertificate(devnetCommittee(checkpoint!.epoch), signed);
      assert.equal(Uint8Array.from(summary.contentDigest), hashTyped('CheckpointContents', checkpoint!.contentsBcs));
      if (sequence > 0) checkLink(checkpoints[sequence - 1]!.summaryBcs, summary);
      else assert.is(summary.previousDigest, null);
      assert.is(summary.endOfEpochData !== null, (sequence + 1) % DEVNET_EPOCH_CHECKPOINTS === 0, `checkpoint ${sequence}`);
      if (summary.endOfEpochData) ends.push(signed);
      assert.is(Number(summary.networkTotalTransactions), sequence);
    }
    assert.is(checkpoints.at(-1)!.epoch, 2n);
    assert.equal(ratchet(devnetCommittee(0n), ends, 2n), devnetCommittee(2n));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test.run();
