import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { alertDimensionsOf, statsQuery, statsRange } from '../../src/domain/dispute-stats.js';
import { ApiError } from '../../src/domain/errors.js';
import { parseInput } from '../../src/domain/parse-input.js';
import { disputeStates, statsOutcomeOf } from '../../src/domain/states.js';

/** The rules of the outcome statistics (docs/api.md, "Statistics") that need no database. */

describe('how a state counts (docs/api.md, "Statistics")', () => {
  it('puts every state in the outcome the contract names', () => {
    // Restated from the contract, not from states.ts.
    const contract = {
      won: ['won'],
      lost: ['lost'],
      accepted: ['accepted'],
      open: [
        'needs_response',
        'warning_needs_response',
        'requires_review',
        'queued',
        'compiling_evidence',
        'submitted',
        'under_review',
        'warning_under_review',
      ],
      closed_otherwise: ['warning_closed', 'charge_refunded', 'response_disabled'],
    };
    const counted = Object.entries(contract).flatMap(([outcome, states]) =>
      states.map((state) => [state, outcome]),
    );
    expect(Object.fromEntries(counted)).toEqual(statsOutcomeOf);
    expect(counted.map(([state]) => state).sort()).toEqual([...disputeStates].sort());
  });
});

describe('statsRange', () => {
  const now = new Date('2026-06-15T08:30:00Z');

  it('defaults to the year up to now, or up to `to`', () => {
    expect(statsRange({}, now)).toEqual({ from: new Date('2025-06-15T08:30:00Z'), to: now });
    const to = new Date('2024-02-29T00:00:00Z');
    // A year before 29 February is 1 March: the day after 28 February of a year without one.
    expect(statsRange({ to }, now)).toEqual({ from: new Date('2023-03-01T00:00:00Z'), to });
  });

  it('takes from = to (nothing counted) and exactly five years, refuses a moment more', () => {
    const to = new Date('2026-01-01T00:00:00Z');
    expect(statsRange({ from: to, to }, now)).toEqual({ from: to, to });
    const five = new Date('2021-01-01T00:00:00Z');
    expect(statsRange({ from: five, to }, now).from).toEqual(five);
    expect(() => statsRange({ from: new Date(five.getTime() - 1), to }, now)).toThrow(
      new ApiError('invalid_request', 'Invalid from: must be at most 5 years before to.'),
    );
  });

  it('refuses from after to, saying what to was when it was not given', () => {
    const to = new Date('2026-01-01T00:00:00Z');
    expect(() => statsRange({ from: new Date('2026-01-02T00:00:00Z'), to }, now)).toThrow(
      'Invalid from: must not be after to.',
    );
    expect(() => statsRange({ from: new Date('2026-07-01T00:00:00Z') }, now)).toThrow(
      'Invalid from: must not be after to (now, when to is not given).',
    );
  });
});

describe('statsQuery', () => {
  const read = (input: unknown) => parseInput(statsQuery, input);

  it('reads group_by as one value or a list, from and to as request timestamps', () => {
    expect(read({ group_by: 'month', from: '1767225600', to: '2026-04-01' })).toEqual({
      group_by: ['month'],
      from: new Date('2026-01-01T00:00:00Z'),
      to: new Date('2026-04-01T00:00:00Z'),
    });
    expect(read({ group_by: ['template', 'network'] })).toEqual({ group_by: ['template', 'network'] });
    expect(read({})).toEqual({});
  });

  /** What reading `input` gave: the query, or the error it threw. */
  function attempt(input: unknown): { query?: ReturnType<typeof read>; error?: unknown } {
    try {
      return { query: read(input) };
    } catch (error) {
      return { error };
    }
  }

  it('answers any group_by either with at most two distinct dimensions or invalid_request naming group_by', () => {
    const dimensions = ['reason', 'processor', 'template', 'network', 'month'];
    const value = fc.oneof(fc.constantFrom(...dimensions), fc.string());
    const sent = fc.oneof(value, fc.array(value, { maxLength: 4 }), fc.anything());
    fc.assert(
      fc.property(sent, (group_by) => {
        const { query, error } = attempt({ group_by });
        if (error) {
          expect(error).toBeInstanceOf(ApiError);
          expect(error).toMatchObject({
            type: 'invalid_request',
            message: expect.stringMatching(/^Invalid group_by/),
          });
          return;
        }
        const parsed = query?.group_by ?? [];
        expect(parsed.length).toBeLessThanOrEqual(2);
        expect(new Set(parsed).size).toBe(parsed.length);
        for (const dimension of parsed) expect(dimensions).toContain(dimension);
      }),
      { numRuns: 500 },
    );
  });

  it('refuses any from or to that is not a request timestamp, naming it', () => {
    fc.assert(
      fc.property(fc.constantFrom('from', 'to'), fc.oneof(fc.string(), fc.anything()), (name, value) => {
        const { query, error } = attempt({ [name]: value });
        if (error) {
          expect(error).toBeInstanceOf(ApiError);
          expect(error).toMatchObject({
            type: 'invalid_request',
            message: expect.stringMatching(`^Invalid ${name}:`),
          });
        } else if (value !== undefined) {
          expect(query?.[name as 'from' | 'to']).toBeInstanceOf(Date);
        }
      }),
      { numRuns: 500 },
    );
  });
});

describe('what group_by does to alerts (docs/api.md, "Statistics", Alerts)', () => {
  it('keeps processor and month in their order, and drops the dimensions alerts do not have', () => {
    expect(alertDimensionsOf([])).toEqual([]);
    expect(alertDimensionsOf(['month', 'processor'])).toEqual(['month', 'processor']);
    expect(alertDimensionsOf(['reason', 'month'])).toEqual(['month']);
    expect(alertDimensionsOf(['template', 'network'])).toEqual([]);
  });
});
