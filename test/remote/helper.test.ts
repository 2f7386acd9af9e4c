import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { silentLog } from '../../src/core/log.ts';
import { NativeGitRepository } from '../../src/git/native-repository.ts';
import { runSession } from '../../src/protocol/session.ts';
import { createHelperBackend } from '../../src/remote/helper.ts';
import { defaultOptions } from '../../src/remote/options.ts';
import { MemoryBlobStore, MemoryLedger } from '../support/memory-ports.ts';
import { commitFile, initRepo } from '../support/git-fixture.ts';
import { hermeticGitEnv, tempDir } from '../../scripts/harness/git-env.ts';

async function* linesOf(text: string): AsyncIterable<string> {
  for (const line of text.split('\n')) yield line;
}

/** A committed repository, a fresh remote on memory ports, and `session(script)` running the helper protocol. */
async function setup() {
  const dir = tempDir('helper-test-');
  const env = hermeticGitEnv(dir.path);
  initRepo(dir.path, env);
  const head = commitFile(dir.path, env, 'a.txt', 'a\n');
  const ledger = new MemoryLedger(`0x${'1'.repeat(64)}`);
  const blobStore = new MemoryBlobStore();
  const { id } = await ledger.createRepository('app');
  const session = async (script: string) => {
    let out = '';
    const backend = createHelperBackend({ ledger, blobStore, local: new NativeGitRepository(join(dir.path, '.git'), env), log: silentLog, locator: { id }, options: defaultOptions() });
    await runSession(linesOf(script), async (t) => { out += t; }, backend, silentLog);
    return out;
  };
  return { dir, head, ledger, blobStore, id, session };
}

const helper = suite('createHelperBackend');

helper('a push session reads the chain once, stores one blob and sends one transaction; a no-op fetch reads no blob', async () => {
  const { dir, head, ledger, blobStore, session } = await setup();
  try {
    const pushed = await session('option object-format\nlist for-push\npush refs/heads/main:refs/heads/main\n\n\n');
    assert.is(pushed, 'ok\n\nok refs/heads/main\n\n');
    assert.equal(ledger.calls, ['getRepository', 'listRefs', 'push']);
    assert.is(blobStore.writes, 1);

    ledger.calls.length = 0;
    const listed = await session(`option object-format\nlist\nfetch ${head} refs/heads/main\n\n\n`);
    assert.is(listed, `ok\n:object-format sha1\n@refs/heads/main HEAD\n${head} refs/heads/main\n\n\n`);
    // The push kept the refs it left (its transaction was the only change), so this list reads the object alone.
    assert.equal(ledger.calls, ['getRepository', 'listPacks']);
    const reads = blobStore.reads;
    ledger.calls.length = 0;
    await session(`list\nfetch ${head} refs/heads/main\n\n\n`);
    assert.equal(ledger.calls, ['getRepository'], 'a list at an unchanged seq answers from the refs kept by the last one');
    assert.is(blobStore.reads, reads);
  } finally { dir.remove(); }
});

helper('the kept refs serve a list only at their seq: a push elsewhere is seen, HEAD always comes from the object', async () => {
  const { dir, head, ledger, id, session } = await setup();
  try {
    const list = async () => {
      ledger.calls.length = 0;
      const out = await session('list\n\n');
      return { out, calls: [...ledger.calls] };
    };
    await ledger.push(id, [{ name: 'refs/heads/main', old: null, new: head, force: false }], null);
    assert.equal(await list(), { out: `@refs/heads/main HEAD\n${head} refs/heads/main\n\n`, calls: ['getRepository', 'listRefs'] });
    assert.equal((await list()).calls, ['getRepository']);

    // Another clone pushes: seq moves, so the next list pages the refs again and keeps the new ones.
    await ledger.push(id, [{ name: 'refs/heads/topic', old: null, new: head, force: false }], null);
    const both = `${head} refs/heads/main\n${head} refs/heads/topic\n\n`;
    assert.equal(await list(), { out: `@refs/heads/main HEAD\n${both}`, calls: ['getRepository', 'listRefs'] });
    assert.equal(await list(), { out: `@refs/heads/main HEAD\n${both}`, calls: ['getRepository'] });

    // set_head leaves seq alone: the kept refs still serve, and HEAD follows the object.
    await ledger.setHead(id, 'refs/heads/topic');
    assert.equal(await list(), { out: `@refs/heads/topic HEAD\n${both}`, calls: ['getRepository'] });
  } finally { dir.remove(); }
});

