import { describe, expect, it } from 'vitest';
import {
  advance,
  type Cursor,
  lookbackDays,
  readCursor,
  searchOf,
  writeCursor,
} from '../../../src/processors/braintree/listing.js';
import { shiftDay } from '../../../src/processors/dates.js';
import { ProcessorError } from '../../../src/processors/types.js';

const today = '2026-03-10';
const fresh: Cursor = { since: '2026-03-01', scan: null };

describe('braintree listing cursor', () => {
  it('starts without a bound, searching everything Braintree keeps', () => {
    expect(readCursor(null)).toEqual({ since: null, scan: null });
    expect(searchOf(readCursor(null))).toEqual({});
    expect(searchOf(fresh)).toEqual({ 'effective-date': { min: '2026-03-01' } });
  });

  it('stays on a page until the limit has handed all of it out', () => {
    const { next, hasMore } = advance(fresh, { total: 120, pageSize: 50, count: 50, taken: 30 }, today);
    expect(hasMore).toBe(true);
    expect(next).toEqual({
      since: '2026-03-01',
      scan: { day: today, page: 1, skip: 30, total: 120, steady: true },
    });
  });

  it('moves to the next page once a page is handed out', () => {
    const at: Cursor = {
      since: '2026-03-01',
      scan: { day: today, page: 1, skip: 30, total: 120, steady: true },
    };
    const { next, hasMore } = advance(at, { total: 120, pageSize: 50, count: 50, taken: 20 }, '2026-03-11');
    expect(hasMore).toBe(true);
    expect(next.scan).toEqual({ day: today, page: 2, skip: 0, total: 120, steady: true });
  });

  it('ends a steady scan with the bound at the day it began, less the lookback', () => {
    const at: Cursor = {
      since: '2026-03-01',
      scan: { day: today, page: 3, skip: 0, total: 120, steady: true },
    };
    const { next, hasMore } = advance(at, { total: 120, pageSize: 50, count: 20, taken: 20 }, '2026-03-12');
    expect(hasMore).toBe(false);
    expect(next).toEqual({ since: shiftDay(today, -lookbackDays), scan: null });
    expect(next.since).toBe('2026-03-03');
  });

  it('keeps the bound when the total moved during the scan', () => {
    const at: Cursor = {
      since: '2026-03-01',
      scan: { day: today, page: 3, skip: 0, total: 120, steady: true },
    };
    const { next, hasMore } = advance(at, { total: 121, pageSize: 50, count: 21, taken: 21 }, today);
    expect(hasMore).toBe(false);
    expect(next).toEqual({ since: '2026-03-01', scan: null });
  });

  it('keeps the bound when an earlier page already saw the total move', () => {
    const at: Cursor = { since: null, scan: { day: today, page: 2, skip: 0, total: 60, steady: false } };
    const { next } = advance(at, { total: 60, pageSize: 50, count: 10, taken: 10 }, today);
    expect(next).toEqual({ since: null, scan: null });
  });

  it('ends an empty search at once, steady', () => {
    const { next, hasMore } = advance(fresh, { total: 0, pageSize: 50, count: 0, taken: 0 }, today);
    expect(hasMore).toBe(false);
    expect(next).toEqual({ since: '2026-03-03', scan: null });
  });

  it('ends, unsteady, on a page that comes back empty although the total says otherwise', () => {
    const at: Cursor = {
      since: '2026-03-01',
      scan: { day: today, page: 2, skip: 0, total: 80, steady: true },
    };
    const { next, hasMore } = advance(at, { total: 80, pageSize: 50, count: 0, taken: 0 }, today);
    expect(hasMore).toBe(false);
    expect(next).toEqual({ since: '2026-03-01', scan: null });
  });

  it('reads back what it writes', () => {
    const at: Cursor = {
      since: '2026-03-01',
      scan: { day: today, page: 2, skip: 5, total: 80, steady: true },
    };
    expect(readCursor(writeCursor(at))).toEqual(at);
  });

  it.each([
    ['not json'],
    ['{}'],
    ['{"since":"yesterday","scan":null}'],
    ['{"since":null,"scan":{"page":0}}'],
  ])('refuses %s permanently', (text) => {
    expect(() => readCursor(text)).toThrow(ProcessorError);
    expect(() => readCursor(text)).toThrow(expect.objectContaining({ retryable: false }));
  });

  it('counts days across month ends', () => {
    expect(shiftDay('2026-03-02', -7)).toBe('2026-02-23');
    expect(shiftDay('2028-02-28', 1)).toBe('2028-02-29');
  });
});
