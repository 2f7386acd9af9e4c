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

/** Bad input from the user (arguments, URLs, config): the message says what is wrong and what would be right. */
export class UsageError extends WalrusGitError {
  constructor(message: string, data: Record<string, unknown> = {}) {
    super('USAGE', message, data);
  }
}

/** The message of anything thrown: an Error's message, else its string form. */
export function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
