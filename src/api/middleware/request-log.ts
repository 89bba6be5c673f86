import { randomBytes } from 'node:crypto';
import type { NextFunction, Request, Response } from 'express';
import { type Logger, logContext } from '../../logger.js';

const clientRequestId = /^[A-Za-z0-9_.:-]{1,100}$/;

/**
 * Gives every request an id (the client's `Request-Id`/`X-Request-Id` when it is sane, else a new one),
 * echoes it in `Request-Id`, runs the rest of the request inside a log context carrying it, and writes
 * one line when the response is sent. No child logger per request: the context's mixin adds the id to
 * every line, including those of services the request calls. Bodies and headers are not logged.
 */
export function requestLog(logger: Logger) {
  return (req: Request, res: Response, next: NextFunction): void => {
    const sent = req.headers['request-id'] ?? req.headers['x-request-id'];
    const id =
      typeof sent === 'string' && clientRequestId.test(sent)
        ? sent
        : `req_${randomBytes(10).toString('hex')}`;
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
      if (res.statusCode >= 500) logger.error(line, 'request failed');
      else logger.info(line, 'request completed');
    });
    logContext.run({ requestId: id }, next);
  };
}

/** The request's id, for error messages that point on-call at its log lines. */
export function requestIdOf(res: Response): string {
  return String(res.getHeader('Request-Id') ?? '');
}
