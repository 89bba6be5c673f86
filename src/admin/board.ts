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

/** Sign-in attempts an address may make in a window without getting one right. */
const maxFailures = 10;
const failureWindowSeconds = 300;

export interface SignInGuard {
  /** Counts an attempt with credentials; false once the address has used up its tries in the window. */
  attempt(address: string): Promise<boolean>;
  /** A right answer: the address starts afresh. */
  succeeded(address: string): Promise<void>;
}

/**
 * Counts operator sign-in attempts per address in Redis (shared by every web process), before the
 * credentials are checked, so parallel guesses cannot outrun the count; a right answer clears it. Past
 * `maxFailures` in the window, the address is refused without a check. Like the API's rate limits it
 * fails open: a Redis outage must not lock on-call out.
 */
export function signInGuard(redis: Redis, prefix: string): SignInGuard {
  const key = (address: string) => `${prefix}:admin-attempts:${address}`;
  return {
    async attempt(address) {
      const counted = await redis
        .multi()
        .set(key(address), 0, 'EX', failureWindowSeconds, 'NX')
        .incr(key(address))
        .exec()
        .catch(() => null);
      const count = Number(counted?.[1]?.[1] ?? 0);
      return count <= maxFailures;
    },
    async succeeded(address) {
      await redis.del(key(address)).catch(() => undefined);
    },
  };
}

/** Digests first, so the comparison takes the same time whatever the lengths. */
const digest = (value: string) => createHash('sha256').update(value).digest();

/**
 * The operators' sign-in, shared by Bull Board and `GET /metrics` (metrics/endpoint.ts): HTTP Basic with
 * ADMIN_USER/ADMIN_PASSWORD compared in constant time, wrong guesses counted by `guard`; 401 without the
 * right credentials, 429 once the address has used up its tries.
 */
export function basicAuth(
  credentials: { user: string; password: string },
  guard: SignInGuard,
): RequestHandler {
  const expected = digest(`${credentials.user}:${credentials.password}`);
  return async (req: Request, res: Response, next: NextFunction) => {
    const address = req.ip ?? 'unknown';
    const [scheme, encoded] = (req.headers.authorization ?? '').split(' ');
    const given =
      scheme?.toLowerCase() === 'basic' && encoded ? Buffer.from(encoded, 'base64').toString() : '';
    // A request without credentials (a browser's first, to get the prompt) is no attempt.
    if (given && !(await guard.attempt(address))) {
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
    if (given && timingSafeEqual(digest(given), expected)) {
      await guard.succeeded(address);
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
