import type { NextFunction, Request, Response } from 'express';
import { ApiError } from '../../domain/errors.js';
import type { RateLimiter } from '../../rate-limiter.js';
import { principalOf } from './auth.js';

/** Who a request counts against: its API key (an organisation's key of one mode), by default. */
type Subject = (req: Request, res: Response) => string;

const byApiKey: Subject = (_req, res) => {
  const { orgId, livemode } = principalOf(res);
  return `${orgId}:${livemode ? 'live' : 'test'}`;
};

/** Requests that carry no key (signed document links) count against the client's address. */
export const byClientAddress: Subject = (req) => `address:${req.ip ?? 'unknown'}`;

/** 429 rate_limited with Retry-After once the subject's tokens run out. */
export function rateLimit(limiter: RateLimiter, subjectOf: Subject = byApiKey) {
  return async (req: Request, res: Response, next: NextFunction): Promise<void> => {
    const decision = await limiter.take(subjectOf(req, res));
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
