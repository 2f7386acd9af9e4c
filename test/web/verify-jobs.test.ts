import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { PackObjectReader } from '../../src/git/pack-reader.ts';
import type { Ledger } from '../../src/ports/ledger.ts';
import { timelineBadges } from '../../src/remote/history/push-badges.ts';
import { VerifyJobs, type VerifyJob } from '../../src/web/verify-jobs.ts';
import { buildHistory, fakeBlobId, historyLedger, mapBlobStore, oid, type History, type PushSpec } from '../remote/history/fixture.ts';

// Pushes that move a ref and bring no pack: the log and ref checks are what a push landing mid-run could upset.
const pushes = (n: number): PushSpec[] => Array.from({ length: n }, (_, i) => ({ updates: [{ name: `refs/tags/t${i}`, old: null, new: oid(i + 1), force: false }] }));

/** The chain as `before` left it until the run reads it; from then on, as `after` (a push landed meanwhile). */
function pushDuringRun(before: History, after: History): Ledger {
  let landed = false;
  const now = () => historyLedger(landed ? after : before);
  return {
    ...now(),
    getRepository: async (id) => {
      const answer = await now().getRepository(id);
      landed = true;
      return answer;
    },
    listRefs: (id) => now().listRefs(id),
    listPacks: (id, from, until) => now().listPacks(id, from, until),
    listPushes: (id) => now().listPushes(id),
  };
}

async function finished(job: VerifyJob): Promise<VerifyJob> {
  // Each round lets the run's reads resolve; the fixture's ledger answers without I/O.
  for (let round = 0; round < 10_000 && job.state === 'running'; round += 1) await new Promise((resolve) => setImmediate(resolve));
  return job;
}

const Jobs = suite('VerifyJobs: a push during a run');

Jobs('the pushes the run started from are verified, the one that landed is not checked yet, and nothing is red', async () => {
  const before = buildHistory(pushes(3));
  const after = buildHistory(pushes(4));
  const services = { ledger: pushDuringRun(before, after), blobStore: mapBlobStore(new Map()), blobIdOf: fakeBlobId, openPackObjects: () => PackObjectReader.open() };
  const jobs = new VerifyJobs(services);
  const job = await finished(jobs.start(before.repository.id, before.repository, false));
  assert.is(job.state, 'done', job.error);
  assert.is(job.seq, 3);
  assert.is(job.logHead, before.repository.logHead);
  assert.equal(job.report!.findings, []);
  assert.equal(job.events!.map((e) => e.seq), [1, 2, 3]);
  const { badges, repository } = timelineBadges(after.repository, after.events, { events: job.events!, report: job.report! });
  assert.equal(repository, []);
  assert.equal([...badges.values()].map((b) => [b.seq, b.state]), [[1, 'verified'], [2, 'verified'], [3, 'verified'], [4, 'unchecked']]);
});

Jobs('a push landing between the page’s read of the repository and of its events is left out, not failed', () => {
  const after = buildHistory(pushes(3));
  // The page read the repository at seq 3 and then the events; a fourth push landed between the two reads.
  const later = buildHistory(pushes(4));
  const { badges, repository } = timelineBadges(after.repository, later.events, null);
  assert.equal(repository, []);
  assert.equal([...badges.keys()], [1, 2, 3], 'the event past the repository read is left out');
  assert.ok([...badges.values()].every((b) => b.state === 'unchecked'));
});

Jobs.run();
