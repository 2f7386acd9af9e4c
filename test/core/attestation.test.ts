import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { AttestationRefusedError, judgeReproduction } from '../../src/core/attestation.ts';
import type { TallyView } from '../../src/core/attestation.ts';

const own = { tarSha256: 'aa'.repeat(32), manifestRoot: 'ab'.repeat(32) };
const other = { tarSha256: 'bb'.repeat(32), manifestRoot: 'ab'.repeat(32) };
const view = (revealed: TallyView['revealed'], committed = revealed.map((r) => r.provider)): TallyView => ({
  commitUntilMs: 10, revealUntilMs: 20, committed, revealed, status: 'pending',
});

const judge = suite('judgeReproduction');

judge('waits with no tally, and its own reveal never counts toward the requirement', () => {
  assert.equal(judgeReproduction(null, 'p1', own, 1), { state: 'waiting', agreeing: [], required: 1, committed: 0, revealUntilMs: null });
  assert.equal(judgeReproduction(view([{ provider: 'p1', ...own }], ['p1', 'p2']), 'p1', own, 1), { state: 'waiting', agreeing: [], required: 1, committed: 2, revealUntilMs: 20 });
});

judge('reproduced once the required number of other providers revealed the same digests', () => {
  const tally = view([{ provider: 'p1', ...own }, { provider: 'p2', ...own }]);
  assert.equal(judgeReproduction(tally, 'p1', own, 1), { state: 'reproduced', agreeing: ['p2'] });
  assert.is(judgeReproduction(tally, 'p1', own, 2).state, 'waiting');
  assert.equal(judgeReproduction(null, 'p1', own, 0), { state: 'reproduced', agreeing: [] }, 'no requirement: nothing to wait for');
});

judge('one differing reveal disputes the release however many agree', () => {
  const tally = view([{ provider: 'p1', ...own }, { provider: 'p2', ...own }, { provider: 'p3', ...other }]);
  assert.equal(judgeReproduction(tally, 'p1', own, 1), { state: 'disputed', agreeing: ['p2'], differing: [{ provider: 'p3', ...other }] });
});

judge('a refusal says why in words and keeps the constant', () => {
  const e = new AttestationRefusedError('revealing the build', 'ERevealTooEarly');
  assert.is(e.code, 'ATTESTATION_REFUSED');
  assert.is(e.abortName, 'ERevealTooEarly');
  assert.match(e.message, /revealing the build refused: the commit window is still open/);
});

judge.run();
