import { createHash, timingSafeEqual } from 'node:crypto';
import { createBullBoard } from '@bull-board/api';
import { BullMQAdapter } from '@bull-board/api/bullMQAdapter';
import { ExpressAdapter } from '@bull-board/express';
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import express from 'express';
import type { Redis } from 'ioredis';
import type { Config } from '../config.js';
import type { Queues } from '../jobs/catalog.js';
import { queueNames } from '../jobs/names.js';
import type { Logger } from '../logger.js';

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

/** The board when ADMIN_USER and ADMIN_PASSWORD are both set; otherwise none, and a line that says why. */
export function boardFor(
  config: Pick<Config, 'ADMIN_USER' | 'ADMIN_PASSWORD' | 'QUEUE_PREFIX'>,
  queues: Queues,
  redis: Redis,
  logger: Logger,
): RequestHandler | undefined {
  if (!config.ADMIN_USER || !config.ADMIN_PASSWORD) {
    logger.info('Bull Board is off: set ADMIN_USER and ADMIN_PASSWORD to serve it at /admin/queues');
    return undefined;
  }
  logger.info({ path: boardPath }, 'Bull Board is on');
  return adminBoard(
    queues,
    { user: config.ADMIN_USER, password: config.ADMIN_PASSWORD },
    signInGuard(redis, config.QUEUE_PREFIX),
  );
}

/** Wrong guesses an address may make in a window before it is refused outright. */
const maxFailures = 10;
const failureWindowSeconds = 300;

export interface SignInGuard {
  blocked(address: string): Promise<boolean>;
  failed(address: string): Promise<void>;
}

/**
 * Counts wrong operator credentials per address in Redis (shared by every web process); past
 * `maxFailures` in the window, the address is refused before its credentials are even checked, so
 * guessing cannot go on. Like the API's rate limits it fails open: a Redis outage must not lock on-call out.
 */
export function signInGuard(redis: Redis, prefix: string): SignInGuard {
  const key = (address: string) => `${prefix}:admin-failures:${address}`;
  return {
    async blocked(address) {
      const count = await redis.get(key(address)).catch(() => null);
      return Number(count ?? 0) >= maxFailures;
    },
    async failed(address) {
      await redis
        .multi()
        .incr(key(address))
        .expire(key(address), failureWindowSeconds, 'NX')
        .exec()
        .catch(() => undefined);
    },
  };
}

/** Digests first, so the comparison takes the same time whatever the lengths. */
const digest = (value: string) => createHash('sha256').update(value).digest();

function basicAuth(credentials: { user: string; password: string }, guard: SignInGuard): RequestHandler {
  const expected = digest(`${credentials.user}:${credentials.password}`);
  return async (req: Request, res: Response, next: NextFunction) => {
    const address = req.ip ?? 'unknown';
    if (await guard.blocked(address)) {
      res
        .status(429)
        .set('Retry-After', String(failureWindowSeconds))
        .json({
          error: {
            status: 429,
            type: 'rate_limited',
            message: 'Too many wrong operator credentials from this address; try again later.',
          },
        });
      return;
    }
    const [scheme, encoded] = (req.headers.authorization ?? '').split(' ');
    const given =
      scheme?.toLowerCase() === 'basic' && encoded ? Buffer.from(encoded, 'base64').toString() : '';
    if (given && timingSafeEqual(digest(given), expected)) {
      next();
      return;
    }
    // A request without credentials (a browser's first, to get the prompt) is no guess.
    if (given) await guard.failed(address);
    res
      .status(401)
      .set('WWW-Authenticate', 'Basic realm="Rebuttal operators", charset="UTF-8"')
      .json({
        error: { status: 401, type: 'authentication', message: 'Operator credentials are required.' },
      });
  };
}
