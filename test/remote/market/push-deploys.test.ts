import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { deployLines } from '../../../src/remote/market/push-deploys.ts';
import type { LeaseInfo } from '../../../src/ports/market.ts';

const lease = (id: string, ref: string, state: LeaseInfo['state']): LeaseInfo => ({
  id, tenant: '0xt', provider: '0xp', repository: '0xr', ref, pricePerMs: 1n, escrow: 1n, earned: 0n, settledUntilMs: 0, state, lastDeploy: null, url: '', end: null,
});
const commit = 'c'.repeat(40);

const lines = suite('what a push says about the deploys it causes');
lines('each open lease of a moved ref gets a remote: line with the command that follows the commit', () => {
  assert.equal(deployLines([lease('0x1', 'refs/heads/main', 'open')], new Map([['refs/heads/main', commit]])), [
    `remote: refs/heads/main cccccccccccc deploys on lease 0x1 (provider 0xp): git walrus lease status 0x1 --wait cccccccccccc`,
  ]);
});
lines('leases of other refs, closed or exhausted ones say nothing', () => {
  const leases = [lease('0x1', 'refs/heads/dev', 'open'), lease('0x2', 'refs/heads/main', 'closed'), lease('0x3', 'refs/heads/main', 'exhausted')];
  assert.equal(deployLines(leases, new Map([['refs/heads/main', commit]])), []);
});
lines.run();