/** Pushes main, then runs `body` with a new repository beside it that has no refs (what git clones into). */
async function withPushedAndEmptyClone(body: (t: Awaited<ReturnType<typeof setup>> & { clone: string; cloneEnv: NodeJS.ProcessEnv }) => Promise<void>) {
  const pushed = await setup();
  const clone = tempDir('helper-clone-');
  try {
    await pushed.session('list for-push\npush refs/heads/main:refs/heads/main\n\n\n');
    const cloneEnv = hermeticGitEnv(clone.path);
    initRepo(clone.path, cloneEnv);
    await body({ ...pushed, clone: clone.path, cloneEnv });
  } finally {
    clone.remove();
    pushed.dir.remove();
  }
}

/**
 * Runs `script` as the helper session of a clone: a new repository with no refs (where a list prefetches the packs),
 * closed as the helper process closes it.
 */
function cloneSession(script: (head: string) => string, check: (t: { out: string; head: string; id: string; local: NativeGitRepository; clone: string; calls: string[] }) => Promise<void>) {
  return withPushedAndEmptyClone(async ({ head, ledger, blobStore, id, clone, cloneEnv }) => {
    const local = new NativeGitRepository(join(clone, '.git'), cloneEnv);
    const backend = createHelperBackend({ ledger, blobStore, local, log: silentLog, locator: { id }, options: defaultOptions() });
    ledger.calls.length = 0;
    let out = '';
    await runSession(linesOf(script(head)), async (t) => { out += t; }, backend, silentLog);
    await backend.close();
    await check({ out, head, id, local, clone, calls: [...ledger.calls] });
  });
}

helper('a list that no fetch follows (ls-remote in a repository) leaves no kept pack and no quarantine behind', () => cloneSession(() => 'list\n\n', async ({ out, head, clone }) => {
  assert.is(out, `@refs/heads/main HEAD\n${head} refs/heads/main\n\n`);
  const objects = join(clone, '.git', 'objects');
  assert.equal(readdirSync(objects).filter((name) => name.startsWith('incoming-')), [], 'no quarantine left');
  assert.equal(readdirSync(join(objects, 'pack')).filter((name) => name.endsWith('.keep')), [], 'no keep left');
}));

helper('a repository that kept a listing of the remote is no clone: its next list does not ask git whether it has a ref', () => withPushedAndEmptyClone(async ({ head, ledger, blobStore, id, clone, cloneEnv }) => {
  // Counts the git calls that ask whether the repository has a ref.
  let asked = 0;
  class CountingRepository extends NativeGitRepository {
    override formatWhileEmpty() {
      asked += 1;
      return super.formatWhileEmpty();
    }
  }
  const list = async () => {
    asked = 0;
    const backend = createHelperBackend({ ledger, blobStore, local: new CountingRepository(join(clone, '.git'), cloneEnv), log: silentLog, locator: { id }, options: defaultOptions() });
    ledger.calls.length = 0;
    let out = '';
    await runSession(linesOf('list\n\n'), async (t) => { out += t; }, backend, silentLog);
    await backend.close();
    assert.is(out, `@refs/heads/main HEAD\n${head} refs/heads/main\n\n`);
    return { calls: [...ledger.calls], asked };
  };
  const first = await list();
  assert.equal({ calls: [...first.calls].sort(), asked: first.asked }, { calls: ['getRepository', 'listPacks', 'listRefs'], asked: 1 }, 'the first list, into a repository with no ref, prefetches');
  // Still without a ref, but it listed this remote before (ls-remote, a fetch that was stopped): git is not asked.
  assert.equal(await list(), { calls: ['getRepository'], asked: 0 });
}));

