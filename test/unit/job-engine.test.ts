import { describe, expect, it } from 'vitest';
import { Batcher } from '../../src/db/batcher.js';
import { retryDelay } from '../../src/jobs/backoff.js';
import { SecretBox } from '../../src/secrets.js';
import { forTheBoard } from '../../workers/define-worker.js';

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

describe('SecretBox', () => {
  it('opens what it sealed, and never seals the same way twice', () => {
    const box = new SecretBox('an-app-secret-of-at-least-32-characters');
    const sealed = box.seal('whsec_abc');
    expect(sealed).toMatch(/^v1\.[\w-]+\.[\w-]+\.[\w-]+$/);
    expect(sealed).not.toContain('whsec_abc');
    expect(box.seal('whsec_abc')).not.toBe(sealed);
    expect(box.open(sealed)).toBe('whsec_abc');
  });

  it('refuses a sealed secret that was altered, or sealed under another APP_SECRET', () => {
    const box = new SecretBox('an-app-secret-of-at-least-32-characters');
    const sealed = box.seal('credentials');
    const [version, iv, tag, body] = sealed.split('.');
    const flipped = `${body?.[0] === 'A' ? 'B' : 'A'}${body?.slice(1)}`;
    expect(() => box.open([version, iv, tag, flipped].join('.'))).toThrow();
    expect(() => new SecretBox('another-app-secret-of-32-characters!').open(sealed)).toThrow();
    expect(() => box.open('plain text')).toThrow('not a sealed secret');
  });
});

describe('Batcher', () => {
  it('batches the calls of one turn, and gathers calls made while a batch runs into the next', async () => {
    const batches: number[][] = [];
    let release = () => {};
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    const batcher = new Batcher<number, number>(async (items) => {
      batches.push(items);
      if (batches.length === 1) await gate;
      return items.map((item) => item * 10);
    });
    const first = [1, 2].map((item) => batcher.call(item));
    await new Promise((resolve) => setImmediate(resolve));
    const rest = [3, 4, 5].map((item) => batcher.call(item));
    release();
    expect(await Promise.all([...first, ...rest])).toEqual([10, 20, 30, 40, 50]);
    expect(batches).toEqual([
      [1, 2],
      [3, 4, 5],
    ]);
  });

  it('runs a batch that throws again one item at a time, failing only the item that fails alone', async () => {
    const runs: number[][] = [];
    const batcher = new Batcher<number, number>(async (items) => {
      runs.push(items);
      if (items.includes(2)) throw new Error('cannot do 2');
      return items;
    });
    const results = [1, 2, 3].map((item) => batcher.call(item).catch((error: Error) => error.message));
    expect(await Promise.all(results)).toEqual([1, 'cannot do 2', 3]);
    expect(runs).toEqual([[1, 2, 3], [1], [2], [3]]);
  });
});

describe('what a failed job leaves on the board', () => {
  it('keeps only the Postgres code of a database error, never its statement or parameters', () => {
    const error = Object.assign(new Error('Failed query: select … params: grace@example.com'), {
      query: 'select … where x ~ $1',
      params: ['[gG][rR][aA][cC][eE]'],
      cause: { code: '40P01' },
    });
    const shown = forTheBoard(error);
    expect(shown).toBeInstanceOf(Error);
    expect((shown as Error).message).toBe(
      "a database statement failed (Postgres 40P01); the worker's log has the details",
    );
    expect(JSON.stringify({ message: (shown as Error).message, stack: (shown as Error).stack })).not.toMatch(
      /grace|gG/,
    );
  });

  it('passes other errors as they are: a processor’s answer is what on-call reads', () => {
    const error = Object.assign(new Error('The processor refused: charge_expired'), { retryAfterSeconds: 2 });
    expect(forTheBoard(error)).toBe(error);
  });
});
