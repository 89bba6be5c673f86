import { describe, expect, it } from 'vitest';
import { forTheBoard } from '../../src/jobs/workers/define-worker.js';

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
