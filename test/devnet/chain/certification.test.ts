import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ChainEngine } from '../../../src/devnet/chain/engine.ts';
import { devnetCommittee, validatorsOf } from '../../../src/devnet/chain/certification.ts';
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
    while (engine.store.checkpoint < 2 * DEVNET_EPOCH_CHECKPOINTS + 1) await engine.faucet(address);
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
