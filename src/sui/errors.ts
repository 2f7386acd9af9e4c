import { WalrusGitError } from '../core/errors.ts';
import type { AbortName } from '../contract/abort-codes.ts';
import { REF_NAME_RULE } from '../contract/ref-name.ts';

/**
 * Typed errors of the repository ledger. A transaction our package aborts becomes one class per group of abort
 * constants, chosen by the constant's name (never by the raw number alone); `data.abortName` keeps the exact
 * constant, `data.digest` the failed transaction, so `git walrus log`-style tools can point at it.
 */

export interface AbortDetails {
  abortName: AbortName;
  abortCode: number;
  module: string;
  functionName: string;
  /** The failed transaction, when it reached the chain (aborts found while estimating gas have none). */
  digest: string | null;
}

/**
 * Base of the errors that come from a Move abort in our package.
 * What to do: the abort's constant (contracts/README.md lists them) says which check refused the transaction.
 */
export class ContractAbortError extends WalrusGitError {
  readonly abort: AbortDetails;
  constructor(code: string, message: string, abort: AbortDetails, data: Record<string, unknown> = {}) {
    super(code, `${message} (${abort.module}::${abort.functionName} aborted with ${abort.abortName})`, { ...abort, ...data });
    this.abort = abort;
  }
}

/**
 * A ref held another value than the push expected (`ERefMismatch`), a ref to create already exists (`ERefExists`),
 * or a ref to create would stand beside another as file and directory (`ERefClash`).
 */
export class RefConflictError extends ContractAbortError {
  readonly refs: string[];
  readonly check: 'mismatch' | 'exists' | 'clash';
  constructor(abort: AbortDetails, refs: string[]) {
    const check = abort.abortName === 'ERefExists' ? 'exists' : abort.abortName === 'ERefClash' ? 'clash' : 'mismatch';
    const what = check === 'exists' ? 'a ref to create already exists'
      : check === 'clash' ? 'a ref to create would stand beside another as file and directory (refs/heads/a and refs/heads/a/b), which git cannot hold'
        : 'a ref no longer holds the expected value';
    super('REF_CONFLICT', `push refused: ${what} among ${refs.join(', ')}; fetch and retry`, abort, { refs, check });
    this.refs = refs;
    this.check = check;
  }
}

/** The sender may not push to this repository (`ENotWriter`). */
export class NotWriterError extends ContractAbortError {
  readonly owner: string;
  constructor(abort: AbortDetails, sender: string, owner: string) {
    super('NOT_WRITER', `${sender} may not push to this repository: ask its owner ${owner} to run \`git walrus writers add ${sender}\``, abort, { sender, owner });
    this.owner = owner;
  }
}

/**
 * Only the owner may do this (`ENotOwner`).
 * What to do: ask the repository's owner to do it.
 */
export class NotOwnerError extends ContractAbortError {
  readonly owner: string;
  constructor(abort: AbortDetails, sender: string, owner: string) {
    super('NOT_OWNER', `only the repository owner ${owner} may do this, not ${sender}`, abort, { sender, owner });
    this.owner = owner;
  }
}

/**
 * Force-updating or deleting a protected ref needs the owner (`EProtected`).
 * What to do: push without force, or ask the owner (who may also `git walrus unprotect` the ref).
 */
export class ProtectedRefError extends ContractAbortError {
  readonly refs: string[];
  constructor(abort: AbortDetails, refs: string[]) {
    super('PROTECTED_REF', `a protected ref among ${refs.join(', ')} may only be force-updated or deleted by the owner`, abort, { refs });
    this.refs = refs;
  }
}

/**
 * The owner already has a repository of that name (`ENameTaken`).
 * What to do: choose another name, or use the existing repository (`walrus://<owner>/<name>`).
 */
export class NameTakenError extends ContractAbortError {
  constructor(abort: AbortDetails, owner: string, name: string) {
    super('NAME_TAKEN', `${owner} already has a repository named '${name}'`, abort, { owner, name });
  }
}

/**
 * A repository, ref or HEAD name the contract does not accept (`EInvalidName`, `EInvalidRefName`, `EInvalidHead`).
 * What to do: choose a name the rule in the message allows.
 */
export class InvalidNameError extends ContractAbortError {
  constructor(abort: AbortDetails, names: string[]) {
    const rule = abort.abortName === 'EInvalidName'
      ? 'repository names are 1-100 characters of A-Z a-z 0-9 . _ - and do not start with a dot'
      : `ref names: ${REF_NAME_RULE}`;
    super('INVALID_NAME', `invalid name among ${names.join(', ')}: ${rule}`, abort, { names });
  }
}

/**
 * Object ids of the wrong length for the repository (`EBadHashLen`, `EHashLenMismatch`).
 * What to do: push from a repository of the remote's object format (SHA-1 or SHA-256, as `git clone` of the remote makes it).
 */
export class HashLengthError extends ContractAbortError {
  constructor(abort: AbortDetails) {
    super('HASH_LENGTH', 'object ids must be 20 bytes (SHA-1) or 32 bytes (SHA-256), the same for the whole repository', abort);
  }
}

