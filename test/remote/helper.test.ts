import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { join } from 'node:path';
import { silentLog } from '../../src/core/log.ts';
import { NativeGitRepository } from '../../src/git/native-repository.ts';
import { runSession } from '../../src/protocol/session.ts';
import { createHelperBackend } from '../../src/remote/helper.ts';
import { defaultOptions } from '../../src/remote/options.ts';
import { CombinedStateLedger, MemoryBlobStore, MemoryLedger } from '../support/memory-ports.ts';
import { commitFile, hermeticGitEnv, initRepo, tempDir } from '../support/git-fixture.ts';

async function* linesOf(text: string): AsyncIterable<string> {
  for (const line of text.split('\n')) yield line;
}

const helper = suite('createHelperBackend');

helper('a push session reads the chain once, stores one blob and sends one transaction; a no-op fetch reads no blob', async () => {
  const dir = tempDir('helper-test-');
  try {
    const env = hermeticGitEnv(dir.path);
    initRepo(dir.path, env);
    const head = commitFile(dir.path, env, 'a.txt', 'a\n');
    const ledger = new MemoryLedger(`0x${'1'.repeat(64)}`);
    const blobStore = new MemoryBlobStore();
    const { id } = await ledger.createRepository('app');
    const session = async (script: string) => {
      let out = '';
      const options = defaultOptions();
      const backend = createHelperBackend({ ledger, blobStore, local: new NativeGitRepository(join(dir.path, '.git'), env), log: silentLog, locator: { id }, options });
      await runSession(linesOf(script), async (t) => { out += t; }, backend, silentLog);
      return out;
    };

    const pushed = await session('option object-format\nlist for-push\npush refs/heads/main:refs/heads/main\n\n\n');
    assert.is(pushed, 'ok\n\nok refs/heads/main\n\n');
    assert.equal(ledger.calls, ['getRepository', 'listRefs', 'push']);
    assert.is(blobStore.writes, 1);

    ledger.calls.length = 0;
    const listed = await session(`option object-format\nlist\nfetch ${head} refs/heads/main\n\n\n`);
    assert.is(listed, `ok\n:object-format sha1\n@refs/heads/main HEAD\n${head} refs/heads/main\n\n\n`);
    assert.equal(ledger.calls, ['getRepository', 'listRefs', 'listPacks']);
    const reads = blobStore.reads;
    ledger.calls.length = 0;
    await session(`list\nfetch ${head} refs/heads/main\n\n\n`);
    assert.equal(ledger.calls, ['getRepository', 'listRefs']);
    assert.is(blobStore.reads, reads);
  } finally { dir.remove(); }
});

helper('with a combined state read, a fetch with nothing new is one chain read', async () => {
  const dir = tempDir('helper-test-');
  try {
    const env = hermeticGitEnv(dir.path);
    initRepo(dir.path, env);
    const head = commitFile(dir.path, env, 'a.txt', 'a\n');
    const ledger = new CombinedStateLedger(`0x${'1'.repeat(64)}`);
    const blobStore = new MemoryBlobStore();
    const { id } = await ledger.createRepository('app');
    const session = async (script: string) => {
      const backend = createHelperBackend({ ledger, blobStore, local: new NativeGitRepository(join(dir.path, '.git'), env), log: silentLog, locator: { id }, options: defaultOptions() });
      await runSession(linesOf(script), async () => {}, backend, silentLog);
    };
    await session('list for-push\npush refs/heads/main:refs/heads/main\n\n\n');
    await session(`list\nfetch ${head} refs/heads/main\n\n\n`);
    ledger.calls.length = 0;
    const reads = blobStore.reads;
    await session(`list\nfetch ${head} refs/heads/main\n\n\n`);
    assert.equal(ledger.calls, ['getRepositoryState']);
    assert.is(blobStore.reads, reads);
  } finally { dir.remove(); }
});

helper.run();
