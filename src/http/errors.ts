/** The `error.code` values of the public interface. */
export type ErrorCode =
  | 'bad_request'
  | 'unauthorized'
  | 'forbidden'
  | 'not_found'
  | 'conflict'
  | 'rate_limited'
  | 'quota_exceeded'
  | 'internal';

/** operations.md section 5: one status per code. */
export const codeToStatus: Record<ErrorCode, number> = {
  bad_request: 400,
  unauthorized: 401,
  forbidden: 403,
  not_found: 404,
  conflict: 409,
  quota_exceeded: 402,
  rate_limited: 429,
  internal: 500,
};

export type ErrorDetails = Record<string, string>;

/** An error a client caused or may see; the error handler turns it into the error body. */
export class AppError extends Error {
  readonly code: ErrorCode;
  readonly details: ErrorDetails | undefined;
  /** The HTTP status; HTTP-level refusals (405, 413, 415, 431) keep code `bad_request`. */
  readonly statusCode: number;

  constructor(code: ErrorCode, message: string, details?: ErrorDetails, statusCode?: number) {
    super(message);
    this.name = 'AppError';
    this.code = code;
    this.details = details;
    this.statusCode = statusCode ?? codeToStatus[code];
  }
}

export class BadRequestError extends AppError {
  constructor(message: string, details?: ErrorDetails) {
    super('bad_request', message, details);
  }
}

export class UnauthorizedError extends AppError {
  constructor(message: string) {
    super('unauthorized', message);
  }
}

export class ForbiddenError extends AppError {
  constructor(message: string) {
    super('forbidden', message);
  }
}

export class NotFoundError extends AppError {
  constructor(message: string) {
    super('not_found', message);
  }
}

export class ConflictError extends AppError {
  constructor(message: string) {
    super('conflict', message);
  }
}

export class RateLimitedError extends AppError {
  readonly retryAfterSeconds: number;

  constructor(retryAfterSeconds: number) {
    super('rate_limited', `rate limit exceeded: retry in ${retryAfterSeconds} seconds`);
    this.retryAfterSeconds = retryAfterSeconds;
  }
}
