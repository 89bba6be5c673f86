import { createBullBoard } from '@bull-board/api';
import { BullMQAdapter } from '@bull-board/api/bullMQAdapter';
import { ExpressAdapter } from '@bull-board/express';
import type { RequestHandler } from 'express';
import express from 'express';
import type { Redis } from 'ioredis';
import type { Config } from '../config.js';
import type { Queues } from '../jobs/catalog.js';
import type { Logger } from '../logger.js';
import { basicAuth, type SignInGuard, signInGuard } from '../operator-sign-in.js';
import { queueNames } from '../queue-names.js';

export const boardPath = '/admin/queues';

/**
 * Bull Board over every queue, for on-call: inspect jobs, read failure reasons, retry failed processor
 * calls. Behind HTTP Basic with ADMIN_USER/ADMIN_PASSWORD, compared in constant time, with repeated wrong
 * guesses from one address refused (signInGuard). Job data holds
 * only row ids (jobs/catalog.ts), so nothing secret is on show.
 */
export function adminBoard(
  queues: Queues,
  credentials: { user: string; password: string },
  guard: SignInGuard,
): RequestHandler {
  const serverAdapter = new ExpressAdapter().setBasePath(boardPath);
  createBullBoard({
    queues: queueNames.map((name) => new BullMQAdapter(queues.byName[name])),
    serverAdapter,
    options: { uiConfig: { boardTitle: 'Rebuttal queues' } },
  });
  const router = express.Router();
  router.use(basicAuth(credentials, guard), serverAdapter.getRouter() as RequestHandler);
  return router;
}

/**
 * The board at `boardPath` when ADMIN_USER and ADMIN_PASSWORD are both set; otherwise none, and a line
 * that says why.
 */
export function boardFor(
  config: Pick<Config, 'ADMIN_USER' | 'ADMIN_PASSWORD' | 'QUEUE_PREFIX'>,
  queues: Queues,
  redis: Redis,
  logger: Logger,
): { path: string; handler: RequestHandler } | undefined {
  if (!config.ADMIN_USER || !config.ADMIN_PASSWORD) {
    logger.info('Bull Board is off: set ADMIN_USER and ADMIN_PASSWORD to serve it at /admin/queues');
    return undefined;
  }
  logger.info({ path: boardPath }, 'Bull Board is on');
  const handler = adminBoard(
    queues,
    { user: config.ADMIN_USER, password: config.ADMIN_PASSWORD },
    signInGuard(redis, config.QUEUE_PREFIX),
  );
  return { path: boardPath, handler };
}
