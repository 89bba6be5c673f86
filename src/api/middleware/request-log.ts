import { randomBytes } from 'node:crypto';
import type { NextFunction, Request, Response } from 'express';
import { type Logger, logContext } from '../../logger.js';

const clientRequestId = /^[A-Za-z0-9_.:-]{1,100}$/;

/** A request id of this service's own making: `req_` and 20 hex digits. */
export const newRequestId = () => `req_${randomBytes(10).toString('hex')}`;

/** res.locals key: the answer's cause was logged where it was found (readyz logs a change of state once). */
const reportedKey = 'reportedElsewhere';

/** Marks the answer as logged where its cause was found: its request line stays at info. */
export function reportedElsewhere(res: Response): void {
  res.locals[reportedKey] = true;
}

/**
 * The level of a request's line, by who caused its answer. A 4xx is the client's (429 included: a client
 * over its limit is the limit working, and a warning per refused call would drown the log in a flood);
 * 502, 503 and 504 say a dependency (a processor, a database, an account paused) failed for now, which
 * a retry may pass: warn. Only the rest of 5xx, a fault of this process, is an error.
 */
function lineOf(status: number): { level: 'info' | 'warn' | 'error'; message: string } {
  if (status < 500) return { level: 'info', message: 'request completed' };
  if (status === 502 || status === 503 || status === 504) {
    return { level: 'warn', message: 'request answered with a temporary failure' };
  }
  return { level: 'error', message: 'request failed' };
}

/**
 * Gives every request an id (the client's `Request-Id`/`X-Request-Id` when it is sane, else a new one),
 * echoes it in `Request-Id`, runs the rest of the request inside a log context carrying it, and writes
 * one line when the response is sent. No child logger per request: the context's mixin adds the id to
 * every line, including those of the features the request calls. Bodies and headers are not logged.
 */
export function requestLog(logger: Logger) {
  return (req: Request, res: Response, next: NextFunction): void => {
    const sent = req.headers['request-id'] ?? req.headers['x-request-id'];
    const id = typeof sent === 'string' && clientRequestId.test(sent) ? sent : newRequestId();
    const started = process.hrtime.bigint();
    res.setHeader('Request-Id', id);
    res.once('finish', () => {
      const ms = Number(process.hrtime.bigint() - started) / 1e6;
      const line = {
        request_id: id,
        method: req.method,
        path: req.originalUrl.split('?')[0],
        status: res.statusCode,
        ms,
      };
      const { level, message } = lineOf(res.locals[reportedKey] === true ? 200 : res.statusCode);
      logger[level](line, message);
    });
    logContext.run({ requestId: id }, next);
  };
}

/** The request's id, for error messages that point on-call at its log lines. */
export function requestIdOf(res: Response): string {
  return String(res.getHeader('Request-Id') ?? '');
}
