import type { NextFunction, Request, Response } from 'express';
import { ApiError } from '../../domain/errors.js';
import type { Budget } from '../../rate-limits.js';
import { addressBlock } from './client-address.js';

/** Who a request counts against: an API key, or a client's address. */
export type Subject = (req: Request, res: Response) => string;

/** Requests that carry no key (signed document links, probes) count against the client's address. */
export const byClientAddress: Subject = (req) => `address:${addressBlock(req.ip ?? 'unknown')}`;

/** One token of `budget` for `subject`, or 429 rate_limited with Retry-After (docs/api.md, "Limits"). */
export async function spend(budget: Budget, subject: string, res: Response): Promise<void> {
  const decision = await budget.limiter.take(subject);
  if (decision.allowed) return;
  res.setHeader('Retry-After', String(decision.retryAfterSeconds));
  throw new ApiError('rate_limited', budget.refusal);
}

/**
 * Takes a token of `budget` per request, by `subjectOf`. With `bytesPerRequest`, the answer (and an upload) is
 * charged too, once it is made (`chargeBytes`): each full `bytesPerRequest` of its body is one more token.
 */
export function rateLimit(budget: Budget, subjectOf: Subject, bytesPerRequest?: number) {
  return async (req: Request, res: Response, next: NextFunction): Promise<void> => {
    const subject = subjectOf(req, res);
    await spend(budget, subject, res);
    if (bytesPerRequest) {
      res.locals.chargeBytes = (bytes: number) => {
        const more = Math.floor(bytes / bytesPerRequest);
        // Not awaited: the answer need not wait, and Redis runs this before the client's next request.
        if (more > 0) void budget.limiter.charge(subject, more);
      };
    }
    next();
  };
}

/**
 * Charges `bytes` of an answer, or of an uploaded file, to the budget that admitted its request, if that
 * budget counts size.
 */
export function chargeBytes(res: Response, bytes: number): void {
  (res.locals.chargeBytes as ((bytes: number) => void) | undefined)?.(bytes);
}
