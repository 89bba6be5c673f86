/**
 * When failed work is tried again, after how long, and when it stops: every retry decision of the job
 * engine, as pure functions of how a try ended and which try it was (docs/architecture.md, "Queues and
 * jobs"). The engine only carries a decision out on BullMQ (src/jobs/workers/define-worker.ts). Jitter
 * spreads the retries of many jobs that failed together (an outage), so they do not all return at once;
 * `random` is injectable for the tests.
 */

const minute = 60_000;
const processorCapMs = 15 * minute;
const retryAfterCapMs = 60 * minute;
const webhookCapMs = 30 * minute;
const waitingCapMs = 5 * minute;

/**
 * How the wait between tries grows. The names are also the BullMQ backoff types of jobs already queued,
 * so they stay.
 */
export type Backoff =
  /** Processor calls: equal jitter up to 15 minutes, or the processor's own Retry-After. */
  | 'processor'
  /** Webhook deliveries: up to a fifth early, growing to every 30 minutes (docs/api.md, "Webhooks"). */
  | 'webhook'
  /** Work waiting for other work to finish: equal jitter up to 5 minutes. */
  | 'waiting'
  /** Plain doubling, for work whose next scheduled run comes anyway. */
  | 'doubling';

export interface RetryPolicy {
  /** Tries in all, the first included: a failure of the last one ends the work. */
  attempts: number;
  backoff: Backoff;
  /** The wait after the first failure, about; it doubles with each failure, up to the backoff's cap. */
  baseMs: number;
}

/** The policy of each kind of work the job catalogue runs (src/jobs/catalog.ts). */
export const retryPolicies = {
  /** Sending one prepared submission to its processor: 12 tries, some 1.5 hours. */
  submission: { attempts: 12, backoff: 'processor', baseMs: 2000 },
  /**
   * A queued dispute's submit at its moment. Its own failures are the preparation's (a batch, a database
   * blip); the processor call's transient failures go on as the attempt's `submission`.
   */
  queuedSubmission: { attempts: 8, backoff: 'processor', baseMs: 2000 },
  /**
   * Refunding one alert's charge (docs/architecture.md, "Alert refunds exactly once"): 10 tries, some 17
   * minutes, all under the same idempotency key; a failure of the last is recorded as `refund_failed`.
   */
  alertRefund: { attempts: 10, backoff: 'processor', baseMs: 2000 },
  /** Fetching one dispute a processor's push named. */
  refresh: { attempts: 5, backoff: 'processor', baseMs: 2000 },
  /** A personal-data removal waiting for submissions in flight: about every 5 minutes, for some 3 hours. */
  removal: { attempts: 50, backoff: 'waiting', baseMs: 2000 },
  /**
   * A webhook delivery, ended by its 3-day window (`afterDeliveryFailure`), not by a count: at most some
   * 190 tries fit in the window. BullMQ needs a count; a redelivery continues its job's, so it is ample.
   */
  delivery: { attempts: 1000, backoff: 'webhook', baseMs: 30_000 },
  /** Polling one connected account: the next scheduled poll comes anyway. */
  poll: { attempts: 3, backoff: 'doubling', baseMs: 10_000 },
  /** Relaying the outbox: the relay's schedule and the next commit's notification come anyway. */
  relay: { attempts: 3, backoff: 'doubling', baseMs: 1000 },
  /** The deadline sweep: tried once, the next sweep is its retry. */
  sweep: { attempts: 1, backoff: 'doubling', baseMs: 1000 },
} as const satisfies Record<string, RetryPolicy>;

/** A try that failed, as the policy reads it. */
export interface FailedTry {
  status: 'failed';
  /** Retrying cannot help (src/domain/failure.ts, `isPermanent`). */
  permanent: boolean;
  /** What the failure is shown as: the job's failure reason. */
  reason: string;
  /** Seconds the other side asked us to wait (HTTP Retry-After), when it said. */
  retryAfterSeconds?: number | undefined;
}

/** How a try ended. */
export type TryOutcome = { status: 'succeeded' } | FailedTry;

