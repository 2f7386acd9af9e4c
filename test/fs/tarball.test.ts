import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { chmodSync, existsSync, lstatSync, mkdirSync, readdirSync, readFileSync, readlinkSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { tempDir } from '../../scripts/harness/git-env.ts';
import { packTree, unpackTarball } from '../../src/fs/tarball.ts';
import { bodyPadding, endOfArchive, entryHeader } from '../../src/fs/tar-format.ts';
import type { TarEntry } from '../../src/fs/tar-format.ts';
import { ArtifactDigestMismatchError, MalformedArchiveError, UnpackableTreeError, UnsafeArchiveEntryError } from '../../src/ports/artifact-errors.ts';

const LONG_DIR = `node_modules/${'a-rather-long-package-name-'.repeat(3)}/lib/${'deeply-nested-directory/'.repeat(2)}`;
const LONG_FILE = `${LONG_DIR}index-with-a-long-name.js`;

/** A small app tree; `order` reverses creation order and `stamp` sets other mtimes, neither of which may matter. */
function makeTree(root: string, options: { reverse?: boolean; stamp?: number } = {}): void {
  const files: Array<[string, string, number]> = [
    ['package.json', '{"name":"app"}\n', 0o644],
    ['bin/start', '#!/bin/sh\nnode server.js\n', 0o755],
    ['server.js', 'console.log("hi")\n', 0o664],
    ['empty.txt', '', 0o600],
    [LONG_FILE, 'module.exports = 1;\n', 0o644],
    ['ünïcode/ß.txt', 'unicode name\n', 0o644],
  ];
  for (const [path, content, mode] of options.reverse ? [...files].reverse() : files) {
    mkdirSync(join(root, path, '..'), { recursive: true });
    writeFileSync(join(root, path), content);
    chmodSync(join(root, path), mode);
    if (options.stamp !== undefined) utimesSync(join(root, path), options.stamp, options.stamp);
  }
  mkdirSync(join(root, 'empty-dir'));
  symlinkSync('server.js', join(root, 'main.js'));
  symlinkSync(`../${'x'.repeat(120)}`, join(root, 'bin', 'dangling-long-target'));
  mkdirSync(join(root, '.git'));
  writeFileSync(join(root, '.git', 'HEAD'), `ref: refs/heads/${options.reverse ? 'other' : 'main'}\n`);
}

async function shaOf(root: string): Promise<{ sha256: string; gz: Buffer; entries: number }> {
  const pieces: Uint8Array[] = [];
  const packed = await packTree(root, async (piece) => { pieces.push(piece); });
  return { sha256: packed.sha256, gz: Buffer.concat(pieces), entries: packed.entries };
}

/** A gzip-compressed tarball of hand-made entries (the writer does not judge paths: hostile archives for tests). */
function craft(entries: Array<TarEntry & { body?: string }>): { gz: Buffer; sha256: string } {
  const parts: Uint8Array[] = [];
  for (const entry of entries) {
    const body = Buffer.from(entry.body ?? '');
    parts.push(entryHeader({ ...entry, size: body.byteLength }), body, bodyPadding(body.byteLength));
  }
  parts.push(endOfArchive());
  const tar = Buffer.concat(parts);
  return { gz: gzipSync(tar), sha256: createHash('sha256').update(tar).digest('hex') };
}

async function* once(bytes: Uint8Array): AsyncGenerator<Uint8Array> {
  // Small pieces: the reader must not care where the stream is cut.
  for (let i = 0; i < bytes.byteLength; i += 777) yield bytes.subarray(i, i + 777);
}

const determinism = suite('packTree: determinism');

determinism('the same tree gives the same sha256, whatever the creation order, times and .git', async () => {
  const dir = tempDir('walrus-artifact-');
  try {
    makeTree(join(dir.path, 'a'));
    makeTree(join(dir.path, 'b'), { reverse: true, stamp: 1_234_567 });
    const [a, b] = [await shaOf(join(dir.path, 'a')), await shaOf(join(dir.path, 'b'))];
    assert.match(a.sha256, /^[0-9a-f]{64}$/);
    assert.is(a.sha256, b.sha256);
    assert.is(a.entries, b.entries);
    assert.is(a.sha256, (await shaOf(join(dir.path, 'a'))).sha256, 'packing twice');
  } finally {
    dir.remove();
  }
});

determinism('a link leading out of the tree fails the pack, naming it', async () => {
  const dir = tempDir('walrus-artifact-');
  try {
    const root = join(dir.path, 'tree');
    makeTree(root);
    symlinkSync('/etc/passwd', join(root, 'bin', 'passwd'));
    const error = await shaOf(root).then(() => null, (e: unknown) => e);
    assert.instance(error, UnpackableTreeError);
    assert.match((error as Error).message, /cannot pack 'bin\/passwd': its link target '\/etc\/passwd' is an absolute path/);
    execFileSync('rm', [join(root, 'bin', 'passwd')]);
    symlinkSync('../../outside', join(root, 'bin', 'up'));
    assert.match(String(await shaOf(root).then(() => null, (e: unknown) => e)), /leads out of the tree/);
    execFileSync('rm', [join(root, 'bin', 'up')]);
    symlinkSync('..', join(root, 'bin', 'l1'));
    symlinkSync('l1/..', join(root, 'bin', 'l2'));
    assert.match(String(await shaOf(root).then(() => null, (e: unknown) => e)), /'bin\/l2': its link target 'l1\/\.\.' leads out of the tree through other links/);
  } finally {
    dir.remove();
  }
});

determinism('a changed exec bit, file, added file or link target each change the sha256; other mode bits do not', async () => {
  const dir = tempDir('walrus-artifact-');
  try {
    const root = join(dir.path, 'tree');
    makeTree(root);
    const base = (await shaOf(root)).sha256;
    const changes: Array<[string, () => void, () => void]> = [
      ['exec bit', () => chmodSync(join(root, 'server.js'), 0o755), () => chmodSync(join(root, 'server.js'), 0o644)],
      ['content', () => writeFileSync(join(root, 'server.js'), 'console.log("ho")\n'), () => writeFileSync(join(root, 'server.js'), 'console.log("hi")\n')],
      ['added file', () => writeFileSync(join(root, 'new.txt'), ''), () => execFileSync('rm', [join(root, 'new.txt')])],
      ['added directory', () => mkdirSync(join(root, 'new-dir')), () => execFileSync('rmdir', [join(root, 'new-dir')])],
      ['link target', () => { execFileSync('rm', [join(root, 'main.js')]); symlinkSync('package.json', join(root, 'main.js')); }, () => { execFileSync('rm', [join(root, 'main.js')]); symlinkSync('server.js', join(root, 'main.js')); }],
      ['renamed file', () => execFileSync('mv', [join(root, 'empty.txt'), join(root, 'empty2.txt')]), () => execFileSync('mv', [join(root, 'empty2.txt'), join(root, 'empty.txt')])],
    ];
    for (const [what, change, undo] of changes) {
      change();
      assert.is.not((await shaOf(root)).sha256, base, what);
      undo();
      assert.is((await shaOf(root)).sha256, base, `${what} undone`);
    }
    chmodSync(join(root, 'server.js'), 0o600); // no owner exec bit: still 0644 in the archive
    assert.is((await shaOf(root)).sha256, base, 'group/other bits');
  } finally {
    dir.remove();
  }
});

const roundTrip = suite('packTree → unpackTarball');

roundTrip('gives back the tree: contents, exec bits, links, empty dirs, long paths; no .git', async () => {
  const dir = tempDir('walrus-artifact-');
  try {
    const src = join(dir.path, 'src');
    makeTree(src);
    const { sha256, gz } = await shaOf(src);
    const out = join(dir.path, 'out');
    const unpacked = await unpackTarball(once(gz), out, sha256, 'test');
    assert.ok(unpacked.entries > 8);
    assert.is(readFileSync(join(out, LONG_FILE), 'utf8'), 'module.exports = 1;\n');
    assert.ok(LONG_FILE.length > 100);
    assert.is(readFileSync(join(out, 'ünïcode/ß.txt'), 'utf8'), 'unicode name\n');
    assert.is(lstatSync(join(out, 'bin/start')).mode & 0o777, 0o755);
    assert.is(lstatSync(join(out, 'server.js')).mode & 0o777, 0o644);
    assert.is(lstatSync(join(out, 'empty.txt')).mode & 0o777, 0o644);
    assert.is(readlinkSync(join(out, 'main.js')), 'server.js');
    assert.is(readlinkSync(join(out, 'bin/dangling-long-target')), `../${'x'.repeat(120)}`);
    assert.ok(lstatSync(join(out, 'empty-dir')).isDirectory());
    assert.not.ok(existsSync(join(out, '.git')));
    // Packing what was unpacked gives the same artifact.
    assert.is((await shaOf(out)).sha256, sha256);
  } finally {
    dir.remove();
  }
});

roundTrip('GNU tar reads the archive: names, long names, owners and times as written', async () => {
  const dir = tempDir('walrus-artifact-');
  try {
    const src = join(dir.path, 'src');
    makeTree(src);
    const { gz } = await shaOf(src);
    writeFileSync(join(dir.path, 'a.tgz'), gz);
    const listing = execFileSync('tar', ['--numeric-owner', '-tvzf', join(dir.path, 'a.tgz')], { encoding: 'utf8', env: { ...process.env, TZ: 'UTC', LC_ALL: 'C' } });
    assert.ok(listing.includes(LONG_FILE), listing);
    assert.ok(listing.includes(`bin/dangling-long-target -> ../${'x'.repeat(120)}`), listing);
    for (const line of listing.trim().split('\n')) assert.match(line, / 0\/0 .* 1970-01-01 00:00 /, line);
    assert.not.ok(listing.includes('.git/'), listing);
    assert.ok(listing.split('\n')[0].includes('bin/'), 'sorted: bin/ first');
  } finally {
    dir.remove();
  }
});

const safety = suite('unpackTarball: refusals');

const refusals: Array<[string, Array<TarEntry & { body?: string }>, RegExp]> = [
  ['a path with ..', [{ path: 'a/../../evil', type: 'file', mode: 0o644, size: 0, body: 'x' }], /contains '\.\.'/],
  ['an absolute path', [{ path: '/tmp/evil', type: 'file', mode: 0o644, size: 0, body: 'x' }], /absolute path/],
  ['a link out of the tree', [{ path: 'l', type: 'symlink', mode: 0o777, size: 0, target: '../outside' }], /leads out/],
  ['a file named like the target directory', [{ path: './', type: 'file', mode: 0o644, size: 0, body: 'x' }], /names the target directory itself/],
  ['an absolute link', [{ path: 'l', type: 'symlink', mode: 0o777, size: 0, target: '/etc/passwd' }], /absolute path/],
  ['an entry below a link', [
    { path: 'l', type: 'symlink', mode: 0o777, size: 0, target: 'd' },
    { path: 'l/x', type: 'file', mode: 0o644, size: 0, body: 'x' },
  ], /below the symbolic link/],
  ['links that escape together', [
    { path: 'a', type: 'directory', mode: 0o755, size: 0 },
    { path: 'a/l1', type: 'symlink', mode: 0o777, size: 0, target: '..' },
    { path: 'a/l2', type: 'symlink', mode: 0o777, size: 0, target: 'l1/..' },
  ], /through other links/],
];

for (const [what, entries, message] of refusals) {
  safety(`refuses ${what} and leaves the directory empty`, async () => {
    const dir = tempDir('walrus-artifact-');
    try {
      const { gz, sha256 } = craft([{ path: 'first.txt', type: 'file', mode: 0o644, size: 0, body: 'ok' }, ...entries]);
      const out = join(dir.path, 'out');
      const error = await unpackTarball(once(gz), out, sha256, 'test').then(() => null, (e: unknown) => e);
      assert.instance(error, UnsafeArchiveEntryError);
      assert.match((error as Error).message, message);
      assert.equal(readdirSync(out), []);
      assert.equal(readdirSync(dir.path), ['out'], 'nothing written beside the target');
    } finally {
      dir.remove();
    }
  });
}

safety('refuses a sha256 mismatch, a corrupt stream, a duplicate entry, a hard link, a non-empty target', async () => {
  const dir = tempDir('walrus-artifact-');
  try {
    const out = join(dir.path, 'out');
    const good = craft([{ path: 'a.txt', type: 'file', mode: 0o644, size: 0, body: 'a' }]);
    const mismatch = await unpackTarball(once(good.gz), out, '0'.repeat(64), 'blob-x').then(() => null, (e: unknown) => e);
    assert.instance(mismatch, ArtifactDigestMismatchError);
    assert.match((mismatch as Error).message, new RegExp(`artifact blob-x .* ${good.sha256}`));
    assert.equal(readdirSync(out), []);

    const corrupt = Buffer.from(good.gz);
    corrupt[corrupt.length - 12] ^= 0xff;
    assert.instance(await unpackTarball(once(corrupt), out, good.sha256, 't').then(() => null, (e: unknown) => e), MalformedArchiveError);
    assert.equal(readdirSync(out), []);

    const twice = craft([{ path: 'a', type: 'file', mode: 0o644, size: 0, body: '1' }, { path: 'a', type: 'file', mode: 0o644, size: 0, body: '2' }]);
    assert.instance(await unpackTarball(once(twice.gz), out, twice.sha256, 't').then(() => null, (e: unknown) => e), MalformedArchiveError);
    assert.equal(readdirSync(out), []);

    const belowFile = craft([{ path: 'a', type: 'file', mode: 0o644, size: 0, body: '1' }, { path: 'a/b', type: 'file', mode: 0o644, size: 0, body: '2' }]);
    assert.match(String(await unpackTarball(once(belowFile.gz), out, belowFile.sha256, 't').then(() => null, (e: unknown) => e)), /MalformedArchiveError: .*two entries collide/);
    assert.equal(readdirSync(out), []);

    const hard = Buffer.from(entryHeader({ path: 'h', type: 'file', mode: 0o644, size: 0 }));
    hard[156] = '1'.charCodeAt(0); // a hard link: recompute the checksum so only the type is wrong
    hard.fill(0x20, 148, 156);
    const sum = hard.reduce((s, b) => s + b, 0);
    hard.write(`${sum.toString(8).padStart(6, '0')}\u0000 `, 148, 'latin1');
    const hardTar = Buffer.concat([hard, endOfArchive()]);
    const hardError = await unpackTarball(once(gzipSync(hardTar)), out, createHash('sha256').update(hardTar).digest('hex'), 't').then(() => null, (e: unknown) => e);
    assert.instance(hardError, MalformedArchiveError);
    assert.match((hardError as Error).message, /tar type '1'/);

    const truncated = gzipSync(Buffer.concat([entryHeader({ path: 'a', type: 'file', mode: 0o644, size: 10 }), Buffer.from('abc')]));
    assert.instance(await unpackTarball(once(truncated), out, '0'.repeat(64), 't').then(() => null, (e: unknown) => e), MalformedArchiveError);
    assert.equal(readdirSync(out), []);

    writeFileSync(join(out, 'keep'), 'mine');
    const busy = await unpackTarball(once(good.gz), out, good.sha256, 't').then(() => null, (e: unknown) => e);
    assert.match((busy as Error).message, /not empty/);
    assert.is(readFileSync(join(out, 'keep'), 'utf8'), 'mine');
  } finally {
    dir.remove();
  }
});

safety('unpacks an archive GNU tar wrote (./ prefixes, prefix-split or pax names) when its digest is given', async () => {
  const dir = tempDir('walrus-artifact-');
  try {
    const src = join(dir.path, 'src');
    makeTree(src);
    const tarPath = join(dir.path, 'gnu.tar');
    execFileSync('tar', ['--format=pax', '-cf', tarPath, '-C', src, '.']);
    const tar = readFileSync(tarPath);
    const out = join(dir.path, 'out');
    await unpackTarball(once(gzipSync(tar)), out, createHash('sha256').update(tar).digest('hex'), 'gnu');
    assert.is(readFileSync(join(out, LONG_FILE), 'utf8'), 'module.exports = 1;\n');
    assert.is(readlinkSync(join(out, 'main.js')), 'server.js');
  } finally {
    dir.remove();
  }
});

determinism.run();
roundTrip.run();
safety.run();
