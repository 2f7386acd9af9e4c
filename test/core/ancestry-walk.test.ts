import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { isAncestorInWalk, parseHistoryWalk } from '../../src/core/ancestry-walk.ts';

const walk = suite('ancestry walk');

// Brought commits c3..c6 over old values b1 (boundary of c3) and x (boundary of c5); c6 merges c4 and c5.
//   b1 <- c3 <- c4 <- c6
//   x  <- c5 <------/
const history = parseHistoryWalk('c6 c4 c5\nc5 x\nc4 c3\nc3 b1\n');

walk('parses each brought commit with its parents', () => {
  assert.equal([...history.parents.keys()], ['c6', 'c5', 'c4', 'c3']);
  assert.equal(history.parents.get('c6'), ['c4', 'c5']);
  assert.equal(parseHistoryWalk('').parents.size, 0);
});

walk('an old value reached on the boundary is an ancestor', () => {
  assert.is(isAncestorInWalk(history, 'b1', 'c4'), true);
  assert.is(isAncestorInWalk(history, 'x', 'c6'), true);
  assert.is(isAncestorInWalk(history, 'b1', 'c6'), true);
});

walk('a new value that reaches no boundary commit has no old value as ancestor', () => {
  const isolated = parseHistoryWalk('r2 r1\nr1\n');
  assert.is(isAncestorInWalk(isolated, 'b1', 'r2'), false);
});

walk('undecided when the search reaches only other boundary commits, or the new value was not brought', () => {
  assert.is(isAncestorInWalk(history, 'b1', 'c5'), null); // c5 reaches x only: is b1 behind x? the walk cannot say
  assert.is(isAncestorInWalk(history, 'x', 'b1'), null); // b1 is not a brought commit
});

walk.run();
