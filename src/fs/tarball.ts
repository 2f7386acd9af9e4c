import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import type { FileHandle } from 'node:fs/promises';
import { chmod, lstat, mkdir, open, readdir, readFile, readlink, symlink } from 'node:fs/promises';
import { isAbsolute, join, posix } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createGunzip, createGzip } from 'node:zlib';
import { byUtf8, manifestRoot } from '../core/manifest-root.ts';
import type { ManifestEntry } from '../core/manifest-root.ts';
import { claimEmptyDirectory, emptyDirectory } from './empty-directory.ts';
import { ArtifactDigestMismatchError, MalformedArchiveError, UnpackableTreeError, UnsafeArchiveEntryError } from '../ports/artifact-errors.ts';
import { BUILD_REPORT_DIR } from '../ports/tree-archive.ts';
import type { PackedTree, TreeArchive, UnpackedTree } from '../ports/tree-archive.ts';
import { bodyPadding, endOfArchive, entryHeader, TarReader } from './tar-format.ts';
import type { TarEntry } from './tar-format.ts';

/**
 * The app artifact: a directory tree as a deterministic tar, gzip-compressed for transport.
 *
 * What is deterministic, and why it holds on any machine: the artifact's identity is the sha256 of the *tar* stream,
 * which depends only on the tree's names, file contents, exec bits and link targets: entries in byte order of their
 * names (depth first, a directory before its contents), mtime 0, uid/gid 0, no user or group names, modes 0644 or
 * 0755 by the owner's exec bit, directories 0755, links kept as links, `.git` left out, one canonical header form
 * (tar-format.ts). Our own code writes every byte of it, so it does not depend on the platform, the Node version or a
 * library's defaults. The gzip layer is transport only: Node's bundled zlib (Chromium's fork) picks its match-finding
 * hash by CPU feature (CRC32C where SSE4.2 or ARMv8 CRC exist), and distribution builds may link another zlib, so
 * the compressed bytes (and hence the Walrus blob id) can differ between machines for the same tree; the sha256 does
 * not. Unpacking verifies that sha256 over the decompressed stream before anything is left on disk.
 */

/** gzip level: the zlib default, a fair trade of build time against Walrus storage (which is paid per byte). */
const GZIP_LEVEL = 6;
const READ_PIECE = 256 * 1024;
/**
 * Left out at any depth, as `tar --exclude=.git` does: repository metadata is not part of an app, and neither is the
 * report a reproducible build leaves about itself (BUILD_REPORT_DIR).
 */
const EXCLUDED = new Set(['.git', BUILD_REPORT_DIR]);

/** Packs the tree at `root`, handing the gzip-compressed tarball to `sink` piece by piece (it may apply backpressure). */
export async function packTree(root: string, sink: (compressed: Uint8Array) => Promise<void>): Promise<PackedTree> {
  const hash = createHash('sha256');
  let tarSize = 0;
  let entries = 0;
  const manifest: ManifestEntry[] = [];
  async function* hashed(): AsyncGenerator<Uint8Array> {
    for await (const piece of tarStream(root, () => { entries++; }, (entry) => { manifest.push(entry); })) {
      hash.update(piece);
      tarSize += piece.byteLength;
      yield piece;
    }
  }
  await pipeline(Readable.from(hashed()), createGzip({ level: GZIP_LEVEL }), async (compressed: AsyncIterable<Uint8Array>) => {
    for await (const piece of compressed) await sink(piece);
  });
  return { sha256: hash.digest('hex'), tarSize, entries, manifestRoot: manifestRoot(manifest), manifest };
}

/**
 * The deterministic tar stream of the tree at `root` (uncompressed). `onFile` hears each file and link with the sha256
 * of its bytes (a link's: of its target) once they are read: the tree's manifest (core/manifest-root.ts).
 */
export async function* tarStream(root: string, onEntry: (entry: TarEntry) => void = () => {}, onFile: (entry: ManifestEntry) => void = () => {}): AsyncGenerator<Uint8Array> {
  for await (const { entry, absolute } of treeEntries(root, '')) {
    onEntry(entry);
    const changed = (read: number) => new UnpackableTreeError(entry.path, `it changed while being packed (${entry.size} bytes when listed, ${read} when read)`);
    if (entry.type !== 'file') {
      if (entry.type === 'symlink') onFile({ path: entry.path, mode: entry.mode, sha256: createHash('sha256').update(entry.target ?? '').digest('hex') });
      yield entryHeader(entry);
    } else if (entry.size <= READ_PIECE) {
      // Most files of an app are small: one read, and header, body and padding handed on as one piece.
      const body = await readFile(absolute);
      if (body.byteLength !== entry.size) throw changed(body.byteLength);
      onFile({ path: entry.path, mode: entry.mode, sha256: createHash('sha256').update(body).digest('hex') });
      yield Buffer.concat([entryHeader(entry), body, bodyPadding(entry.size)]);
    } else {
      yield entryHeader(entry);
      const digest = createHash('sha256');
      let read = 0;
      for await (const piece of createReadStream(absolute, { highWaterMark: READ_PIECE }) as AsyncIterable<Buffer>) {
        read += piece.byteLength;
        if (read > entry.size) throw changed(read);
        digest.update(piece);
        yield piece;
      }
      if (read !== entry.size) throw changed(read);
      onFile({ path: entry.path, mode: entry.mode, sha256: digest.digest('hex') });
      yield bodyPadding(entry.size);
    }
  }
  yield endOfArchive();
}

