import { createHash } from 'node:crypto';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { verifyDeployments } from '../../../src/remote/market/deployments.ts';
import { formatApproxDuration, formatDeployments, formatDuration } from '../../../src/remote/market/format.ts';
import type { PushEvent } from '../../../src/ports/ledger.ts';
import type { DeployedRecord } from '../../../src/ports/market.ts';
import { WalrusGitError } from '../../../src/core/errors.ts';

const bytes = new TextEncoder().encode('artifact');
const sha = createHash('sha256').update(bytes).digest('hex');
const A = 'aa'.repeat(20);
const B = 'bb'.repeat(20);
const push = (ms: number, name: string, value: string): PushEvent => ({
  repository: '0x1', seq: 1, kind: 0, sender: '0x2', timestampMs: ms, updates: [{ name, old: null, new: value, force: false }],
  pack: null, packIndex: null, liveFrom: 0, logHead: '', txDigest: 'd',
});
const record = (commit: string, atMs: number, artifact = 'blob', sha256 = sha): DeployedRecord => ({
  lease: '0x3', provider: '0x4', repository: '0x1', ref: 'refs/heads/main', commit, artifact, sha256, atMs, txDigest: 't',
});
const deps = {
  ledger: { listPushes: async () => [push(100, 'refs/heads/main', A), push(300, 'refs/heads/dev', B)] },
  artifactSha256: async (id: string) => {
    if (id !== 'blob') throw new Error(`blob ${id} not found`);
    return sha;
  },
};

const verify = suite('verifyDeployments');

verify('passes a record whose artifact hashes right and whose commit was pushed to its ref before it', async () => {
  const [line] = await verifyDeployments(deps, '0x1', [record(A, 200)]);
  assert.equal(line!.problems, []);
  assert.match(formatDeployments([line!]), /verified: the artifact matches its sha256 and the commit was pushed to refs\/heads\/main/);
});

verify('names a commit never pushed to the ref, or pushed only after the record', async () => {
  const lines = await verifyDeployments(deps, '0x1', [record(B, 400), record(A, 50)]);
  assert.match(lines[0]!.problems![0]!, new RegExp(`commit ${B} was never pushed to refs/heads/main`));
  assert.is(lines[1]!.problems!.length, 1);
});

verify('names an artifact that does not match its sha256, or cannot be read', async () => {
  const lines = await verifyDeployments(deps, '0x1', [record(A, 200, 'blob', 'cd'.repeat(32)), record(A, 200, 'gone')]);
  assert.match(lines[0]!.problems![0]!, new RegExp(`has sha256 ${sha}, not the recorded cdcd`));
  assert.match(lines[1]!.problems![0]!, /artifact gone could not be read from Walrus: blob gone not found/);
  assert.match(formatDeployments(lines), /PROBLEM: artifact gone/);
});

verify('an artifact no longer on Walrus (expired, or reclaimed by the provider) is not checked, and says so; the commit still is', async () => {
  const reclaimed = { ...deps, artifactSha256: async (id: string) => { throw new WalrusGitError('BLOB_NOT_FOUND', `Walrus blob ${id} is not available`, { blobId: id }); } };
  const [line] = await verifyDeployments(reclaimed, '0x1', [record(A, 200, 'old')]);
  assert.equal(line!.problems, []);
  assert.match(formatDeployments([line!]), /verified: the commit was pushed to refs\/heads\/main\n {4}NOT CHECKED: artifact old is no longer on Walrus \(its storage ended, or the provider reclaimed it as an old release\): the record stands on chain, but its sha256 can no longer be checked/);
});

verify('a record shows the URL its lease states now; none when the provider stated none', () => {
  const url = 'http://lease-3-0a1b2c3d4e5f.apps.example.com/';
  assert.match(formatDeployments([{ record: { ...record(A, 200), url } }]), new RegExp(`\\n    url ${url}\\n$`));
  assert.not.match(formatDeployments([{ record: record(A, 200) }]), /url/);
});

verify.run();

const duration = suite('formatDuration');

duration('states a duration exactly in its largest unit', () => {
  assert.is(formatDuration(604_800_000), '7 days');
  assert.is(formatDuration(86_400_000), '1 day');
  assert.is(formatDuration(3_600_000), '1 h');
  assert.is(formatDuration(5_400_000), '90 min');
  assert.is(formatDuration(5000), '5 s');
  assert.is(formatDuration(1500), '1500 ms');
  assert.is(formatApproxDuration(5_000_000_000), '57 days');
  assert.is(formatApproxDuration(5_400_000), '1 h');
  assert.is(formatApproxDuration(999), '999 ms');
});

duration.run();
