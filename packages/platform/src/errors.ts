import { msg } from '@aigw/contracts';

/**
 * The error taxonomy (style rule 6, CONTRIBUTING.md): a stable machine `code`, an HTTP status, and
 * whether the error is worth reporting. Route handlers throw these; the one error handler of the
 * process turns them into the envelope (console) or the provider error shape (relay).
 */
export class AppError extends Error {
  constructor(
    message: string,
    readonly code: string,
    /** HTTP status of the answer. Console business failures use 200 with success=false. */
    readonly statusCode: number,
    /** Operational trouble is logged at error level; user mistakes are not. */
    readonly report: boolean,
  ) {
    super(message);
    this.name = new.target.name;
  }
}

/** Bad input or a broken business rule. The message is shown to the user: on console routes a `msg(id)` of the catalogue. */
export class UserError extends AppError {
  constructor(
    message: string,
    code = 'invalid_request',
    statusCode = 200,
    /** The request field at fault, when one is (OpenAI's error `param` on relay paths). */
    readonly param?: string,
  ) {
    super(message, code, statusCode, false);
  }
}

/** Not logged in, or the New-Api-User header does not match the credential. */
export class UnauthorizedError extends AppError {
  constructor(message = msg('common.unauthorized')) {
    super(message, 'unauthorized', 401, false);
  }
}

/** Logged in, but the role does not allow it. */
export class ForbiddenError extends AppError {
  constructor(message = msg('common.forbidden')) {
    super(message, 'forbidden', 403, false);
  }
}

export class NotFoundError extends AppError {
  constructor(message = msg('common.not_found'), statusCode = 404) {
    super(message, 'not_found', statusCode, false);
  }
}

export class TooManyRequestsError extends AppError {
  constructor(message = msg('common.too_many_requests')) {
    super(message, 'rate_limited', 429, false);
  }
}

/** Trouble with a dependency (database, bus, upstream). The message is not shown to users. */
export class OperationalError extends AppError {
  constructor(
    message: string,
    code = 'operational_error',
    statusCode = 503,
    override readonly cause?: unknown,
  ) {
    super(message, code, statusCode, true);
  }
}
