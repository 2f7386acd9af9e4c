import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { catalogueOf, remedyOf } from '../../scripts/gen-errors.ts';

const BASE = "export class WalrusGitError extends Error { constructor(code: string, message: string, data = {}, options: { retryable?: boolean } = {}) { super(message); } }\n";
const gen = suite('gen-errors: the error catalogue from the classes');

gen('a code, its class, when, the message with <…> for what is filled in, retryable, and what to do', () => {
  const files = new Map([
    ['src/core/errors.ts', BASE],
    ['src/remote/errors.ts', [
      "import { WalrusGitError } from '../core/errors.ts';",
      '/** A pack is gone. What to do: run `git walrus gc` on a clone that has it. */',
      "export class PackGoneError extends WalrusGitError { constructor(pack: string) { super('PACK_GONE', `pack ${pack} is gone`, { pack }, { retryable: true }); } }",
      '/** Base of the aborts. */',
      "export class AbortError extends WalrusGitError { constructor(code: string, message: string, where: string) { super(code, `${message} (${where})`); } }",
      '/** Not the owner. */',
      "export class NotOwnerError extends AbortError { constructor(owner: string) { super('NOT_OWNER', `only ${owner} may; ask them to add you`, 'repository::push'); } }",
      '/** A refusal of the key servers. */',
      "export class RefusalError extends WalrusGitError { constructor(code: string, reason: string) { super(code, `cannot decrypt: ${reason}`); } }",
      "export const closed = () => new RefusalError('LEASE_CLOSED', 'the lease is closed; open a new lease');",
    ].join('\n')],
  ]);
  assert.equal(catalogueOf(files), [
    { code: 'LEASE_CLOSED', className: 'RefusalError', file: 'src/remote/errors.ts', when: 'A refusal of the key servers.', message: 'cannot decrypt: the lease is closed; open a new lease', retryable: false, remedy: 'open a new lease' },
    { code: 'NOT_OWNER', className: 'NotOwnerError', file: 'src/remote/errors.ts', when: 'Not the owner.', message: 'only <owner> may; ask them to add you (repository::push)', retryable: false, remedy: 'ask them to add you' },
    { code: 'PACK_GONE', className: 'PackGoneError', file: 'src/remote/errors.ts', when: 'A pack is gone.', message: 'pack <pack> is gone', retryable: true, remedy: 'run `git walrus gc` on a clone that has it.' },
  ]);
});

gen('what to do is the clause of the message that tells it, or nothing', () => {
  assert.is(remedyOf('cannot use /x: permission denied (EACCES); fix its permissions or type'), 'fix its permissions or type');
  assert.is(remedyOf('the artifact is not a valid tarball: bad header'), '');
  assert.is(remedyOf('the controller may not list pods (grant it in the controller\'s RBAC, see deploy/rbac.yaml)'), 'grant it in the controller\'s RBAC, see deploy/rbac.yaml');
});

gen.run();
