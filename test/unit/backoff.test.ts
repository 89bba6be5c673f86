import { describe, expect, it } from 'vitest';
import { retryDelay } from '../../src/jobs/backoff.js';

const failure = (retryAfterSeconds?: number) => Object.assign(new Error('503'), { retryAfterSeconds });

describe('retryDelay', () => {
  it('processor calls: doubling from the base, between half and all of each step, capped at 15 minutes', () => {
    for (const [attempt, step] of [
      [1, 2000],
      [2, 4000],
      [5, 32_000],
      [20, 900_000],
    ] as const) {
      expect(retryDelay('processor', attempt, 2000, failure(), () => 0)).toBe(step / 2);
      expect(retryDelay('processor', attempt, 2000, failure(), () => 0.999_999)).toBeCloseTo(step, -1);
    }
  });

  it('processor calls: never sooner than the Retry-After, up to a fifth later, capped at an hour', () => {
    expect(retryDelay('processor', 1, 2000, failure(7), () => 0)).toBe(7000);
    expect(retryDelay('processor', 9, 2000, failure(7), () => 0)).toBe(7000);
    expect(retryDelay('processor', 1, 2000, failure(7), () => 1)).toBe(8400);
    expect(retryDelay('processor', 1, 2000, failure(86_400), () => 0)).toBe(3_600_000);
  });

  it('webhooks: about 30 s doubling to every 30 minutes, never later than the step', () => {
    const schedule = Array.from({ length: 9 }, (_, n) =>
      retryDelay('webhook', n + 1, 30_000, undefined, () => 1),
    );
    expect(schedule).toEqual([
      30_000, 60_000, 120_000, 240_000, 480_000, 960_000, 1_800_000, 1_800_000, 1_800_000,
    ]);
    expect(retryDelay('webhook', 1, 30_000, undefined, () => 0)).toBe(24_000);
  });

  it('work waiting on other work: doubling from the base, between half and all of each step, capped at 5 minutes', () => {
    for (const [attempt, step] of [
      [1, 2000],
      [4, 16_000],
      [9, 300_000],
      [49, 300_000],
    ] as const) {
      expect(retryDelay('waiting', attempt, 2000, undefined, () => 0)).toBe(step / 2);
      expect(retryDelay('waiting', attempt, 2000, undefined, () => 1)).toBe(step);
    }
  });

  it('refuses a backoff type it does not know (BullMQ then fails the job)', () => {
    expect(retryDelay('linear', 1, 1000, undefined)).toBe(-1);
  });
});
