import type { NextFunction, Request, Response } from 'express';
import { databaseUnavailableIn } from '../../db/unavailable.js';
import { ApiError, databaseUnavailable } from '../../domain/errors.js';
import { describeError, type Logger } from '../../logger.js';
import { reportedElsewhere, requestIdOf } from './request-log.js';

/** The error body of docs/api.md, "Errors": `{url, livemode, error: {status, message, type}}`. */
export function errorBody(url: string | null, livemode: boolean, error: ApiError) {
  return { url, livemode, error: { status: error.status, message: error.message, type: error.type } };
}

export function sendError(req: Request, res: Response, error: ApiError): void {
  const retryAfter = error.retryAfterSeconds ?? (error.type === 'rate_limited' ? 1 : undefined);
  if (retryAfter !== undefined && !res.getHeader('Retry-After'))
    res.setHeader('Retry-After', String(retryAfter));
  const url = req.originalUrl.split('?')[0] ?? null;
  res.status(error.status).json(errorBody(url, res.locals.principal?.livemode ?? false, error));
}

export function unknownRoute(req: Request, _res: Response, next: NextFunction): void {
  next(
    new ApiError('not_found', `Unrecognized request URL (${req.method}: ${req.originalUrl.split('?')[0]}).`),
  );
}

/**
 * Turns anything thrown into the JSON error body. Body-parser and routing errors carry an HTTP status and
 * become the contract's types; Postgres away (db/unavailable.ts) is 503 unavailable, not a bug, also as
 * the cause of a transaction refused its commit (db/bounded.ts TransactionAborted); anything else is a bug:
 * logged with the request id, answered without internals.
 */
export function handleErrors(logger: Logger) {
  return (error: unknown, req: Request, res: Response, _next: NextFunction): void => {
    sendError(req, res, toApiError(error, req, res, logger));
  };
}

function toApiError(error: unknown, req: Request, res: Response, logger: Logger): ApiError {
  if (error instanceof ApiError) return error;
  const unavailable = databaseUnavailableIn(error);
  if (unavailable) {
    // An outage, not a bug: one warning per request, with the cause and no stack; the request's own
    // line stays at info (docs/operations.md, "Faults").
    logger.warn({ problem: unavailable.message }, 'Postgres unavailable: answered 503 unavailable');
    reportedElsewhere(res);
    return databaseUnavailable(!['GET', 'HEAD'].includes(req.method));
  }
  const status =
    typeof error === 'object' && error !== null ? (error as { status?: unknown }).status : undefined;
  if (typeof status === 'number' && status >= 400 && status < 500) {
    const type = (error as { type?: string }).type;
    if (type === 'entity.too.large')
      return new ApiError('request_too_large', 'The body is larger than 1 MiB.');
    // body-parser wraps an error thrown by `verify` (invalid UTF-8); unwrap it to keep its message.
    const cause = (error as { cause?: unknown }).cause;
    if (cause instanceof ApiError) return cause;
    return new ApiError('invalid_request', requestProblem(type));
  }
  logger.error({ err: describeError(error) }, 'unhandled error');
  return new ApiError('server_error', `An internal error occurred (request ${requestIdOf(res)}).`);
}

const requestProblems: Record<string, string> = {
  'entity.parse.failed': 'The body is not valid JSON.',
  'entity.verify.failed': 'The body is not valid UTF-8.',
  'encoding.unsupported': 'Unsupported content encoding.',
  'charset.unsupported': 'Unsupported charset: send UTF-8.',
  'parameters.too.many': 'Too many parameters.',
  'querystring.parse.rangeError': 'The form body is nested too deeply.',
  'request.size.invalid': 'The body is shorter or longer than its Content-Length.',
  'request.aborted': 'The request was aborted.',
};

function requestProblem(type: string | undefined): string {
  return requestProblems[type ?? ''] ?? 'The request could not be read.';
}
