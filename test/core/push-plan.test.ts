import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { ancestryQuestions, dropMovedRefs, isWriter, planPush, updatesOf } from '../../src/core/push-plan.ts';
import type { Ancestry, RefRequest, RemoteState } from '../../src/core/push-plan.ts';

const A = 'a'.repeat(40);
const B = 'b'.repeat(40);
const C = 'c'.repeat(40);
const owner = '0xowner';
const writer = '0xwriter';

function state(refs: Record<string, string>, protectedRefs: string[] = []): RemoteState {
  return { refs: new Map(Object.entries(refs)), owner, writers: [writer], protectedRefs };
}
const main = 'refs/heads/main';
const plan = (requests: RefRequest[], s: RemoteState, ancestry: Record<string, Ancestry> = {}, sender = writer, atomic = false) =>
  planPush(requests, s, sender, new Map(Object.entries(ancestry)), atomic);

const questions = suite('ancestryQuestions');
questions('asks only about existing refs that would change', () => {
  const s = state({ [main]: A, 'refs/heads/same': B });
  const asked = ancestryQuestions([
    { dst: main, new: B, force: false },
    { dst: 'refs/heads/same', new: B, force: false },
    { dst: 'refs/heads/new', new: C, force: false },
    { dst: main, new: null, force: false },
  ], s.refs);
  assert.equal(asked, [{ dst: main, old: A, new: B }]);
});

const planning = suite('planPush');

planning('creates, fast-forwards, deletes and reports up-to-date refs', () => {
  const s = state({ [main]: A, 'refs/heads/gone': C, 'refs/heads/same': B });
  const decisions = plan([
    { dst: 'refs/heads/new', new: B, force: false },
    { dst: main, new: B, force: false },
    { dst: 'refs/heads/gone', new: null, force: false },
    { dst: 'refs/heads/same', new: B, force: false },
  ], s, { [main]: 'fast-forward' });
  assert.equal(updatesOf(decisions), [
    { name: 'refs/heads/new', old: null, new: B, force: false },
    { name: main, old: A, new: B, force: false },
    { name: 'refs/heads/gone', old: C, new: null, force: true },
  ]);
  assert.equal(decisions[3], { kind: 'up-to-date', dst: 'refs/heads/same' });
});

planning('refuses non-fast-forwards in git words unless forced', () => {
  const s = state({ [main]: A });
  const reasons: Array<[Ancestry, string]> = [['diverged', 'non-fast forward'], ['missing-old', 'fetch first'], ['not-commits', 'needs force']];
  for (const [relation, reason] of reasons) {
    assert.equal(plan([{ dst: main, new: B, force: false }], s, { [main]: relation }), [{ kind: 'reject', dst: main, reason }]);
    assert.equal(updatesOf(plan([{ dst: main, new: B, force: true }], s, { [main]: relation })), [{ name: main, old: A, new: B, force: true }]);
  }
});

planning('a forced fast-forward is recorded as not forced', () => {
  const s = state({ [main]: A });
  assert.equal(updatesOf(plan([{ dst: main, new: B, force: true }], s, { [main]: 'fast-forward' }))[0].force, false);
});

planning('existing tags move only when forced', () => {
  const s = state({ 'refs/tags/v1': A });
  assert.equal(plan([{ dst: 'refs/tags/v1', new: B, force: false }], s, { 'refs/tags/v1': 'fast-forward' })[0], { kind: 'reject', dst: 'refs/tags/v1', reason: 'already exists' });
  assert.is(plan([{ dst: 'refs/tags/v1', new: B, force: true }], s, { 'refs/tags/v1': 'diverged' })[0].kind, 'update');
});

planning('leases compare with the remote value and then act as a force', () => {
  const s = state({ [main]: A });
  assert.equal(plan([{ dst: main, new: B, force: false, lease: C }], s, { [main]: 'diverged' })[0], { kind: 'reject', dst: main, reason: 'stale info' });
  assert.equal(plan([{ dst: 'refs/heads/x', new: B, force: false, lease: A }], s)[0], { kind: 'reject', dst: 'refs/heads/x', reason: 'stale info' });
  const ok = plan([{ dst: main, new: B, force: false, lease: A }], s, { [main]: 'diverged' })[0];
  assert.equal(ok, { kind: 'update', dst: main, leased: true, update: { name: main, old: A, new: B, force: true } });
  assert.is(plan([{ dst: 'refs/heads/x', new: B, force: false, lease: null }], s)[0].kind, 'update');
});

