import { randomBytes } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { NextFunction, Request, Response } from 'express';
import { pinoHttp } from 'pino-http';
import { type Logger, logContext } from '../../logger.js';

const clientRequestId = /^[A-Za-z0-9_.:-]{1,100}$/;

/**
 * Gives every request an id (the client's `Request-Id`/`X-Request-Id` when it is sane, else a new one),
 * echoes it in `Request-Id`, and logs one line per request with it. Bodies are not logged.
 */
export function requestLog(logger: Logger) {
  const log = pinoHttp({
    logger,
    genReqId(req: IncomingMessage, res: ServerResponse) {
      const sent = req.headers['request-id'] ?? req.headers['x-request-id'];
      const id =
        typeof sent === 'string' && clientRequestId.test(sent)
          ? sent
          : `req_${randomBytes(10).toString('hex')}`;
      res.setHeader('Request-Id', id);
      return id;
    },
    customLogLevel(_req, res, error) {
      if (error || res.statusCode >= 500) return 'error';
      return 'info';
    },
    serializers: {
      req: (req: { id: string; method: string; url: string }) => ({
        id: req.id,
        method: req.method,
        path: req.url.split('?')[0],
      }),
      res: (res: { statusCode: number }) => ({ status: res.statusCode }),
    },
  });
  return (req: Request, res: Response, next: NextFunction): void => {
    log(req, res);
    logContext.run({ requestId: String(req.id) }, next);
  };
}
