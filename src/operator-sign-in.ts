import { createHash, timingSafeEqual } from 'node:crypto';
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { addressBlock } from './api/middleware/client-address.js';
import type { RedisClient } from './redis-connection.js';

/**
 * The operators' sign-in (src/operators.ts says who they are): HTTP Basic and a guard against guessing,
 * below both pages that take it, Bull Board and `GET /metrics`.
 */

/** Sign-in attempts an address may make in a window without getting one right. */
const maxFailures = 10;
const failureWindowSeconds = 300;

export interface SignInGuard {
  /**
   * Counts an attempt with credentials; false once the address (an IPv4 address or an IPv6 /64:
   * api/middleware/client-address.ts) has used up its tries in the window.
   */
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
export function signInGuard(redis: RedisClient, prefix: string): SignInGuard {
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
 * The operators' sign-in, shared by Bull Board and `GET /metrics` (admin/board.ts, metrics/endpoint.ts): HTTP Basic with
 * ADMIN_USER/ADMIN_PASSWORD compared in constant time, wrong guesses counted by `guard`; 401 without the
 * right credentials, 429 once the address has used up its tries.
 */
export function basicAuth(
  credentials: { user: string; password: string },
  guard: SignInGuard,
): RequestHandler {
  const expected = digest(`${credentials.user}:${credentials.password}`);
  return async (req: Request, res: Response, next: NextFunction) => {
    // Per block, not per address: an IPv6 client may rotate through its whole /64.
    const address = addressBlock(req.ip ?? 'unknown');
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
