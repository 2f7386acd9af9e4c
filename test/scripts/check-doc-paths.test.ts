import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { missingPaths } from '../../scripts/check-doc-paths.ts';

const files = ['src/remote/push.ts', 'src/gitops/reconcile/steps/build.ts', 'src/gitops/queue.ts', 'README.md', 'docs/architecture.md', 'contracts/sources/market.move'];
const check = suite('check-doc-paths: every path the document names exists');

check('paths from the root must exist as written; shorter ones must end a path in the tree', () => {
  const text = [
    'A push (`remote/push.ts`, src/remote/push.ts) runs `reconcile/steps/` and queue.ts; see [README](../README.md).',
    'The market (contracts/sources/market.move) and `networking.k8s.io/v1`, `dist/main/<entry>.js`, `refs/heads/main`.',
  ].join('\n');
  assert.equal(missingPaths(text, files), []);
});

check('a moved or deleted file is named with its line, in code, in prose and as a link', () => {
  const text = [
    'Blob ids are computed locally (src/walrus/blob-id.ts, in a worker).',
    'Artifacts (`artifact/`) and the man page [man](man/git-walrus.1), and `remote/gone.ts`.',
    'The test `src/remote/push.ts` exists; `push.ts` too.',
  ].join('\n');
  assert.equal(missingPaths(text, files), [
    { line: 1, path: 'src/walrus/blob-id.ts' },
    { line: 2, path: 'docs/man/git-walrus.1' },
    { line: 2, path: 'artifact/' },
    { line: 2, path: 'remote/gone.ts' },
  ]);
});

check.run();
