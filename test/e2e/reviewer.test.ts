/**
 * The reviewer's commands end to end: stock git pushes to the embedded network (fast-forwards, a branch, a tag, a
 * forced update, a deletion), then `git walrus log`, `show` and `verify` read it back; then the devnet's own state
 * is tampered with on disk (a pack's bytes, a `Pushed` event altered or dropped from the chain's log, a blob's
 * storage expired) and `verify` must name each problem. Each tamper works on its own copy of the state directory.
 * Finally the same commands run against a `git walrus devnet` server over that state.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { cpSync, readFileSync, writeFileSync } from 'node:fs';
import { Pushed } from '../../src/contract/bcs.ts';
import { startDevnetServer } from '../../src/devnet/server.ts';
import { commit, createWorld, initWorkRepo, walrusInit, type RunResult } from '../../scripts/harness/world.ts';

const world = createWorld('walrus-reviewer-');
const repo = await initWorkRepo(world, 'work');
// A file long enough that later packs are thin (deltas against earlier packs' blobs), as real pushes are.
const lines = Array.from({ length: 400 }, (_, i) => `line ${i}: the quick brown fox jumps over the lazy dog`);
const edit = (n: number, text: string): string => {
  lines[n] = text;
  return lines.join('\n');
};
const c1 = await commit(world, repo, 'big.txt', edit(0, 'first'), 'first');
const url = await walrusInit(world, repo, 'reviewed');
const push = (...args: string[]) => world.ok(repo, ['push', '-q', 'walrus', ...args]);
await push('main'); //                                            1
const c2 = await commit(world, repo, 'big.txt', edit(100, 'second'), 'second');
await push('main'); //                                            2
await world.ok(repo, ['checkout', '-q', '-b', 'topic']);
const t1 = await commit(world, repo, 'topic.txt', 'topic work\n', 'topic work');
await push('topic'); //                                           3
await world.ok(repo, ['checkout', '-q', 'main']);
await world.ok(repo, ['tag', 'v1', c2]);
await push('v1'); //                                              4 (no pack: the remote has c2)
const c3 = await commit(world, repo, 'big.txt', edit(200, 'third'), 'third');
await push('main'); //                                            5
await world.ok(repo, ['commit', '-q', '--amend', '-m', 'third, reworded']);
const c3b = await world.ok(repo, ['rev-parse', 'HEAD']);
await push('--force', 'main'); //                                 6 (forced)
await push(':topic'); //                                          7 (deleted)
const c4 = await commit(world, repo, 'big.txt', edit(300, 'fourth'), 'fourth');
await push('main'); //                                            8

const git = (args: string[], env: NodeJS.ProcessEnv = {}): Promise<RunResult> => world.run(repo, args, { env });
const home = world.path('walrus-home');
const logJson = JSON.parse((await git(['walrus', 'log', 'walrus', '--json'])).stdout) as {
  repository: string;
  pushes: Array<{ seq: number; sender: string; pack: { index: number; size: number; sha256: string; blobIds: string[] } | null }>;
};
const pushNo = (seq: number) => logJson.pushes.find((p) => p.seq === seq)!;

interface Finding { code: string; seq: number | null; blobId?: string; message: string }
const verifyJson = async (env: NodeJS.ProcessEnv, deep = false): Promise<{ code: number; report: { ok: boolean; findings: Finding[] } }> => {
  const result = await git(['walrus', 'verify', 'walrus', '--json', ...(deep ? ['--deep'] : [])], env);
  return { code: result.code, report: JSON.parse(result.stdout) };
};

/** A copy of the whole devnet state (chain and Walrus) to tamper with; the env points the CLI at it. */
function stateCopy(name: string): { dir: string; env: NodeJS.ProcessEnv } {
  const dir = world.path(`home-${name}`);
  cpSync(home, dir, { recursive: true });
  return { dir, env: { GIT_WALRUS_HOME: dir } };
}

/** Rewrites the `Pushed` event of push `seq` in the chain's write-ahead log (`local/chain/chain.log`). */
function tamperEvent(dir: string, seq: number, change: (events: Array<{ type: string; bcs: string }>, index: number) => void): void {
  const file = `${dir}/local/chain/chain.log`;
  const records = readFileSync(file, 'utf8').split('\n').filter(Boolean).map((line) => JSON.parse(line));
  let found = false;
  for (const record of records) {
    const events: Array<{ type: string; bcs: string }> = record.tx?.events ?? [];
    const index = events.findIndex((e) => e.type.endsWith('::events::Pushed') && Pushed.parse(Buffer.from(e.bcs, 'base64')).seq === BigInt(seq));
    if (index >= 0 && Pushed.parse(Buffer.from(events[index]!.bcs, 'base64')).repository === logJson.repository) {
      change(events, index);
      found = true;
    }
  }
  assert.ok(found, `push ${seq} is in the chain log`);
  writeFileSync(file, records.map((r) => `${JSON.stringify(r)}\n`).join(''));
}

// ---
const Untouched = suite('reviewer commands on an untouched repository');

