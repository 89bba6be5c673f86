import { createBullBoard } from '@bull-board/api';
import { BullMQAdapter } from '@bull-board/api/bullMQAdapter';
import { ExpressAdapter } from '@bull-board/express';
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import express from 'express';
import helmet from 'helmet';
import type { Config } from '../config.js';
import type { Queues } from '../jobs/catalog.js';
import type { Logger } from '../logger.js';
import { basicAuth, type SignInGuard, signInGuard } from '../operator-sign-in.js';
import { queueNames } from '../queue-names.js';
import type { RedisClient } from '../redis-connection.js';

export const boardPath = '/admin/queues';

export interface BoardOptions {
  /** ADMIN_READONLY: the board shows the queues and refuses every action. */
  readOnly: boolean;
  /** Where each action is logged, with who took it. */
  logger: Logger;
}

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
  options: BoardOptions,
): RequestHandler {
  const serverAdapter = new ExpressAdapter().setBasePath(boardPath);
  createBullBoard({
    queues: queueNames.map(
      (name) => new BullMQAdapter(queues.byName[name], { readOnlyMode: options.readOnly }),
    ),
    serverAdapter,
    options: { uiConfig: { boardTitle: 'Rebuttal queues' } },
  });
  const router = express.Router();
  router.use(
    boardPolicy,
    basicAuth(credentials, guard),
    logActions(credentials.user, options.logger),
    refuseCrossSite,
  );
  // Bull Board's own read-only mode hides the buttons and refuses most actions; this refuses them all.
  if (options.readOnly) router.use(refuseActions);
  router.use(serverAdapter.getRouter() as RequestHandler);
  return router;
}

/**
 * What the board's page needs, over the API's policy that allows nothing (api/middleware/security-headers.ts):
 * its own scripts (and their worker), styles, images and calls; inline styles, which its markup and
 * components use. Nothing from elsewhere: the Google font it asks for falls back to a local one.
 */
const boardPolicy = helmet.contentSecurityPolicy({
  useDefaults: false,
  directives: {
    defaultSrc: ["'self'"],
    scriptSrc: ["'self'"],
    styleSrc: ["'self'", "'unsafe-inline'"],
    imgSrc: ["'self'", 'data:'],
    fontSrc: ["'self'", 'data:'],
    objectSrc: ["'none'"],
    baseUri: ["'self'"],
    formAction: ["'self'"],
    frameAncestors: ["'none'"],
  },
});

/** Every request but a read is an action on the queues (retry, remove, promote, pause, clean…). */
const isAction = (req: Request) => req.method !== 'GET' && req.method !== 'HEAD';

/**
 * One line per action, once answered: who took it (the operator's user and address, never the
 * password), what it was, and how it went.
 */
function logActions(user: string, logger: Logger): RequestHandler {
  return (req: Request, res: Response, next: NextFunction): void => {
    if (isAction(req)) {
      res.once('close', () =>
        logger.info(
          {
            operator: user,
            address: req.ip,
            method: req.method,
            path: req.originalUrl.split('?')[0],
            status: res.statusCode,
          },
          'Bull Board action',
        ),
      );
    }
    next();
  };
}

/**
 * A page of another site can make the operator's browser post a form to the board with the Basic
 * credentials it remembers (a job added to a queue): an action whose `Origin` is not the board's own host
 * is refused. The board's own page sends its own origin; tools such as curl send none.
 */
function refuseCrossSite(req: Request, res: Response, next: NextFunction): void {
  const origin = req.headers.origin;
  if (!isAction(req) || origin === undefined || hostOf(origin) === req.headers.host) {
    next();
    return;
  }
  res.status(400).json({
    error: {
      status: 400,
      type: 'invalid_request',
      message: `Bull Board takes actions from its own pages only: Origin ${JSON.stringify(origin)} is another site.`,
    },
  });
}

function hostOf(origin: string): string | undefined {
  try {
    return new URL(origin).host;
  } catch {
    return undefined;
  }
}

function refuseActions(req: Request, res: Response, next: NextFunction): void {
  if (!isAction(req)) {
    next();
    return;
  }
  res
    .status(405)
    .set('Allow', 'GET, HEAD')
    .json({
      error: {
        status: 405,
        type: 'method_not_allowed',
        message: 'Bull Board is read-only here (ADMIN_READONLY): it shows the queues but takes no action.',
      },
    });
}

/**
 * The board at `boardPath` when ADMIN_USER and ADMIN_PASSWORD are both set; otherwise none, and a line
 * that says why.
 */
export function boardFor(
  config: Pick<Config, 'ADMIN_USER' | 'ADMIN_PASSWORD' | 'ADMIN_READONLY' | 'QUEUE_PREFIX'>,
  queues: Queues,
  redis: RedisClient,
  logger: Logger,
): { path: string; handler: RequestHandler } | undefined {
  if (!config.ADMIN_USER || !config.ADMIN_PASSWORD) {
    logger.info('Bull Board is off: set ADMIN_USER and ADMIN_PASSWORD to serve it at /admin/queues');
    return undefined;
  }
  logger.info({ path: boardPath, read_only: config.ADMIN_READONLY }, 'Bull Board is on');
  const handler = adminBoard(
    queues,
    { user: config.ADMIN_USER, password: config.ADMIN_PASSWORD },
    signInGuard(redis, config.QUEUE_PREFIX),
    { readOnly: config.ADMIN_READONLY, logger },
  );
  return { path: boardPath, handler };
}
