/**
 * Domain errors. Services throw them; the API's one error middleware turns them into the envelope
 * `{ code, message, details? }` with the status each class carries. The admin CLI prints their message.
 */

/** One problem with a request, as listed in `details.issues`. */
export interface Issue {
  code: string;
  path: string;
  message: string;
}

export type ErrorCode =
  | 'bad_request'
  | 'unauthorized'
  | 'forbidden'
  | 'not_found'
  | 'conflict'
  | 'conversation_claimed'
  | 'precondition_failed'
  | 'payload_too_large'
  | 'rate_limited'
  | 'internal'
  | 'invalid_credentials'
  | 'csrf_token_invalid'
  | 'sign_in_locked';

export class AppError extends Error {
  constructor(
    readonly status: number,
    readonly code: ErrorCode,
    message: string,
    readonly details?: Record<string, unknown>,
  ) {
    super(message);
    this.name = new.target.name;
  }
}

export class BadRequestError extends AppError {
  /** `issues` lists each problem; a plain path stands for one issue `{ code: 'invalid', path, message }`. */
  constructor(message: string, issues?: Issue[] | string) {
    const list = typeof issues === 'string' ? [{ code: 'invalid', path: issues, message }] : issues;
    super(400, 'bad_request', message, list ? { issues: list } : undefined);
  }
}

export class UnauthorizedError extends AppError {
  constructor(message: string) {
    super(401, 'unauthorized', message);
  }
}

export class ForbiddenError extends AppError {
  constructor(message: string) {
    super(403, 'forbidden', message);
  }
}

/**
 * A sign-in (or a password change) with a wrong password: the same answer whether the email is unknown or the password
 * wrong, so the answer never tells which emails have users.
 */
export class InvalidCredentialsError extends AppError {
  constructor(message = 'Wrong email or password', status: 401 | 403 = 401) {
    super(status, 'invalid_credentials', message);
  }
}

/** A write authenticated by the session cookie without the session's `X-CSRF-Token`: another site may have sent it. */
export class CsrfTokenError extends AppError {
  constructor() {
    super(403, 'csrf_token_invalid', "A request authenticated by the session cookie must send the header X-CSRF-Token with the session's token");
  }
}

export class NotFoundError extends AppError {
  constructor(message: string) {
    super(404, 'not_found', message);
  }
}

export class ConflictError extends AppError {
  constructor(message: string, details?: Record<string, unknown>) {
    super(409, 'conflict', message, details);
  }
}

/** Another user of the account holds the conversation's claim (they answer it): take it over explicitly, or leave it. */
export class ConversationClaimedError extends AppError {
  constructor(message: string, details: Record<string, unknown>) {
    super(409, 'conversation_claimed', message, details);
  }
}

/** An `If-Match` that no longer matches the document: it changed since the client read it, and nothing was written. */
export class PreconditionFailedError extends AppError {
  constructor(message: string) {
    super(412, 'precondition_failed', message);
  }
}

export class PayloadTooLargeError extends AppError {
  constructor(limitBytes: number) {
    super(413, 'payload_too_large', `Request body exceeds the limit of ${limitBytes} bytes`);
  }
}

/** A body whose Content-Type the endpoint does not accept (the code stays `bad_request`, as for any client fault). */
export class UnsupportedMediaTypeError extends AppError {
  constructor(message: string) {
    super(415, 'bad_request', message);
  }
}

/**
 * A service agentry depends on (the third-party trigger provider) failed or could not be reached. Not the caller's
 * fault and not agentry's own bug either: 502, with the envelope code `internal` and a message naming the service.
 */
export class BadGatewayError extends AppError {
  constructor(message: string) {
    super(502, 'internal', message);
  }
}

/**
 * A service agentry runs on (PostgreSQL, Temporal, the AI gateway) is not configured or not answering: 503, the caller
 * may retry (after `retryAfterSeconds`, sent as `Retry-After`, when given).
 */
export class ServiceUnavailableError extends AppError {
  constructor(
    message: string,
    readonly retryAfterSeconds?: number,
  ) {
    super(503, 'internal', message);
  }
}

/** PostgreSQL cannot be reached or dropped the connection (down, restarting, recovering from a crash). */
export class DatabaseUnavailableError extends ServiceUnavailableError {
  constructor() {
    super('The database is unavailable; retry later', 5);
  }
}

/**
 * A permanent failure of a node (retrying cannot help): the node fails at once with `message`, a non-retryable
 * Temporal failure of `type` (the executeNode activity maps it).
 */
export class NodeError extends Error {
  constructor(
    message: string,
    readonly type = 'NodeFailed',
  ) {
    super(message);
    this.name = 'NodeError';
  }
}