helper('a clone of a SHA-256 remote into a repository git has not yet switched to SHA-256 is not prefetched', async () => {
  const dir = tempDir('helper-sha256-');
  const clone = tempDir('helper-clone-');
  try {
    const env = hermeticGitEnv(dir.path);
    initRepo(dir.path, env, 'sha256');
    const head = commitFile(dir.path, env, 'a.txt', 'a\n');
    const ledger = new MemoryLedger(`0x${'1'.repeat(64)}`);
    const blobStore = new MemoryBlobStore();
    const { id } = await ledger.createRepository('modern');
    const backend = (gitDir: string, localEnv: NodeJS.ProcessEnv) => createHelperBackend({ ledger, blobStore, local: new NativeGitRepository(gitDir, localEnv), log: silentLog, locator: { id }, options: defaultOptions() });
    await runSession(linesOf('list for-push\npush refs/heads/main:refs/heads/main\n\n\n'), async () => {}, backend(join(dir.path, '.git'), env), silentLog);
    const cloneEnv = hermeticGitEnv(clone.path);
    initRepo(clone.path, cloneEnv);
    ledger.calls.length = 0;
    let out = '';
    const cloning = backend(join(clone.path, '.git'), cloneEnv);
    await runSession(linesOf('option object-format true\nlist\n\n'), async (t) => { out += t; }, cloning, silentLog);
    await cloning.close();
    assert.match(out, new RegExp(`^:object-format sha256\n@refs/heads/main HEAD\n${head} refs/heads/main$`, 'm'));
    assert.equal(ledger.calls, ['getRepository', 'listRefs'], 'no pack listed, none downloaded');
  } finally {
    clone.remove();
    dir.remove();
  }
});

helper('a clone session: the pack applied while git read the listing is kept for git to unlock, its links checked', () => cloneSession(
  (head) => `list\noption check-connectivity true\nfetch ${head} refs/heads/main\n\n`,
  async ({ out, id, local, calls }) => {
    // The list read the packs beside the refs; the fetch took what the list's prefetch applied, and read nothing more.
    assert.equal([...calls].sort(), ['getRepository', 'listPacks', 'listRefs']);
    const keep = /^lock (.+\.keep)$/m.exec(out)?.[1];
    assert.ok(keep !== undefined && existsSync(keep), `a lock answered: ${out}`);
    assert.match(out, /^connectivity-ok$/m);
    assert.is(await local.readAppliedPacks(id), 1);
  },
));

helper('a clone\'s listing goes out while its packs download: it does not wait for a single blob', () => withPushedAndEmptyClone(async ({ head, ledger, blobStore, id, clone, cloneEnv }) => {
  // Each blob read is held until git has the listing (or 5 s, which the old order, listing after the first blob,
  // would wait out).
  let listed = () => {};
  const listingOut = new Promise<void>((resolve) => { listed = resolve; });
  let heldTooLong = false;
  const holding = Object.assign(Object.create(blobStore) as MemoryBlobStore, {
    read: async (blobId: string) => {
      await Promise.race([listingOut, new Promise<void>((resolve) => setTimeout(() => { heldTooLong = true; resolve(); }, 5000).unref())]);
      return blobStore.read(blobId);
    },
  });
  const local = new NativeGitRepository(join(clone, '.git'), cloneEnv);
  const backend = createHelperBackend({ ledger, blobStore: holding, local, log: silentLog, locator: { id }, options: defaultOptions() });
  let out = '';
  await runSession(linesOf(`list\noption check-connectivity true\nfetch ${head} refs/heads/main\n\n`), async (t) => {
    out += t;
    if (out.endsWith(`${head} refs/heads/main\n\n`)) listed();
  }, backend, silentLog);
  await backend.close();
  assert.is(heldTooLong, false, 'the listing went out before any blob was read');
  assert.match(out, /^connectivity-ok$/m, 'the prefetched pack served the fetch');
  assert.is(await local.readAppliedPacks(id), 1);
}));

helper.run();
