import { describe, expect, it } from 'vitest';
import {
  afterDeliveryFailure,
  decideRetry,
  type RetryPolicy,
  retryPolicies,
  retryWindowMs,
  type TryOutcome,
} from '../../src/domain/retry-policy.js';

/**
 * Every retry decision of the job engine as a table (docs/architecture.md, "Queues and jobs"): each row is
 * a kind of work, how a try ended, which try it was, and the decision expected, with the wait at the two
 * ends of the jitter (random 0 and random 1).
 */

const minute = 60_000;
const transient = (retryAfterSeconds?: number): TryOutcome => ({
  status: 'failed',
  permanent: false,
  reason: 'mock 503 (transient): down',
  retryAfterSeconds,
});
const permanent: TryOutcome = { status: 'failed', permanent: true, reason: 'mock 400 (permanent): no' };
const succeeded: TryOutcome = { status: 'succeeded' };

type Expected = 'done' | 'fail' | [shortestMs: number, longestMs: number];

const rows: [kind: keyof typeof retryPolicies, outcome: TryOutcome, attempt: number, expected: Expected][] = [
  // Processor calls: doubling from 2 s, between half and all of each step, capped at 15 minutes.
  ['submission', succeeded, 1, 'done'],
  ['submission', transient(), 1, [1000, 2000]],
  ['submission', transient(), 2, [2000, 4000]],
  ['submission', transient(), 5, [16_000, 32_000]],
  ['submission', transient(), 11, [7.5 * minute, 15 * minute]],
  ['submission', transient(), 12, 'fail'],
  ['submission', permanent, 1, 'fail'],
  // Never sooner than the processor's Retry-After, up to a fifth later, capped at an hour.
  ['submission', transient(7), 1, [7000, 8400]],
  ['submission', transient(7), 9, [7000, 8400]],
  ['submission', transient(86_400), 1, [60 * minute, 72 * minute]],
  ['submission', transient(7), 12, 'fail'],
  ['queuedSubmission', transient(), 7, [64_000, 128_000]],
  ['queuedSubmission', transient(), 8, 'fail'],
  // An alert's refund: 10 tries under one key, then refund_failed (docs/architecture.md, "Alert refunds exactly once").
  ['alertRefund', transient(), 1, [1000, 2000]],
  ['alertRefund', transient(), 9, [256_000, 512_000]],
  ['alertRefund', transient(), 10, 'fail'],
  ['alertRefund', permanent, 1, 'fail'],
  ['refresh', transient(), 4, [8000, 16_000]],
  ['refresh', transient(), 5, 'fail'],
  ['refresh', permanent, 1, 'fail'],
  // Work waiting on other work: doubling from 2 s, between half and all of each step, capped at 5 minutes.
  ['removal', transient(), 1, [1000, 2000]],
  ['removal', transient(), 4, [8000, 16_000]],
  ['removal', transient(), 9, [2.5 * minute, 5 * minute]],
  ['removal', transient(), 49, [2.5 * minute, 5 * minute]],
  ['removal', transient(), 50, 'fail'],
  ['removal', permanent, 1, 'fail'],
  // Scheduled work: plain doubling, a few tries, the next scheduled run comes anyway.
  ['poll', transient(), 1, [10_000, 10_000]],
  ['poll', transient(), 2, [20_000, 20_000]],
  ['poll', transient(), 3, 'fail'],
  ['relay', transient(), 1, [1000, 1000]],
  ['relay', transient(), 3, 'fail'],
  ['sweep', transient(), 1, 'fail'],
  ['sweep', succeeded, 1, 'done'],
  // A delivery's own failures (a database blip): the webhook backoff; the window ends it first.
  ['delivery', transient(), 1, [24_000, 30_000]],
  ['delivery', transient(), 999, [24 * minute, 30 * minute]],
];

describe('decideRetry', () => {
  it.each(rows)('%s, %o, try %i: %o', (kind, outcome, attempt, expected) => {
    const policy: RetryPolicy = retryPolicies[kind];
    const low = decideRetry(policy, outcome, attempt, () => 0);
    const high = decideRetry(policy, outcome, attempt, () => 1);
    if (expected === 'done') {
      expect([low, high]).toEqual([{ decision: 'done' }, { decision: 'done' }]);
      return;
    }
    const reason = outcome.status === 'failed' ? outcome.reason : '';
    if (expected === 'fail') {
      expect([low, high]).toEqual([
        { decision: 'fail', reason },
        { decision: 'fail', reason },
      ]);
      return;
    }
    expect([low, high]).toEqual([
      { decision: 'retry', reason, afterMs: expected[0] },
      { decision: 'retry', reason, afterMs: expected[1] },
    ]);
  });
});

describe('afterDeliveryFailure', () => {
  const now = new Date('2030-01-10T00:00:00Z');
  const ago = (ms: number) => new Date(now.getTime() - ms);
  const fresh = { firstAttemptAt: ago(1000), failingSince: ago(1000), now };

  it('retries about 30 s doubling to every 30 minutes, up to a fifth early', () => {
    const latest = Array.from({ length: 9 }, (_, n) => afterDeliveryFailure(fresh, n + 1, () => 1));
    expect(latest).toEqual(
      [30_000, 60_000, 120_000, 240_000, 480_000, 960_000, 1_800_000, 1_800_000, 1_800_000].map(
        (afterMs) => ({ decision: 'retry', afterMs }),
      ),
    );
    expect(afterDeliveryFailure(fresh, 1, () => 0)).toEqual({ decision: 'retry', afterMs: 24_000 });
  });

  const windowRows: [what: string, firstAgoMs: number, failingAgoMs: number, expected: object][] = [
    ['inside the 3-day window', retryWindowMs - 1000, 1000, { decision: 'retry', afterMs: 30_000 }],
    [
      'first attempt more than 3 days old',
      retryWindowMs + 1,
      1000,
      { decision: 'fail', disableEndpoint: false },
    ],
    ['first attempt exactly 3 days old', retryWindowMs, 1000, { decision: 'retry', afterMs: 30_000 }],
    ['endpoint failing for 3 days', 0, retryWindowMs, { decision: 'fail', disableEndpoint: true }],
  ];

  it.each(windowRows)('%s', (_what, firstAgoMs, failingAgoMs, expected) => {
    const clock = { firstAttemptAt: ago(firstAgoMs), failingSince: ago(failingAgoMs), now };
    expect(afterDeliveryFailure(clock, 1, () => 1)).toEqual(expected);
  });
});
