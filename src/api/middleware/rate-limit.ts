import type { NextFunction, Request, Response } from 'express';
import { ApiError } from '../../domain/errors.js';
import type { RateLimiter } from '../../services/rate-limit.js';
import { principalOf } from './auth.js';

/** 429 rate_limited with Retry-After once an API key (an organisation's key of one mode) runs out. */
export function rateLimit(limiter: RateLimiter) {
  return async (_req: Request, res: Response, next: NextFunction): Promise<void> => {
    const { orgId, livemode } = principalOf(res);
    const decision = await limiter.take(`${orgId}:${livemode ? 'live' : 'test'}`);
    if (!decision.allowed) {
      res.setHeader('Retry-After', String(decision.retryAfterSeconds));
      throw new ApiError(
        'rate_limited',
        `Too many requests: at most ${limiter.perSecond} a second, in bursts of up to ${limiter.perSecond * 2}.`,
      );
    }
    next();
  };
}
