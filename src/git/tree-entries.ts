/**
 * Git tree objects read as git stores them: `<octal mode> <name>\0<20-byte id>` repeated. A name is data here, any
 * bytes but NUL and `/`: what a checkout on some system would refuse (`a\b.txt`, `git~1`, `x:stream`) is still part
 * of a valid history, so reading never filters names (git's own fsck only warns about them).
 */
import { WalrusGitError } from '../core/errors.ts';

export interface TreeEntry {
  mode: string;
  name: string;
  oid: string;
  /** What the entry points at: a subtree, a file or link (blob), or a submodule's commit. */
  type: 'tree' | 'blob' | 'commit';
}

/** A tree object whose bytes do not follow git's format. */
export class MalformedTreeError extends WalrusGitError {
  constructor(oid: string, reason: string) {
    super('TREE_MALFORMED', `tree ${oid} is malformed: ${reason}`, { oid, reason });
  }
}

const OID_BYTES = 20;
const decoder = new TextDecoder();

/** The entries of tree `oid` from its raw content, in stored order. */
export function parseTree(oid: string, bytes: Uint8Array): TreeEntry[] {
  const entries: TreeEntry[] = [];
  let at = 0;
  while (at < bytes.length) {
    const space = bytes.indexOf(0x20, at);
    const nul = space === -1 ? -1 : bytes.indexOf(0, space + 1);
    if (space === -1 || nul === -1) throw new MalformedTreeError(oid, `an entry at byte ${at} has no mode or name`);
    if (nul + 1 + OID_BYTES > bytes.length) throw new MalformedTreeError(oid, `the entry at byte ${at} ends before its object id`);
    const mode = decoder.decode(bytes.subarray(at, space));
    entries.push({
      mode,
      name: decoder.decode(bytes.subarray(space + 1, nul)),
      oid: Buffer.from(bytes.subarray(nul + 1, nul + 1 + OID_BYTES)).toString('hex'),
      type: typeOfMode(oid, mode),
    });
    at = nul + 1 + OID_BYTES;
  }
  return entries;
}

/** git's reading of a mode: 40000 a tree, 160000 a submodule, 100xxx and 120000 a blob (old repositories hold 100664). */
function typeOfMode(oid: string, mode: string): TreeEntry['type'] {
  if (mode === '40000' || mode === '040000') return 'tree';
  if (mode === '160000') return 'commit';
  if (/^10[0-7]{4}$/.test(mode) || mode === '120000') return 'blob';
  throw new MalformedTreeError(oid, `an entry has the mode ${JSON.stringify(mode)}, which git does not write`);
}
