import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { UsageError } from '../../src/core/errors.ts';
import { resolveRemoteArg } from '../../src/cli/remote-arg.ts';
import { MemoryLedger } from '../support/memory-ports.ts';

const OWNER = `0x${'1'.repeat(64)}`;

const resolve = suite('resolveRemoteArg');

resolve('takes URLs of both forms and git remote names', async () => {
  const ledger = new MemoryLedger(OWNER);
  const { id } = await ledger.createRepository('app');
  const workspace = { remoteUrl: async (name: string) => (name === 'walrus' ? `walrus://${id}` : name === 'origin' ? 'https://example.com/x.git' : null) };
  assert.equal(await resolveRemoteArg(`walrus://${OWNER}/app`, ledger, workspace), { id, url: `walrus://${OWNER}/app` });
  assert.equal(await resolveRemoteArg('walrus', ledger, workspace), { id, url: `walrus://${id}` });
  for (const [arg, pattern] of [['nope', /neither a walrus:\/\/ URL nor a git remote/], ['origin', /not to a walrus:\/\/ repository/], ['walrus://zzz', /malformed/]] as const) {
    try {
      await resolveRemoteArg(arg, ledger, workspace);
      assert.unreachable(arg);
    } catch (e) {
      assert.instance(e, UsageError);
      assert.match((e as Error).message, pattern);
    }
  }
});

resolve.run();
