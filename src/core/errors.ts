/**
 * Base of every error this project throws on purpose. `code` is stable (match on it, never on the message);
 * `data` carries what the user needs to fix the problem; `retryable` marks transient storage or network faults.
 */
export class WalrusGitError extends Error {
  readonly code: string;
  readonly data: Record<string, unknown>;
  readonly retryable: boolean;

  constructor(code: string, message: string, data: Record<string, unknown> = {}, options: { retryable?: boolean; cause?: unknown } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = new.target.name;
    this.code = code;
    this.data = data;
    this.retryable = options.retryable ?? false;
  }
}

/** A bug in this project, not something the user can fix: the message asks for a report. */
export class InternalError extends WalrusGitError {
  constructor(message: string, data: Record<string, unknown> = {}) {
    super('INTERNAL', `internal error: ${message} (please report this at the project's issue tracker)`, data);
  }
}

/**
 * Bad input from the user (arguments, URLs, config): the message says what is wrong and what would be right.
 * What to do: the message says what is wrong and what would be right.
 */
export class UsageError extends WalrusGitError {
  constructor(message: string, data: Record<string, unknown> = {}) {
    super('USAGE', message, data);
  }
}

/** What a file-system error code means for the user, for the codes a user's setup causes. */
const FILE_PROBLEMS: Record<string, string> = {
  EACCES: 'permission denied', EPERM: 'operation not permitted', EROFS: 'the file system is read-only',
  ENOTDIR: 'a part of the path is a file, not a directory', EISDIR: 'it is a directory', ENOSPC: 'no space left on the device',
};

/**
 * A file or directory the user's setup makes unusable (permissions, a file where a directory belongs, a full disk):
 * the user's to fix, never a defect of ours.
 */
export class FileAccessError extends WalrusGitError {
  constructor(path: string, problem: string, code: string) {
    super('FILE_ACCESS', `cannot use ${path}: ${problem} (${code}); fix its permissions or type, or point GIT_WALRUS_HOME (default ~/.git-walrus) at a directory you can write`, { path, code });
  }
}

/** A Node file-system error the user's setup caused, as a FileAccessError; anything else as it is. */
export function fileAccessErrorOf(error: unknown): unknown {
  const { code, path } = (error ?? {}) as { code?: unknown; path?: unknown };
  if (typeof code !== 'string' || typeof path !== 'string' || FILE_PROBLEMS[code] === undefined) return error;
  return new FileAccessError(path, FILE_PROBLEMS[code], code);
}

/** The message of anything thrown: an Error's message, else its string form. */
export function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