/**
 * A malformed update the contract refuses (length mismatch, empty, duplicate ref, no-op update, bad pack, bad live_from).
 * What to do: update git-remote-walrus (a current one never sends such an update), and report it if it persists.
 */
export class InvalidUpdateError extends ContractAbortError {
  constructor(abort: AbortDetails) {
    const why: Partial<Record<AbortName, string>> = {
      ELengthMismatch: 'names, old and new values and force flags differ in length',
      EEmptyUpdate: 'a push must update at least one ref',
      EDuplicateRef: 'the same ref appears twice in one push',
      EInvalidUpdate: 'an update with neither old nor new value changes nothing',
      EInvalidPack: 'a pack entry needs at least one chunk, a size above zero and a 32-byte sha256',
      EBadLiveFrom: 'live_from may not move backwards nor past the consolidated pack',
      ESealedKeyRequired: 'a pack of a private repository must carry its sealed data key (upgrade git-remote-walrus)',
      EUnexpectedSealedKey: 'a pack of a public repository carries no sealed key',
    };
    super('INVALID_UPDATE', why[abort.abortName] ?? 'invalid update', abort);
  }
}

/**
 * The writer, reader or protected-ref list is full (`ETooManyWriters`, `ETooManyReaders`, `ETooManyProtected`).
 * What to do: remove an entry first (`git walrus writers remove`, `readers remove`, `unprotect`).
 */
export class LimitReachedError extends ContractAbortError {
  constructor(abort: AbortDetails) {
    const list = { ETooManyWriters: 'writer', ETooManyReaders: 'reader' } as Partial<Record<AbortName, string>>;
    super('LIMIT_REACHED', `the ${list[abort.abortName] ?? 'protected-ref'} list is full`, abort);
  }
}

/**
 * Readers belong to private repositories only: anyone reads a public one (`ENotPrivate`).
 * What to do: readers belong to private repositories (`git walrus init --private`); a public one needs none.
 */
export class NotPrivateError extends ContractAbortError {
  constructor(abort: AbortDetails) {
    super('NOT_PRIVATE', 'the repository is public: anyone may read it, so it has no readers', abort);
  }
}

/**
 * A repack lost its compare-and-swap (`EStaleRepack`): a push (or another repack) landed after the consolidated pack
 * was built, so the repository is no longer at the seq it was built from. Nothing changed; `git walrus gc` builds the
 * pack again from the new state.
 */
export class StaleRepackError extends ContractAbortError {
  constructor(abort: AbortDetails, expectedSeq: number | null) {
    const at = expectedSeq === null ? '' : ` at seq ${expectedSeq}`;
    super('STALE_REPACK', `repack refused: the repository moved on since the consolidated pack was built${at}; nothing changed, run gc again`, abort, { expectedSeq });
  }
}

/**
 * The change is already in effect, or there is nothing to undo (already a writer, not protected, same owner…).
 * What to do: nothing: the change is already in effect.
 */
export class NoChangeError extends ContractAbortError {
  constructor(abort: AbortDetails, subject: string) {
    const why: Partial<Record<AbortName, string>> = {
      EAlreadyWriter: `${subject} is already a writer (or the owner)`,
      ENotAWriter: `${subject} is not a writer`,
      EAlreadyProtected: `${subject} is already protected`,
      ENotProtected: `${subject} is not protected`,
      ESameOwner: `${subject} already owns the repository`,
      EAlreadyReader: `${subject} is already a reader (or the owner)`,
      ENotAReader: `${subject} is not a reader`,
    };
    super('NO_CHANGE', why[abort.abortName] ?? 'nothing to change', abort, { subject });
  }
}

/** The object was made by another version of the package (`EWrongVersion`): this client is out of date. */
export class PackageVersionError extends ContractAbortError {
  constructor(abort: AbortDetails) {
    super('PACKAGE_VERSION', 'the repository belongs to another version of the git-walrus package: upgrade git-remote-walrus', abort);
  }
}

/** What to do: check the URL and the network (`git walrus whoami` names it). */
export class RepositoryNotFoundError extends WalrusGitError {
  constructor(locator: string, why: string) {
    super('REPOSITORY_NOT_FOUND', `repository ${locator} not found: ${why}`, { locator });
  }
}

/** The signer cannot pay for the transaction: fund the address (faucet on test networks). */
export class InsufficientGasError extends WalrusGitError {
  constructor(address: string, detail: string) {
    super('INSUFFICIENT_GAS', `${address} has not enough SUI to pay for the transaction (${detail}); fund it, e.g. from the network's faucet`, { address, detail });
  }
}

/**
 * A transaction that failed or was refused for a reason other than the above.
 * What to do: read the detail; check the signer's SUI balance (gas) and run the command again.
 */
export class TransactionFailedError extends WalrusGitError {
  constructor(what: string, detail: string, data: Record<string, unknown> = {}, retryable = false) {
    super('TRANSACTION_FAILED', `${what} failed: ${detail}`, { detail, ...data }, { retryable });
  }
}