planning('protected refs: writers may fast-forward but not force or delete; the owner may', () => {
  const s = state({ [main]: A }, [main]);
  assert.is(plan([{ dst: main, new: B, force: false }], s, { [main]: 'fast-forward' })[0].kind, 'update');
  const forced = plan([{ dst: main, new: B, force: true }], s, { [main]: 'diverged' })[0];
  assert.is(forced.kind, 'reject');
  assert.match((forced as { reason: string }).reason, /protected.*0xowner/);
  assert.is(plan([{ dst: main, new: null, force: false }], s)[0].kind, 'reject');
  assert.is(plan([{ dst: main, new: B, force: true }], s, { [main]: 'diverged' }, owner)[0].kind, 'update');
  assert.is(plan([{ dst: main, new: null, force: false }], s, {}, owner)[0].kind, 'update');
});

planning('a non-writer is refused on every ref with the owner named', () => {
  const decisions = plan([{ dst: main, new: B, force: false }, { dst: 'refs/heads/x', new: B, force: true }], state({}), {}, '0xstranger');
  assert.is(decisions.length, 2);
  for (const d of decisions) {
    assert.is(d.kind, 'reject');
    assert.match((d as { reason: string }).reason, /0xstranger is not a writer.*owner 0xowner/);
  }
});

planning('atomic: one refusal refuses the batch, up-to-date refs stay so', () => {
  const s = state({ [main]: A, 'refs/heads/same': B });
  const decisions = plan([
    { dst: main, new: B, force: false },
    { dst: 'refs/heads/new', new: B, force: false },
    { dst: 'refs/heads/same', new: B, force: false },
  ], s, { [main]: 'diverged' }, writer, true);
  assert.equal(decisions.map((d) => (d.kind === 'reject' ? d.reason : d.kind)), ['non-fast forward', 'atomic push failed', 'up-to-date']);
});

const moved = suite('dropMovedRefs');
moved('refuses exactly the refs that moved, in the words that fit', () => {
  const s = state({ [main]: A, 'refs/heads/dev': A });
  const decisions = plan([
    { dst: main, new: B, force: false },
    { dst: 'refs/heads/dev', new: B, force: false, lease: A },
    { dst: 'refs/heads/new', new: B, force: false },
  ], s, { [main]: 'fast-forward', 'refs/heads/dev': 'fast-forward' });
  const after = dropMovedRefs(decisions, new Map([[main, C], ['refs/heads/dev', C]]));
  assert.equal(after.map((d) => (d.kind === 'reject' ? d.reason : d.kind)), ['fetch first', 'stale info', 'update']);
});

const writers = suite('isWriter');
writers('owner and listed writers', () => {
  const s = state({});
  assert.ok(isWriter(s, owner));
  assert.ok(isWriter(s, writer));
  assert.not.ok(isWriter(s, '0xother'));
});

questions.run();
planning.run();
moved.run();
writers.run();

const clashes = suite('planPush: refs that would stand as file and directory');
const reasons = (requests: RefRequest[], s: RemoteState, atomic = false) =>
  plan(requests, s, {}, writer, atomic).map((d) => (d.kind === 'reject' ? `${d.dst}: ${d.reason}` : `${d.dst}: ${d.kind}`));
clashes('a ref below or above an existing one is refused in git\'s words, before any upload', () => {
  assert.equal(reasons([{ dst: `${main}/evil`, new: B, force: false }], state({ [main]: A })), [`${main}/evil: 'refs/heads/main' exists; cannot create 'refs/heads/main/evil'`]);
  assert.equal(reasons([{ dst: main, new: B, force: false }], state({ [`${main}/x`]: A })), [`${main}: 'refs/heads/main/x' exists; cannot create 'refs/heads/main'`]);
  assert.equal(reasons([{ dst: 'refs/heads/main-x', new: B, force: false }, { dst: 'refs/heads/mainx/y', new: C, force: false }], state({ [main]: A })), ['refs/heads/main-x: update', 'refs/heads/mainx/y: update']);
});
clashes('two new refs of one push clash with each other; a deletion in the same push frees the name', () => {
  assert.equal(reasons([{ dst: 'refs/heads/a', new: A, force: false }, { dst: 'refs/heads/a/b', new: B, force: false }], state({})), [
    "refs/heads/a: cannot process 'refs/heads/a' and 'refs/heads/a/b' at the same time",
    "refs/heads/a/b: cannot process 'refs/heads/a' and 'refs/heads/a/b' at the same time",
  ]);
  assert.equal(reasons([{ dst: main, new: null, force: false }, { dst: `${main}/x`, new: B, force: false }], state({ [main]: A })), [`${main}: update`, `${main}/x: update`]);
  // atomic: one refusal fails the whole push.
  assert.equal(reasons([{ dst: 'refs/heads/ok', new: A, force: false }, { dst: `${main}/evil`, new: B, force: false }], state({ [main]: A }), true), [
    'refs/heads/ok: atomic push failed', `${main}/evil: 'refs/heads/main' exists; cannot create 'refs/heads/main/evil'`,
  ]);
});
clashes.run();