Untouched('log lists every push newest first, with forced and deleted updates marked', async () => {
  assert.equal(logJson.pushes.map((p) => p.seq), [8, 7, 6, 5, 4, 3, 2, 1]);
  const text = (await git(['walrus', 'log', 'walrus'])).stdout;
  assert.ok(text.startsWith('push 8  '));
  assert.ok(text.includes(`    refs/heads/main  ${c3.slice(0, 12)} → ${c3b.slice(0, 12)}  [forced]\n`));
  assert.ok(text.includes(`    refs/heads/topic  ${t1.slice(0, 12)} → (none)  [deleted]\n`));
  assert.ok(text.includes(`    refs/tags/v1  (new) → ${c2.slice(0, 12)}\nPack:   none\n`));
  assert.not.ok(text.includes('\x1b['), 'no colour when stdout is not a terminal');
  const byUrl = JSON.parse((await git(['walrus', 'log', url, '--ref', 'main', '--limit', '2', '--json'])).stdout);
  assert.equal(byUrl.pushes.map((p: { seq: number }) => p.seq), [8, 6]);
});

Untouched('show lists the commits a push introduced, read from its (thin) pack', async () => {
  const result = await git(['walrus', 'show', 'walrus', '8', '--json']);
  assert.is(result.code, 0, result.stderr);
  const shown = JSON.parse(result.stdout);
  assert.equal(shown.commits.map((c: { oid: string; subject: string }) => [c.oid, c.subject]), [[c4, 'fourth']]);
  assert.equal(shown.commits[0].parents, [c3b]);
  const text = (await git(['walrus', 'show', 'walrus', '2'])).stdout;
  assert.ok(text.includes(`Commits: 1\n  ${c2}\n`));
  assert.ok(text.includes('\n      second\n'));
});

Untouched('verify --deep passes and lists the forced update and the deletion with who and when', async () => {
  const result = await git(['walrus', 'verify', 'walrus', '--deep']);
  assert.is(result.code, 0, result.stdout + result.stderr);
  const out = result.stdout;
  assert.ok(out.includes('ok      push log: 8 push events replay to the on-chain log_head '));
  assert.ok(out.includes('ok      packs: 6 live packs ('));
  assert.ok(out.includes(`ok      history: 6 commits that refs pointed to are present with their whole history\n`));
  const sender = pushNo(6).sender;
  assert.match(out, new RegExp(`\\n {8}push 6  \\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d:\\d\\d UTC  forced  refs/heads/main  ${c3.slice(0, 12)} → ${c3b.slice(0, 12)}  by ${sender}  tx \\w+\\n`));
  assert.match(out, new RegExp(`\\n {8}push 7  .* UTC  deleted  refs/heads/topic  ${t1.slice(0, 12)} → \\(none\\)  by ${sender}  tx \\w+\\n`));
  assert.ok(out.endsWith('verified: every check holds\n'));
  assert.match(result.stderr, /checking packs: 6\/6/, 'progress goes to stderr');
});

Untouched.run();

// ---
const Tampered = suite('verify catches tampering');

Tampered('a pack’s bytes altered on disk: blob id and sha256 of the served bytes differ; --deep reports what went missing', async () => {
  const { dir, env } = stateCopy('pack');
  const pack = pushNo(5).pack!;
  const blobId = pack.blobIds[0]!;
  const file = `${dir}/local/walrus/blobs/${blobId}`;
  const bytes = readFileSync(file);
  bytes[Math.floor(bytes.length / 2)]! ^= 0xff;
  writeFileSync(file, bytes);
  const { code, report } = await verifyJson(env, true);
  assert.is(code, 1);
  assert.equal(report.findings.map((f) => [f.code, f.seq]).slice(0, 2), [['BLOB_ID_MISMATCH', 5], ['PACK_SHA256_MISMATCH', 5]]);
  const [idFinding, shaFinding] = report.findings;
  assert.is(idFinding!.blobId, blobId);
  assert.match(idFinding!.message, new RegExp(`^push 5, pack #${pack.index}, blob ${blobId}: the ${pack.size} bytes Walrus serves have blob id (?!${blobId})[\\w-]{43}$`));
  assert.match(shaFinding!.message, new RegExp(`^push 5, pack #${pack.index}: the bytes Walrus serves have sha256 (?!${pack.sha256})[0-9a-f]{64}, the chain records ${pack.sha256}$`));
  assert.ok(report.findings.some((f) => f.code === 'COMMIT_MISSING' && f.seq === 5 && f.message === `push 5: refs/heads/main was set to ${c3}, which is in none of the live packs`));
});

