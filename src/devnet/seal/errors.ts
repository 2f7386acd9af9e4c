/**
 * How the devnet key servers fail, as the real one does (MystenLabs/seal `crates/key-server/src/errors.rs`): a JSON
 * body `{"error": <name>, "message": …}` with the error's status; and axum's own plain-text rejections of a body.
 * Kept apart from the cryptography so that opening the key servers loads none of it.
 */

/** An error answered the way the real key server answers it: `{"error": name, "message": …}` with its status. */
export class KeyServerError extends Error {
  readonly status: number;
  readonly error: string;
  constructor(status: number, error: string, message: string) {
    super(message);
    this.status = status;
    this.error = error;
  }
}

export const forbidden = (error: string, message: string) => new KeyServerError(403, error, message);
export const invalidPtb = (why: string) => forbidden('InvalidPTB', `Invalid PTB: ${why}`);
export const noAccess = (why: string) => forbidden('NoAccess', `Access denied: ${why}`);
export const invalidParameter = (why: string) => forbidden('InvalidParameter', `Invalid parameter to PTB: ${why}`);
export const failure = () => new KeyServerError(503, 'Failure', 'Internal server error, please try again later');

/** A body serde could not turn into the request type: axum's 422 rejection, in its plain-text wording. */
export class BodyRejection extends Error {
  readonly status = 422;
}

/** axum's own rejections of a request body (plain text, before any of the server's checks). */
export class PlainRejection extends Error {
  readonly status: number;
  constructor(status: number, message: string) {
    super(message);
    this.status = status;
  }
}
