import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { execFileSync } from 'node:child_process';
import { createWorld, initWorkRepo, refsOf, walrusInit, type World } from '../../scripts/harness/world.ts';

const BRANCHES = 1800;
const TAGS = 800;
const PULLS = 400;
const REFS = 1 + BRANCHES + TAGS + PULLS;

/**
 * A repository with 300 commits and thousands of refs, as real projects have (branches, release tags, pull-request
 * refs), made by git fast-import and one `update-ref --stdin`.
 */
async function manyRefRepository(w: World): Promise<string> {
  const src = await initWorkRepo(w, 'src');
  const git = (args: string[], input: string) => execFileSync('git', args, { cwd: w.path(src), env: w.env, input, maxBuffer: 64 << 20 }).toString();
  let stream = '';
  for (let i = 1; i <= 300; i++) {
    const message = `commit ${i}\n`;
    const content = `line ${i}\n`;
    stream += `commit refs/heads/main\nmark :${i}\ncommitter Dev <dev@example.com> ${1_700_000_000 + i} +0000\ndata ${message.length}\n${message}`;
    stream += `M 100644 inline file${i % 50}.txt\ndata ${content.length}\n${content}\n`;
  }
  git(['fast-import', '--quiet'], stream);
  const commits = git(['rev-list', '--reverse', 'main'], '').trim().split('\n');
  const at = (i: number) => commits[(i * 7) % commits.length];
  const lines = [
    ...Array.from({ length: BRANCHES }, (_, i) => `create refs/heads/team-${i % 20}/feature-${String(i).padStart(4, '0')} ${at(i)}`),
    ...Array.from({ length: TAGS }, (_, i) => `create refs/tags/v${Math.floor(i / 100)}.${i % 100}.0 ${at(i + 3)}`),
    ...Array.from({ length: PULLS }, (_, i) => `create refs/pull/${1000 + i}/head ${at(i + 5)}`),
  ];
  git(['update-ref', '--stdin'], `${lines.join('\n')}\n`);
  // A few annotated tags, so tag objects travel too.
  for (let i = 0; i < 3; i++) git(['tag', '-a', `release-${i}`, '-m', `release ${i}`, at(i * 11)], '');
  return src;
}

const manyRefs = suite('thousands of refs');

manyRefs('a mirror of thousands of refs pushes in several transactions and round-trips identically; ls-remote lists them all', async () => {
  const w = createWorld();
  try {
    const src = await manyRefRepository(w);
    const url = await walrusInit(w, src, 'mirror');
    w.takeStats();
    const push = await w.run(src, ['push', '--mirror', 'walrus']);
    assert.is(push.code, 0, push.stderr);
    const pushStats = w.takeStats().find((s) => s.role === 'helper')!;
    assert.is(pushStats.blobWrites, 1, 'one pack');
    assert.ok(pushStats.transactions >= 4, `${pushStats.transactions} transactions`);

    // The pusher's repository kept the refs its transactions left: its listing reads the repository object alone.
    w.takeStats();
    const kept = (await w.ok(src, ['ls-remote', 'walrus'])).split('\n');
    assert.is(kept.filter((line) => !line.endsWith('\tHEAD')).length, REFS + 3);
    assert.is(w.takeStats().find((s) => s.role === 'helper')!.chainReads, 1);
    // Elsewhere: the repository object and one (paged) listing of its refs.
    const lsRemote = (await w.ok('.', ['ls-remote', url])).split('\n');
    assert.equal(lsRemote, kept);
    const listing = w.takeStats().find((s) => s.role === 'helper')! as { chainReads: number; marks?: Record<string, number> };
    assert.is(listing.chainReads, 2);
    // Its start-up marks, each reached in this order (the bench reads the helper's own time from them).
    const marks = ['entry', 'first-answer', 'modules', 'network', 'listed', 'exit'].map((name) => listing.marks?.[name]);
    assert.ok(marks.every((ms, i) => typeof ms === 'number' && ms >= (marks[i - 1] ?? 0)), JSON.stringify(listing.marks));

    const clone = await w.run('.', ['clone', '--mirror', url, 'copy.git']);
    assert.is(clone.code, 0, clone.stderr);
    // The mirror push also wrote refs/remotes/walrus/* in src (after pushing): compare what was pushed.
    const pushed = (await refsOf(w, src)).split('\n').filter((line) => !line.includes(' refs/remotes/'));
    assert.is(pushed.length, REFS + 3);
    assert.is(await refsOf(w, 'copy.git'), pushed.join('\n'));
    await w.ok('copy.git', ['fsck', '--strict', '--no-dangling']);
  } finally { w.remove(); }
});

manyRefs('--atomic over more than one transaction is refused before anything is uploaded, naming the limit', async () => {
  const w = createWorld();
  try {
    const src = await manyRefRepository(w);
    await walrusInit(w, src, 'atomic');
    w.takeStats();
    const push = await w.run(src, ['push', '--atomic', '--mirror', 'walrus']);
    assert.is.not(push.code, 0);
    assert.match(push.stderr, /atomic push failed: \d+ ref updates need \d+ transactions; Sui allows 1000 dynamic-field accesses per transaction \(object_runtime_max_num_cached_objects\): two per ref/);
    const stats = w.takeStats().find((s) => s.role === 'helper')!;
    assert.equal([stats.blobWrites, stats.transactions], [0, 0]);
    assert.is(await w.ok(src, ['ls-remote', 'walrus']), '');
  } finally { w.remove(); }
});

manyRefs.run();
