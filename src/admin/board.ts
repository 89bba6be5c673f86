import { createHash, timingSafeEqual } from 'node:crypto';
import { createBullBoard } from '@bull-board/api';
import { BullMQAdapter } from '@bull-board/api/bullMQAdapter';
import { ExpressAdapter } from '@bull-board/express';
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import express from 'express';
import type { Config } from '../config.js';
import type { Queues } from '../jobs/catalog.js';
import { queueNames } from '../jobs/names.js';
import type { Logger } from '../logger.js';

export const boardPath = '/admin/queues';

/**
 * Bull Board over every queue, for on-call: inspect jobs, read failure reasons, retry failed processor
 * calls. Behind HTTP Basic with ADMIN_USER/ADMIN_PASSWORD, compared in constant time. Job data holds
 * only row ids (jobs/catalog.ts), so nothing secret is on show.
 */
export function adminBoard(queues: Queues, credentials: { user: string; password: string }): RequestHandler {
  const serverAdapter = new ExpressAdapter().setBasePath(boardPath);
  createBullBoard({
    queues: queueNames.map((name) => new BullMQAdapter(queues.byName[name])),
    serverAdapter,
    options: { uiConfig: { boardTitle: 'Rebuttal queues' } },
  });
  const router = express.Router();
  router.use(basicAuth(credentials), serverAdapter.getRouter() as RequestHandler);
  return router;
}

/** The board when ADMIN_USER and ADMIN_PASSWORD are both set; otherwise none, and a line that says why. */
export function boardFor(
  config: Pick<Config, 'ADMIN_USER' | 'ADMIN_PASSWORD'>,
  queues: Queues,
  logger: Logger,
): RequestHandler | undefined {
  if (!config.ADMIN_USER || !config.ADMIN_PASSWORD) {
    logger.info('Bull Board is off: set ADMIN_USER and ADMIN_PASSWORD to serve it at /admin/queues');
    return undefined;
  }
  logger.info({ path: boardPath }, 'Bull Board is on');
  return adminBoard(queues, { user: config.ADMIN_USER, password: config.ADMIN_PASSWORD });
}

/** Digests first, so the comparison takes the same time whatever the lengths. */
const digest = (value: string) => createHash('sha256').update(value).digest();

function basicAuth(credentials: { user: string; password: string }): RequestHandler {
  const expected = digest(`${credentials.user}:${credentials.password}`);
  return (req: Request, res: Response, next: NextFunction) => {
    const [scheme, encoded] = (req.headers.authorization ?? '').split(' ');
    const given =
      scheme?.toLowerCase() === 'basic' && encoded ? Buffer.from(encoded, 'base64').toString() : '';
    if (given && timingSafeEqual(digest(given), expected)) {
      next();
      return;
    }
    res
      .status(401)
      .set('WWW-Authenticate', 'Basic realm="Rebuttal operators", charset="UTF-8"')
      .json({
        error: { status: 401, type: 'authentication', message: 'Operator credentials are required.' },
      });
  };
}
