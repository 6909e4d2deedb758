/**
 * The one error middleware: every failure leaves the API as `{ code, message, details? }`.
 * Domain errors carry their status; ORM and Temporal errors are mapped here, PostgreSQL being unreachable to a 503
 * with Retry-After; anything else is a 500 whose details stay in the server log (with the request id), never in the
 * response.
 */
import { ForeignKeyConstraintViolationException, NotFoundError as OrmNotFoundError, UniqueConstraintViolationException } from '@mikro-orm/core';
import { WorkflowExecutionAlreadyStartedError, WorkflowNotFoundError } from '@temporalio/common';
import type { Middleware } from 'koa';
import { databaseUnavailable } from '../db/database.js';
import { AppError, DatabaseUnavailableError, ServiceUnavailableError, type ErrorCode } from '../lib/errors.js';
import { RateLimitedError } from './rate-limit.js';

export interface ErrorBody {
  code: ErrorCode;
  message: string;
  details?: Record<string, unknown>;
}

/** Logger the API writes unexpected errors to. */
export type ErrorLogger = (message: string, error: unknown) => void;

const HTTP_CODES: Record<number, ErrorCode> = {
  400: 'bad_request',
  401: 'unauthorized',
  403: 'forbidden',
  404: 'not_found',
  405: 'bad_request',
  409: 'conflict',
  412: 'precondition_failed',
  413: 'payload_too_large',
  415: 'bad_request',
  429: 'rate_limited',
};

/** Errors raised by Koa or body parsing (http-errors), whose status and message are safe to show. */
interface HttpError {
  status: number;
  expose?: boolean;
  message: string;
}

function isHttpError(error: unknown): error is HttpError {
  const status = (error as HttpError | null)?.status;
  return typeof status === 'number' && status >= 400 && status < 500;
}

function httpErrorBody(error: HttpError): ErrorBody {
  return { code: HTTP_CODES[error.status] ?? 'bad_request', message: error.expose === false ? 'Bad request' : error.message };
}

/** PostgreSQL errors raised by raw SQL (row tables) that are the caller's doing or a race, not a server fault. */
const POSTGRES_ERRORS: Record<string, [number, ErrorCode, string]> = {
  '23505': [409, 'conflict', 'Another record already has this value of a unique field'],
  '23503': [409, 'conflict', 'The record is referenced by, or references, a record that does not exist'],
  '42703': [409, 'conflict', 'The table changed while the request ran; retry it'],
  '42P01': [409, 'conflict', 'The table changed while the request ran; retry it'],
  '40P01': [409, 'conflict', 'The request collided with a concurrent change; retry it'],
  '22': [400, 'bad_request', 'A value is out of range or malformed for its field'],
};

function postgresCode(error: unknown): string | undefined {
  const e = error as { code?: unknown; severity?: unknown };
  return typeof e?.code === 'string' && /^[0-9A-Z]{5}$/.test(e.code) && typeof e.severity === 'string' ? e.code : undefined;
}

/** Maps a thrown value to a status and an envelope. */
export function toErrorResponse(error: unknown): { status: number; body: ErrorBody } | null {
  if (error instanceof AppError) {
    const body: ErrorBody = { code: error.code, message: error.message };
    if (error.details) body.details = error.details;
    return { status: error.status, body };
  }
  if (error instanceof OrmNotFoundError || error instanceof WorkflowNotFoundError) {
    return { status: 404, body: { code: 'not_found', message: 'Resource not found' } };
  }
  if (error instanceof UniqueConstraintViolationException) {
    return { status: 409, body: { code: 'conflict', message: 'A resource with the same unique value already exists' } };
  }
  if (error instanceof ForeignKeyConstraintViolationException) {
    return { status: 409, body: { code: 'conflict', message: 'The resource is referenced by, or references, another resource' } };
  }
  if (error instanceof WorkflowExecutionAlreadyStartedError) {
    return { status: 409, body: { code: 'conflict', message: 'That run has already been started' } };
  }
  const pgCode = postgresCode(error);
  if (pgCode) {
    const mapped = POSTGRES_ERRORS[pgCode] ?? (pgCode.startsWith('22') ? POSTGRES_ERRORS['22'] : undefined);
    if (mapped) return { status: mapped[0], body: { code: mapped[1], message: mapped[2] } };
  }
  if (isHttpError(error)) return { status: error.status, body: httpErrorBody(error) };
  return null;
}

export function errorHandler(log: ErrorLogger): Middleware {
  return async (ctx, next) => {
    try {
      await next();
      if (ctx.status === 404 && ctx.body === undefined) {
        ctx.status = 404;
        ctx.body = { code: 'not_found', message: `No route for ${ctx.method} ${ctx.path}` } satisfies ErrorBody;
      }
    } catch (thrown) {
      const error = databaseUnavailable(thrown) ? new DatabaseUnavailableError() : thrown;
      const mapped = toErrorResponse(error);
      if (mapped) {
        ctx.status = mapped.status;
        ctx.body = mapped.body;
        if (mapped.status === 401) ctx.set('WWW-Authenticate', 'Bearer');
        if ((error instanceof RateLimitedError || error instanceof ServiceUnavailableError) && error.retryAfterSeconds) {
          ctx.set('Retry-After', String(error.retryAfterSeconds));
        }
        return;
      }
      log(`request ${ctx.state.requestId} ${ctx.method} ${ctx.path} failed`, error);
      ctx.status = 500;
      ctx.body = {
        code: 'internal',
        message: 'Internal server error',
        details: { requestId: ctx.state.requestId },
      } satisfies ErrorBody;
    }
  };
}
