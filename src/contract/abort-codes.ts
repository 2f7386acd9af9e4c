/**
 * Abort codes of the `walrus_git` Move package, name → number. Identical to the `const E…: u64` constants in
 * contracts/sources/repository.move (a test reads the Move source and compares): clients match on these, never on
 * message text.
 */
import { WalrusGitError } from '../core/errors.ts';

export const AbortCode = {
  /** The object was created by another package version: call the current package. */
  EWrongVersion: 0,
  /** Only the repository owner may do this. */
  ENotOwner: 1,
  /** Only the owner and the writers may push or repack. */
  ENotWriter: 2,
  /** Repository names are 1–100 characters of [A-Za-z0-9._-] and do not start with '.'. */
  EInvalidName: 3,
  /** The owner already has a repository with this name. */
  ENameTaken: 4,
  /** HEAD must name a valid ref under refs/. */
  EInvalidHead: 5,
  /** names, olds, news and forces must have the same length. */
  ELengthMismatch: 6,
  /** A push must update at least one ref. */
  EEmptyUpdate: 7,
  /** A ref name is not a valid git ref name under refs/. */
  EInvalidRefName: 8,
  /** The same ref appears twice in one push. */
  EDuplicateRef: 9,
  /** An update whose old and new values are both none changes nothing. */
  EInvalidUpdate: 10,
  /** Object ids are 20 (SHA-1) or 32 (SHA-256) bytes. */
  EBadHashLen: 11,
  /** All object ids of a repository have one length. */
  EHashLenMismatch: 12,
  /** Compare-and-swap failed: the ref is missing or holds another value than `old`. */
  ERefMismatch: 13,
  /** `old` is none (create) but the ref exists. */
  ERefExists: 14,
  /** Only the owner may force-update or delete a protected ref. */
  EProtected: 15,
  /** A pack entry needs at least one chunk, a size above zero and a 32-byte sha256. */
  EInvalidPack: 16,
  /** `live_from` may not move backwards nor past the consolidated pack. */
  EBadLiveFrom: 17,
  /** The writer list is full. */
  ETooManyWriters: 18,
  /** The address is already a writer (or the owner). */
  EAlreadyWriter: 19,
  /** The address is not a writer. */
  ENotAWriter: 20,
  /** The protected-ref list is full. */
  ETooManyProtected: 21,
  /** The ref is already protected. */
  EAlreadyProtected: 22,
  /** The ref is not protected. */
  ENotProtected: 23,
  /** The new owner is the current owner. */
  ESameOwner: 24,
  /** Readers exist only on private repositories (anyone reads a public one). */
  ENotPrivate: 25,
  /** The reader list is full. */
  ETooManyReaders: 26,
  /** The address is already a reader (or the owner). */
  EAlreadyReader: 27,
  /** The address is not a reader. */
  ENotAReader: 28,
  /** A pack of a private repository must carry its sealed data key. */
  ESealedKeyRequired: 29,
  /** A pack of a public repository carries no sealed key. */
  EUnexpectedSealedKey: 30,
  /** A Seal key id must begin with the repository's id bytes. */
  EWrongKeyId: 31,
  /** Only the owner, the writers and the readers may decrypt a repository's packs. */
  ENoAccess: 32,
  /** The repository moved on (a push or another repack landed) since the consolidated pack was built: nothing changed; build it again from the new state. */
  EStaleRepack: 33,
  /** A push would leave one ref as a directory of another (`refs/heads/main` and `refs/heads/main/x`): git cannot hold both. */
  ERefClash: 34,
} as const;

export type AbortName = keyof typeof AbortCode;

const namesByCode = new Map<number, AbortName>(
  (Object.entries(AbortCode) as [AbortName, number][]).map(([name, code]) => [code, name]),
);

/** The constant's name for an abort code of our package, or undefined for a code we never raise. */
export function abortName(code: number): AbortName | undefined {
  return namesByCode.get(code);
}

/**
 * A Move abort raised by the contract model (the chain engine turns it into a failed transaction with
 * `MoveAbort(location, code)`). `module` is the module name inside our package (e.g. `repository`).
 * What to do: nothing by itself: the devnet reports it as the transaction's MoveAbort, and the command's own error says what to do.
 */
export class MoveAbort<Name extends string = AbortName> extends WalrusGitError {
  readonly module: string;
  readonly functionName: string;
  readonly abortCode: number;
  readonly abortName: Name;

  /** `code`: the constant's number in `module` (the repository's table by default; other modules pass their own). */
  constructor(module: string, functionName: string, name: Name, code: number = AbortCode[name as unknown as AbortName]) {
    super('MOVE_ABORT', `${module}::${functionName} aborted with ${name} (${code})`, { module, functionName, abortCode: code, abortName: name });
    this.module = module;
    this.functionName = functionName;
    this.abortCode = code;
    this.abortName = name;
  }
}
