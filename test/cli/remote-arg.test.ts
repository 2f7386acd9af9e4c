import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { UsageError } from '../../src/core/errors.ts';
import { resolveRemoteArg, withRemoteRepository } from '../../src/cli/remote-arg.ts';
import type { CliApp } from '../../src/cli/app.ts';
import { silentLog } from '../../src/core/log.ts';
import { MemoryBlobStore, MemoryLedger } from '../support/memory-ports.ts';
import { PackObjectReader } from '../../src/git/pack-reader.ts';
import { tarballArchive } from '../../src/fs/tarball.ts';

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

const withRemote = suite('withRemoteRepository');

withRemote('opens the chosen network, runs on the resolved id and closes the network, also after a failure', async () => {
  const ledger = new MemoryLedger(OWNER);
  const { id } = await ledger.createRepository('app');
  const events: string[] = [];
  const app: CliApp = {
    open: async ({ network } = {}) => {
      events.push(`open ${network}`);
      return { ledger, blobStore: new MemoryBlobStore(), archive: tarballArchive, blobIdOf: async () => '', openPackObjects: () => PackObjectReader.open(), networkName: 'local', close: async () => { events.push('close'); } };
    },
    workspace: { isRepository: async () => true, remoteUrl: async (name) => (name === 'walrus' ? `walrus://${id}` : null), addRemote: async () => {} },
    stdout: () => {},
    stdoutColor: false,
    log: silentLog,
    stderr: () => {},
  };
  assert.is(await withRemoteRepository(app, { remote: 'walrus', network: 'devnet' }, async (services, got) => `${services.networkName} ${got}`), `local ${id}`);
  assert.equal(events.splice(0), ['open devnet', 'close']);
  const refused = new Error('refused');
  await withRemoteRepository(app, { remote: `walrus://${OWNER}/app` }, async () => { throw refused; }).then(() => assert.unreachable(), (e) => assert.is(e, refused));
  await withRemoteRepository(app, { remote: 'nope' }, async () => assert.unreachable()).then(() => assert.unreachable(), (e) => assert.instance(e, UsageError));
  assert.equal(events, ['open undefined', 'close', 'open undefined', 'close']);
});

withRemote('reads the remote\'s URL while the network opens; a network that does not open is the error', async () => {
  const ledger = new MemoryLedger(OWNER);
  const { id } = await ledger.createRepository('app');
  const events: string[] = [];
  let openError: Error | null = null;
  const app: CliApp = {
    open: async () => {
      events.push('open');
      await new Promise((resolve) => setTimeout(resolve, 20));
      if (openError) throw openError;
      events.push('opened');
      return { ledger, blobStore: new MemoryBlobStore(), archive: tarballArchive, blobIdOf: async () => '', openPackObjects: () => PackObjectReader.open(), networkName: 'local', close: async () => { events.push('close'); } };
    },
    workspace: {
      isRepository: async () => true,
      remoteUrl: async (name) => { events.push(`url ${name}`); return name === 'walrus' ? `walrus://${id}` : null; },
      addRemote: async () => {},
    },
    stdout: () => {},
    stdoutColor: false,
    log: silentLog,
    stderr: () => {},
  };
  assert.is(await withRemoteRepository(app, { remote: 'walrus' }, async (_services, got) => got), id);
  assert.equal(events.splice(0), ['url walrus', 'open', 'opened', 'close']);
  // The unknown remote is known before the network opens, but is reported once it has (and closed again).
  await withRemoteRepository(app, { remote: 'nope' }, async () => assert.unreachable()).then(() => assert.unreachable(), (e) => assert.instance(e, UsageError));
  assert.equal(events.splice(0), ['url nope', 'open', 'opened', 'close']);
  openError = new Error('unreachable node');
  await withRemoteRepository(app, { remote: 'nope' }, async () => assert.unreachable()).then(() => assert.unreachable(), (e) => assert.is(e, openError));
  assert.equal(events, ['url nope', 'open']);
});

withRemote('a use that reads the repository first takes an id as it is; owner/name is still resolved', async () => {
  const ledger = new MemoryLedger(OWNER);
  const { id } = await ledger.createRepository('app');
  const app: CliApp = {
    open: async () => ({ ledger, blobStore: new MemoryBlobStore(), archive: tarballArchive, blobIdOf: async () => '', openPackObjects: () => PackObjectReader.open(), networkName: 'local', close: async () => {} }),
    workspace: { isRepository: async () => true, remoteUrl: async () => null, addRemote: async () => {} },
    stdout: () => {},
    stdoutColor: false,
    log: silentLog,
    stderr: () => {},
  };
  const resolves = () => ledger.calls.filter((call) => call === 'resolve').length;
  const run = (remote: string) => withRemoteRepository(app, { remote }, async (_services, got) => got, { readsRepositoryFirst: true });
  assert.is(await run(`walrus://${id}`), id);
  assert.is(resolves(), 0);
  assert.is(await run(`walrus://${OWNER}/app`), id);
  assert.is(resolves(), 1);
  assert.is(await withRemoteRepository(app, { remote: `walrus://${id}` }, async (_services, got) => got), id);
  assert.is(resolves(), 2);
});

withRemote.run();