async function* treeEntries(root: string, relative: string): AsyncGenerator<{ entry: TarEntry; absolute: string }> {
  const names = (await readdir(join(root, relative))).filter((name) => !EXCLUDED.has(name)).sort(byUtf8);
  for (const name of names) {
    const path = relative === '' ? name : `${relative}/${name}`;
    const absolute = join(root, path);
    const stat = await lstat(absolute);
    if (stat.isDirectory()) {
      yield { entry: { path, type: 'directory', mode: 0o755, size: 0 }, absolute };
      yield* treeEntries(root, path);
    } else if (stat.isFile()) {
      yield { entry: { path, type: 'file', mode: stat.mode & 0o100 ? 0o755 : 0o644, size: stat.size }, absolute };
    } else if (stat.isSymbolicLink()) {
      // Refused here as unpacking would refuse it: the build fails with the reason, instead of every run pod.
      const target = await readlink(absolute);
      const problem = linkTargetProblem(path, target) ?? ((await leavesRoot(root, path)) ? `its link target '${target}' leads out of the tree through other links` : null);
      if (problem !== null) throw new UnpackableTreeError(path, `${problem}, which no artifact may contain`);
      yield { entry: { path, type: 'symlink', mode: 0o777, size: 0, target }, absolute };
    } else {
      throw new UnpackableTreeError(path, 'it is not a regular file, a directory or a symbolic link');
    }
  }
}

/**
 * Unpacks a gzip-compressed tarball from `source` into `dir` (created if missing; it must be empty), refusing it
 * unless the tar stream hashes to `expectedSha256`. Refuses absolute paths, `..`, entries below a link, and links
 * whose target leads out of `dir` (lexically, and physically through other links once all exist). Links are created
 * only after the digest matched. Whatever fails, `dir` is left empty. `label` names the artifact in errors.
 */
export async function unpackTarball(source: AsyncIterable<Uint8Array>, dir: string, expectedSha256: string, label: string): Promise<UnpackedTree> {
  await claimEmptyDirectory(dir, 'artifact fetch');
  const hash = createHash('sha256');
  const reader = new TarReader();
  const seen = new Set<string>();
  const links: Array<{ path: string; target: string }> = [];
  /** Directories known to exist: a file's parent is created once, not once per file. */
  const directories = new Set<string>();
  let file: { handle: FileHandle; path: string; mode: number } | null = null;
  let entries = 0;
  let tarSize = 0;
  try {
    await pipeline(Readable.from(source), createGunzip(), async (tar: AsyncIterable<Uint8Array>) => {
      for await (const piece of tar) {
        hash.update(piece);
        tarSize += piece.byteLength;
        for (const event of reader.push(piece)) {
          if (event.kind === 'data') {
            await writeAll(file!.handle, event.bytes);
          } else if (event.kind === 'end-entry') {
            if (file !== null) {
              await file.handle.close();
              await chmod(file.path, file.mode);
              file = null;
            }
          } else {
            entries++;
            const path = safePath(event.entry.path);
            if (path === '') {
              // The archive's own root (`./`, as GNU tar writes it): nothing to create, and nothing else may name it.
              if (event.entry.type !== 'directory') throw new UnsafeArchiveEntryError(event.entry.path, 'it names the target directory itself');
              continue;
            }
            if (seen.has(path)) throw new MalformedArchiveError(`'${path}' appears twice`, { path });
            seen.add(path);
            const below = links.find((link) => path.startsWith(`${link.path}/`));
            if (below) throw new UnsafeArchiveEntryError(path, `it lies below the symbolic link '${below.path}'`);
            const absolute = join(dir, path);
            if (event.entry.type === 'directory') {
              await mkdir(absolute, { recursive: true });
              await chmod(absolute, 0o755);
              directories.add(path);
            } else if (event.entry.type === 'file') {
              const parent = posix.dirname(path);
              if (parent !== '.' && !directories.has(parent)) {
                await mkdir(join(dir, parent), { recursive: true });
                directories.add(parent);
              }
              const mode = event.entry.mode & 0o100 ? 0o755 : 0o644;
              file = { handle: await open(absolute, 'wx', mode), path: absolute, mode };
            } else {
              links.push({ path, target: safeLinkTarget(path, event.entry.target ?? '') });
            }
          }
        }
      }
      reader.finish();
    });
    const actual = hash.digest('hex');
    if (actual !== expectedSha256.toLowerCase()) throw new ArtifactDigestMismatchError(label, expectedSha256.toLowerCase(), actual);
    for (const link of links) {
      const absolute = join(dir, link.path);
      await mkdir(join(absolute, '..'), { recursive: true });
      await symlink(link.target, absolute);
    }
    for (const link of links) {
      if (await leavesRoot(dir, link.path)) throw new UnsafeArchiveEntryError(link.path, `its target '${link.target}' leads out of the target directory through other links`);
    }
    return { entries, tarSize };
  } catch (error) {
    await (file as { handle: FileHandle } | null)?.handle.close().catch(() => {});
    await emptyDirectory(dir);
    const code = (error as { code?: string }).code;
    if (code === 'Z_DATA_ERROR' || code === 'Z_BUF_ERROR') throw new MalformedArchiveError(`the gzip stream is corrupt (${(error as Error).message})`);
    // The same path twice, or a path below a file: the filesystem says so first.
    if (code === 'EEXIST' || code === 'ENOTDIR') throw new MalformedArchiveError(`two entries collide (${(error as Error).message})`);
    throw error;
  }
}

