import { PushRejectedError } from './types.js';

/**
 * The replay window of pushes whose signature covers the time they were sent (docs/operations.md,
 * "Processors"): a validly signed push replayed later than the processor itself would send it again is
 * refused. These processors send a retry with its first signature and time, so each window is the time
 * the processor retries a push, and a day more for our own downtime.
 */

/** A push dated after our clock is taken within this much clock skew between the processor and us. */
export const pushClockSkewMs = 5 * 60_000;

const dayMs = 86_400_000;

/** Each processor's window: how long it retries a push, and a day more. */
export const pushMaxAgeMs = {
  /** Checkout.com retries up to 8 times, at most 12 hours apart: within 4 days. */
  checkout: 5 * dayMs,
  /** PayPal retries a push for 3 days. */
  paypal: 4 * dayMs,
  /** Access Worldpay retries an event for up to a week. */
  worldpay: 8 * dayMs,
} as const;

/** Throws PushRejectedError unless `sentAt`, a time the signature covers, is within `maxAgeMs` of now. */
export function checkPushAge(sentAt: Date | null, maxAgeMs: number, nowMs = Date.now()): void {
  if (!sentAt || Number.isNaN(sentAt.getTime())) {
    throw new PushRejectedError('the push carries no signed time it was sent at');
  }
  const age = nowMs - sentAt.getTime();
  if (age > maxAgeMs) {
    throw new PushRejectedError(
      `the push was sent at ${sentAt.toISOString()}, longer ago than the processor retries one: a replay`,
    );
  }
  if (age < -pushClockSkewMs) {
    throw new PushRejectedError(`the push is dated ${sentAt.toISOString()}, in the future`);
  }
}
