import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { PackObjectReader, PackUnreadableError } from '../../src/git/pack-reader.ts';
import { ScratchRepo } from '../remote/history/scratch-repo.ts';

// Two commits, a large file changed slightly so the second, thin pack stores it as a delta against the first
// pack's blob.
const repo = new ScratchRepo();
const lines = Array.from({ length: 2000 }, (_, i) => `line ${i} of a file long enough to be deltified`);
const c1 = repo.commit('first commit\n\nwith a body', { 'big.txt': lines.join('\n') });
lines[1000] = 'a changed line';
const c2 = repo.commit('second commit', { 'big.txt': lines.join('\n') });
const blob2 = repo.text(['rev-parse', 'HEAD:big.txt']);

const pack1 = repo.pack([c1]);
const thinPack2 = repo.pack([c2, `^${c1}`], { thin: true });
const fatPack2 = repo.pack([c2, `^${c1}`]);

async function withReader(body: (reader: PackObjectReader) => Promise<void>): Promise<void> {
  const reader = await PackObjectReader.open();
  try {
    await body(reader);
  } finally {
    await reader.close();
  }
}

// ---
const AddPack = suite('PackObjectReader.addPack');

AddPack('returns the ids of the objects in each pack, resolving a thin pack against earlier packs', () =>
  withReader(async (reader) => {
    const first = await reader.addPack(pack1, '#0');
    assert.ok(first.includes(c1));
    const second = await reader.addPack(thinPack2, '#1');
    assert.ok(second.includes(c2));
    assert.ok(second.includes(blob2));
    assert.not.ok(second.includes(c1), 'the base object of a thin pack is not listed as its own');
    assert.is(await reader.typeOf(blob2), 'blob');
  }));

AddPack('refuses a thin pack whose delta base is in no earlier pack, naming the pack', () =>
  withReader(async (reader) => {
    try {
      await reader.addPack(thinPack2, 'push 2, pack #1');
      assert.unreachable('indexing should fail');
    } catch (error) {
      assert.instance(error, PackUnreadableError);
      assert.is((error as PackUnreadableError).code, 'PACK_UNREADABLE');
      assert.match((error as Error).message, /^push 2, pack #1: the pack cannot be read: 1 of 3 objects cannot be resolved \(a delta base is in no earlier pack\)$/);
    }
    // The failed pack left nothing behind: the fat pack still indexes cleanly.
    assert.ok((await reader.addPack(fatPack2, '#1')).includes(c2));
  }));

AddPack('refuses bytes that are not a pack', () =>
  withReader(async (reader) => {
    try {
      await reader.addPack(new TextEncoder().encode('not a pack at all, just text'), '#0');
      assert.unreachable('indexing should fail');
    } catch (error) {
      assert.instance(error, PackUnreadableError);
    }
  }));

AddPack('refuses a pack whose trailing checksum does not match, before anything reads from it (fuzzing found reads failing uncoded later)', () =>
  withReader(async (reader) => {
    const corrupt = pack1.slice();
    corrupt[corrupt.length - 1]! ^= 1;
    try {
      await reader.addPack(corrupt, 'push 1, pack #0');
      assert.unreachable('a pack with a wrong checksum was added');
    } catch (error) {
      assert.instance(error, PackUnreadableError);
      assert.match((error as Error).message, /^push 1, pack #0: the pack cannot be read: its trailing checksum does not match its contents$/);
    }
    // Nothing of it stays: the intact pack adds and reads cleanly.
    assert.ok((await reader.addPack(pack1, '#0')).includes(c1));
    assert.is((await reader.readCommit(c1))?.subject, 'first commit');
  }));

AddPack.run();

// ---
const ReadCommit = suite('PackObjectReader.readCommit');

ReadCommit('reads author, date, subject and parents of a commit stored in a pack', () =>
  withReader(async (reader) => {
    await reader.addPack(pack1, '#0');
    await reader.addPack(thinPack2, '#1');
    const first = await reader.readCommit(c1);
    assert.equal(first?.subject, 'first commit');
    assert.equal(first?.parents, []);
    const second = await reader.readCommit(c2);
    assert.equal(second?.parents, [c1]);
    assert.equal(second?.author, { name: 'Ada Lovelace', email: 'ada@example.org', timestamp: 1700000120, timezoneOffset: -60 });
    assert.is(await reader.readCommit(blob2), null, 'a blob is not a commit');
  }));

ReadCommit.run();

// ---
const FindMissing = suite('PackObjectReader.findMissing');

FindMissing('is null when the whole history of a commit is present', () =>
  withReader(async (reader) => {
    await reader.addPack(pack1, '#0');
    await reader.addPack(thinPack2, '#1');
    assert.is(await reader.findMissing(c2), null);
  }));

FindMissing('names the missing parent and the commit that refers to it', () =>
  withReader(async (reader) => {
    await reader.addPack(fatPack2, '#1');
    assert.equal(await reader.findMissing(c2), { oid: c1, referencedBy: c2 });
  }));

FindMissing('names a missing starting point', () =>
  withReader(async (reader) => {
    await reader.addPack(pack1, '#0');
    assert.equal(await reader.findMissing(c2), { oid: c2, referencedBy: null });
    assert.is(await reader.typeOf(c2), null);
  }));

FindMissing('walks trees whose names git checks out on Linux but isomorphic-git\'s path filter refuses: data, not an error', async () => {
  const names = new ScratchRepo();
  try {
    for (const name of ['a\\b.txt', 'git~1', 'file.txt:stream', 'dots..']) writeFileSync(join(names.dir, name), name);
    // git itself refuses git~1 only under core.protectNTFS (a guard for checkouts on Windows); a Linux user may commit it.
    names.git(['-c', 'core.protectNTFS=false', 'add', '-A']);
    names.git(['commit', '-q', '-m', 'odd names']);
    const commit = names.text(['rev-parse', 'HEAD']);
    const blob = names.text(['rev-parse', `${commit}:a\\b.txt`]);
    await withReader(async (reader) => {
      await reader.addPack(names.pack([commit]), '#0');
      assert.equal((await reader.readCommit(commit))?.subject, 'odd names');
      assert.is(await reader.findMissing(commit), null);
      assert.is(await reader.typeOf(names.text(['rev-parse', `${commit}^{tree}`])), 'tree');
      assert.is(await reader.typeOf(blob), 'blob');
    });
  } finally {
    names.remove();
  }
});

// uvu runs a file's suites in order: the last one removes the fixture repository every suite above shares.
FindMissing.after(() => repo.remove());
FindMissing.run();