export type FailureDecision =
  | { decision: 'retry'; afterMs: number; reason: string }
  | { decision: 'fail'; reason: string };

export type RetryDecision = { decision: 'done' } | FailureDecision;

/** Whether try `attempt` (1 for the first) is the last the policy allows: its failure ends the work. */
export function isLastAttempt(policy: RetryPolicy, attempt: number): boolean {
  return attempt >= policy.attempts;
}

/** What follows try `attempt` (1 for the first) of work under `policy` that ended in `outcome`. */
export function decideRetry(
  policy: RetryPolicy,
  outcome: FailedTry,
  attempt: number,
  random?: () => number,
): FailureDecision;
export function decideRetry(
  policy: RetryPolicy,
  outcome: TryOutcome,
  attempt: number,
  random?: () => number,
): RetryDecision;
export function decideRetry(
  policy: RetryPolicy,
  outcome: TryOutcome,
  attempt: number,
  random: () => number = Math.random,
): RetryDecision {
  if (outcome.status === 'succeeded') return { decision: 'done' };
  const { reason } = outcome;
  if (outcome.permanent || isLastAttempt(policy, attempt)) return { decision: 'fail', reason };
  return {
    decision: 'retry',
    reason,
    afterMs: retryDelay(policy, attempt, outcome.retryAfterSeconds, random),
  };
}

/** Half fixed, half random: never sooner than half the exponential step, never later than the step. */
function equalJitter(stepMs: number, random: () => number): number {
  return Math.round(stepMs / 2 + (random() * stepMs) / 2);
}

/** The wait after failed try `attempt`. */
function retryDelay(
  policy: RetryPolicy,
  attempt: number,
  retryAfterSeconds: number | undefined,
  random: () => number,
): number {
  const step = policy.baseMs * 2 ** Math.max(0, attempt - 1);
  switch (policy.backoff) {
    case 'processor':
      // Never sooner than the processor asked; up to a fifth later, so a crowd told the same second spreads.
      if (retryAfterSeconds !== undefined && retryAfterSeconds > 0)
        return Math.round(Math.min(retryAfterSeconds * 1000, retryAfterCapMs) * (1 + random() * 0.2));
      return equalJitter(Math.min(step, processorCapMs), random);
    case 'webhook':
      // Up to 20% early: about 30 s, 1, 2, 4, 8, 16 minutes, then every 25 to 30 minutes.
      return Math.round(Math.min(step, webhookCapMs) * (0.8 + random() * 0.2));
    case 'waiting':
      return equalJitter(Math.min(step, waitingCapMs), random);
    case 'doubling':
      return step;
  }
}

// ---------------------------------------------------------------------------------------------------------
// Webhook deliveries (docs/api.md, "Webhooks")

/** Deliveries are retried for 3 days after their first attempt; an endpoint failing for 3 days is disabled. */
export const retryWindowMs = 3 * 24 * 3600 * 1000;

export interface DeliveryClock {
  /** The delivery's first attempt (this one when it is the first). */
  firstAttemptAt: Date;
  /** Start of the endpoint's current run of failures (now when this failure starts it). */
  failingSince: Date;
  now: Date;
}

export type DeliveryDecision =
  | { decision: 'retry'; afterMs: number }
  /** The delivery ends failed; `disableEndpoint` when its endpoint has been failing for the whole window. */
  | { decision: 'fail'; disableEndpoint: boolean };

/** What follows failed delivery try `attempt` (1 for the first): a retry on the webhook backoff, or the end. */
export function afterDeliveryFailure(
  clock: DeliveryClock,
  attempt: number,
  random: () => number = Math.random,
): DeliveryDecision {
  const disableEndpoint = clock.now.getTime() - clock.failingSince.getTime() >= retryWindowMs;
  const expired = clock.now.getTime() - clock.firstAttemptAt.getTime() > retryWindowMs;
  if (expired || disableEndpoint) return { decision: 'fail', disableEndpoint };
  return { decision: 'retry', afterMs: retryDelay(retryPolicies.delivery, attempt, undefined, random) };
}
