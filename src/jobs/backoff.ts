import { backoffTypes } from './catalog.js';

/**
 * Retry delays for the catalog's custom backoff types. Jitter spreads the retries of many jobs that
 * failed together (an outage), so they do not all return at once.
 */

const minute = 60_000;
const processorCapMs = 15 * minute;
const retryAfterCapMs = 60 * minute;
const webhookCapMs = 30 * minute;
const waitingCapMs = 5 * minute;

/** A failure that says when to come back (HTTP Retry-After). */
interface TimedFailure {
  retryAfterSeconds?: number | undefined;
}

/** Half fixed, half random: never sooner than half the exponential step, never later than the step. */
function equalJitter(stepMs: number, random: () => number): number {
  return Math.round(stepMs / 2 + (random() * stepMs) / 2);
}

/**
 * Delay before retry number `attemptsMade` (1 after the first failure), or -1 for a type this module does
 * not know (BullMQ then fails the job rather than retrying it blindly).
 */
export function retryDelay(
  type: string | undefined,
  attemptsMade: number,
  baseMs: number,
  failure: (Error & TimedFailure) | undefined,
  random: () => number = Math.random,
): number {
  const step = baseMs * 2 ** Math.max(0, attemptsMade - 1);
  switch (type) {
    case backoffTypes.processor: {
      const asked = failure?.retryAfterSeconds;
      // Never sooner than the processor asked; up to a fifth later, so a crowd told the same second spreads.
      if (asked !== undefined && asked > 0)
        return Math.round(Math.min(asked * 1000, retryAfterCapMs) * (1 + random() * 0.2));
      return equalJitter(Math.min(step, processorCapMs), random);
    }
    case backoffTypes.webhook:
      // Up to 20% early: about 30 s, 1, 2, 4, 8, 16 minutes, then every 25 to 30 minutes.
      return Math.round(Math.min(step, webhookCapMs) * (0.8 + random() * 0.2));
    case backoffTypes.waiting:
      return equalJitter(Math.min(step, waitingCapMs), random);
    default:
      return -1;
  }
}
