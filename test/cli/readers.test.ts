import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { MemoryLedger } from '../support/memory-ports.ts';
import { runMemoryCli } from '../support/memory-cli.ts';

const OWNER = `0x${'a'.repeat(64)}`;
const WRITER = `0x${'b'.repeat(64)}`;
const READER = `0x${'c'.repeat(64)}`;

async function setup(isPrivate: boolean) {
  const ledger = new MemoryLedger(OWNER);
  const { id } = await ledger.createRepository('app', 'refs/heads/main', { private: isPrivate });
  await ledger.addWriter(id, WRITER);
  const workspace = { isRepository: async () => true, remoteUrl: async (name: string) => (name === 'origin' ? `walrus://${id}` : null), addRemote: async () => {} };
  const walrus = (args: string[]) => runMemoryCli({ ledger }, workspace, args);
  return { ledger, id, walrus };
}

const Readers = suite('readersCommand');

Readers('add, list (owner, writers, readers) and remove, by remote name or URL', async () => {
  const { ledger, id, walrus } = await setup(true);
  const added = await walrus(['readers', 'add', 'origin', READER]);
  assert.is(added.code, 0, added.stderr);
  assert.match(added.stderr, new RegExp(`Added reader ${READER} \\(transaction Tx\\d{40}\\)\\.`));
  assert.equal(ledger.info(id).readers, [READER]);
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
  assert.equal(ledger.info(id).readers, []);
});

Readers('add and remove need an address', async () => {
  const { walrus } = await setup(true);
  const run = await walrus(['readers', 'add', 'origin']);
  assert.equal([run.code, run.stderr], [129, 'fatal: readers add needs an address\n']);
});

Readers.run();
