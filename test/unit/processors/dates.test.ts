import { describe, expect, it } from 'vitest';
import { momentOf, shiftDay, startOfDay, utcDay } from '../../../src/processors/dates.js';

describe('processor dates', () => {
  it('reads a moment, and nothing for an absent one', () => {
    expect(momentOf('2026-03-02T10:15:00+01:00')).toEqual(new Date('2026-03-02T09:15:00.000Z'));
    expect([momentOf(undefined), momentOf(null), momentOf('')]).toEqual([null, null, null]);
  });

  it('reads a day as its start in UTC, a zone offset after it dropped', () => {
    expect(startOfDay('2026-03-02')).toEqual(new Date('2026-03-02T00:00:00.000Z'));
    expect(startOfDay('2026-03-02-05:00')).toEqual(new Date('2026-03-02T00:00:00.000Z'));
    expect([startOfDay(undefined), startOfDay(null), startOfDay('')]).toEqual([null, null, null]);
    // Only days the calendar has: not rolled over into the next month, not an Invalid Date.
    expect([startOfDay('2026-02-30'), startOfDay('2026-13-01'), momentOf('2026-13-01T00:00:00Z')]).toEqual([
      null,
      null,
      null,
    ]);
  });

  it('names the UTC day of a moment, and counts days across month and year ends', () => {
    expect(utcDay(new Date('2026-03-01T23:59:59-05:00'))).toBe('2026-03-02');
    expect(shiftDay('2026-03-02', -7)).toBe('2026-02-23');
    expect(shiftDay('2026-12-31', 1)).toBe('2027-01-01');
  });
});