/** The entry's path with `.` components dropped; refuses absolute paths, `..` and NUL. */
function safePath(path: string): string {
  if (path.includes('\u0000')) throw new UnsafeArchiveEntryError(path, 'its name contains a NUL byte');
  if (path.startsWith('/')) throw new UnsafeArchiveEntryError(path, 'it is an absolute path');
  const parts = path.split('/').filter((part) => part !== '' && part !== '.');
  if (parts.includes('..')) throw new UnsafeArchiveEntryError(path, "it contains '..'");
  return parts.join('/');
}

/** A link target that stays inside the tree when read from the link's own directory. */
function safeLinkTarget(path: string, target: string): string {
  const problem = linkTargetProblem(path, target);
  if (problem !== null) throw new UnsafeArchiveEntryError(path, problem);
  return target;
}

/** Why the link at `path` to `target` would lead out of its tree on paper, or null when it stays inside. */
function linkTargetProblem(path: string, target: string): string | null {
  if (target === '' || target.includes('\u0000')) return 'its link target is empty or contains a NUL byte';
  if (isAbsolute(target)) return `its link target '${target}' is an absolute path`;
  const resolved = posix.normalize(posix.join(posix.dirname(path), target));
  if (resolved === '..' || resolved.startsWith('../')) return `its link target '${target}' leads out of the tree`;
  return null;
}

/** The most links one resolution follows before it counts as a loop (Linux's own limit). */
const MAX_LINK_HOPS = 40;

/**
 * Whether resolving `path` inside `root`, following links as the kernel would, ever steps above `root` (or loops).
 * Lexical checks alone miss `a/l1 -> ..` combined with `a/l2 -> l1/..`: each stays inside on paper.
 */
async function leavesRoot(root: string, path: string): Promise<boolean> {
  const resolved: string[] = [];
  let pending = path.split('/');
  let hops = 0;
  while (pending.length > 0) {
    const part = pending.shift()!;
    if (part === '' || part === '.') continue;
    if (part === '..') {
      if (resolved.length === 0) return true;
      resolved.pop();
      continue;
    }
    resolved.push(part);
    const here = join(root, ...resolved);
    const stat = await lstat(here).catch(() => null);
    if (stat?.isSymbolicLink()) {
      if (++hops > MAX_LINK_HOPS) return true;
      const target = await readlink(here);
      if (isAbsolute(target)) return true;
      resolved.pop();
      pending = [...target.split('/'), ...pending];
    }
  }
  return false;
}

async function writeAll(handle: FileHandle, bytes: Uint8Array): Promise<void> {
  let offset = 0;
  while (offset < bytes.byteLength) offset += (await handle.write(bytes, offset, bytes.byteLength - offset)).bytesWritten;
}

/** The sha256 of a gzip-compressed tarball's tar stream, computed while reading it, nothing written. */
export async function tarballSha256(source: AsyncIterable<Uint8Array>): Promise<string> {
  const hash = createHash('sha256');
  await pipeline(Readable.from(source), createGunzip(), async (tar: AsyncIterable<Uint8Array>) => {
    for await (const piece of tar) hash.update(piece);
  });
  return hash.digest('hex');
}

/** App artifacts as gzip-compressed deterministic tarballs. */
export const tarballArchive: TreeArchive = { pack: packTree, unpack: unpackTarball, sha256: tarballSha256 };