Tampered('an event altered in the chain’s store: the push is named and the log no longer reaches log_head', async () => {
  const { dir, env } = stateCopy('event');
  tamperEvent(dir, 4, (events, i) => {
    const value = Pushed.parse(Buffer.from(events[i]!.bcs, 'base64'));
    events[i]!.bcs = Buffer.from(Pushed.serialize({ ...value, sender: `0x${'66'.repeat(32)}` }).toBytes()).toString('base64');
  });
  const { code, report } = await verifyJson(env);
  assert.is(code, 1);
  assert.equal(report.findings.map((f) => [f.code, f.seq]), [['LOG_RECORD_MISMATCH', 4], ['LOG_HEAD_MISMATCH', null]]);
  assert.match(report.findings[0]!.message, /^push 4: the event's record and the previous log head hash to [0-9a-f]{64}, but the event's log_head is [0-9a-f]{64}$/);
  assert.match(report.findings[1]!.message, /^repository: replaying 8 push events gives log head [0-9a-f]{64}, but the chain's log_head is [0-9a-f]{64}$/);
  const text = (await git(['walrus', 'verify', 'walrus'], env)).stdout;
  assert.ok(text.includes('FAILED  push log: 2 problems\n        push 4: the event'));
  assert.ok(text.endsWith('FAILED: 2 problems found\n'));
});

Tampered('an event dropped from the chain’s store (hiding the forced push): gap, broken chain, unannounced pack', async () => {
  const { dir, env } = stateCopy('drop');
  tamperEvent(dir, 6, (events, i) => events.splice(i, 1));
  const { code, report } = await verifyJson(env);
  assert.is(code, 1);
  assert.equal(report.findings.map((f) => [f.code, f.seq]), [
    ['LOG_SEQ_GAP', 6],
    ['LOG_RECORD_MISMATCH', 7],
    ['LOG_HEAD_MISMATCH', null],
    ['STATE_PACK_MISMATCH', null],
  ]);
  assert.is(report.findings[0]!.message, 'push 6: no event (events jump from seq 5 to 7)');
  const pack = pushNo(6).pack!;
  assert.is(report.findings[3]!.message, `repository: pack #${pack.index} (${pack.size} bytes, sha256 ${pack.sha256}, blobs ${pack.blobIds.join(', ')}) is on chain, but no push event announces it`);
});

Tampered('an expired blob: named with its push and pack; --deep shows the commits only it held', async () => {
  const { dir, env } = stateCopy('expired');
  const pack = pushNo(3).pack!;
  const blobId = pack.blobIds[0]!;
  const meta = `${dir}/local/walrus/meta/${blobId}.json`;
  const record = JSON.parse(readFileSync(meta, 'utf8'));
  // Expired as the record says: without its Blob objects' ids the service judges by the record's own end epoch.
  writeFileSync(meta, JSON.stringify({ ...record, endEpoch: record.certifiedEpoch, objects: undefined }));
  const { code, report } = await verifyJson(env, true);
  assert.is(code, 1);
  assert.equal(report.findings, [
    { code: 'PACK_EXPIRED', seq: 3, blobId, message: `push 3, pack #${pack.index}: blob ${blobId} is gone from Walrus (now epoch 1); the pack is lost unless its objects are pushed again` },
    { code: 'COMMIT_MISSING', seq: 3, message: `push 3: refs/heads/topic was set to ${t1}, which is in none of the live packs` },
  ]);
});

Tampered.run();

// ---
const Server = suite('reviewer commands against a git walrus devnet server');

Server('log, show and verify read the same repository over the network front', async () => {
  const server = await startDevnetServer({ dir: `${home}/local` });
  try {
    const env = { GIT_WALRUS_NETWORK: 'devnet', GIT_WALRUS_DEVNET_URL: server.url };
    const [log, show, verify] = await Promise.all([
      git(['walrus', 'log', url, '--json'], env),
      git(['walrus', 'show', url, '6', '--json'], env),
      git(['walrus', 'verify', url, '--deep'], env),
    ]);
    assert.equal(JSON.parse(log.stdout), logJson);
    assert.equal(JSON.parse(show.stdout).commits.map((c: { oid: string }) => c.oid), [c3b]);
    assert.is(verify.code, 0, verify.stdout + verify.stderr);
    assert.ok(verify.stdout.endsWith('verified: every check holds\n'));
  } finally {
    await server.close();
  }
});

Server('an expired blob is reported the same way through the server’s aggregator', async () => {
  const { dir } = stateCopy('expired-server');
  const blobId = pushNo(8).pack!.blobIds[0]!;
  const meta = `${dir}/local/walrus/meta/${blobId}.json`;
  const record = JSON.parse(readFileSync(meta, 'utf8'));
  // Expired as the record says: without its Blob objects' ids the service judges by the record's own end epoch.
  writeFileSync(meta, JSON.stringify({ ...record, endEpoch: record.certifiedEpoch, objects: undefined }));
  const server = await startDevnetServer({ dir: `${dir}/local` });
  try {
    const { code, report } = await verifyJson({ GIT_WALRUS_NETWORK: 'devnet', GIT_WALRUS_DEVNET_URL: server.url });
    assert.is(code, 1);
    assert.equal(report.findings.map((f) => [f.code, f.seq, f.blobId]), [['PACK_EXPIRED', 8, blobId]]);
  } finally {
    await server.close();
  }
});

Server.run();

// ---
const Cleanup = suite('cleanup');
Cleanup('removes the world', () => {
  assert.ok(c1.length === 40);
  world.remove();
});
Cleanup.run();
