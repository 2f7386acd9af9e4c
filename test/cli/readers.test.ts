import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { streamLog } from '../../src/core/log.ts';
import type { CliApp } from '../../src/cli/app.ts';
import { runCli } from '../../src/cli/index.ts';
import { PackObjectReader } from '../../src/git/pack-reader.ts';
import { MemoryBlobStore, MemoryLedger } from '../support/memory-ports.ts';

const OWNER = `0x${'a'.repeat(64)}`;
const WRITER = `0x${'b'.repeat(64)}`;
const READER = `0x${'c'.repeat(64)}`;

async function setup(isPrivate: boolean) {
  const ledger = new MemoryLedger(OWNER);
  const { id } = await ledger.createRepository('app', 'refs/heads/main', { private: isPrivate });
  await ledger.addWriter(id, WRITER);
  const walrus = async (args: string[]) => {
    const run = { code: -1, stdout: '', stderr: '' };
    const app: CliApp = {
      open: async () => ({ ledger, blobStore: new MemoryBlobStore(), blobIdOf: async () => '', openPackObjects: () => PackObjectReader.open(), networkName: 'local', close: async () => {} }),
      workspace: { isRepository: async () => true, remoteUrl: async (name) => (name === 'origin' ? `walrus://${id}` : null), addRemote: async () => {} },
      stdout: (text) => { run.stdout += text; },
      stdoutColor: false,
      log: streamLog((text) => { run.stderr += text; }),
      stderr: (text) => { run.stderr += text; },
    };
    run.code = await runCli(args, app);
    return run;
  };
  return { ledger, id, walrus };
}

const Readers = suite('readersCommand');

Readers('add, list (owner, writers, readers) and remove, by remote name or URL', async () => {
  const { ledger, id, walrus } = await setup(true);
  const added = await walrus(['readers', 'add', 'origin', READER]);
  assert.is(added.code, 0, added.stderr);
  assert.match(added.stderr, `Added reader ${READER} (transaction reader).`);
  assert.equal(ledger.repos.get(id)!.info.readers, [READER]);
  const listed = await walrus(['readers', 'list', `walrus://${id}`]);
  assert.is(listed.stdout, `${OWNER} (owner)\n${WRITER} (writer)\n${READER}\n`);
  assert.is((await walrus(['readers', 'remove', 'origin', READER])).code, 0);
  assert.is((await walrus(['readers', 'list', 'origin'])).stdout, `${OWNER} (owner)\n${WRITER} (writer)\n`);
});

Readers('a public repository has no readers: the command says so and changes nothing', async () => {
  const { ledger, id, walrus } = await setup(false);
  const run = await walrus(['readers', 'add', 'origin', READER]);
  assert.is(run.code, 129);
  assert.match(run.stderr, `fatal: repository 'app' (${id}) is public: anyone may read it`);
  assert.equal(ledger.repos.get(id)!.info.readers, []);
});

Readers('add and remove need an address', async () => {
  const { walrus } = await setup(true);
  const run = await walrus(['readers', 'add', 'origin']);
  assert.equal([run.code, run.stderr], [129, 'fatal: readers add needs an address\n']);
});

Readers.run();
