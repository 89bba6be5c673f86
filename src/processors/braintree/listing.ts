import { z } from 'zod';
import { shiftDay } from '../dates.js';
import { ProcessorError } from '../types.js';

/**
 * The Braintree listing cursor. Braintree's dispute search has no "changed since" criterion and no
 * updated-at to search on; what it has is `effective_date`, "the effective date of the dispute history
 * event" (https://developer.paypal.com/braintree/docs/reference/request/dispute/search/): a dispute
 * matches when any of its status-history events took effect in the range. Every status change adds such
 * an event, and a new dispute starts with its OPEN event, so "changed since D" is "an event effective on or
 * after D".
 *
 * A poll is one scan: the search `effective_date >= since`, paged to its end (pages of Braintree's fixed
 * size, `page=N`). The first scan of an account has no bound: everything Braintree keeps. The next scan's
 * bound is the day the last scan began, minus `lookbackDays`:
 * - a change made after a scan began is dated that day or later (less the lookback, which absorbs
 *   Braintree dating events in its own time zone, and an event dated a few days before it was recorded),
 *   so the next scan still finds it; changes made while the first pages were read are found again;
 * - a scan only moves the bound on when the search's `total-items` was the same on every page it read.
 *   The set searched only grows (events are never taken back), so an unchanged total means an unchanged
 *   set, and Braintree's pages of an unchanged set neither skip nor repeat. When the total moved (a
 *   dispute arrived while paging, or a crash left a cursor mid-scan for hours), entries may have shifted
 *   between pages, and the next scan repeats the same bound.
 * Resuming from any committed cursor therefore continues the scan it belongs to, and anything it might
 * have missed is covered by the scan after it. Disputes repeat across scans; repeats are harmless.
 */

/** Days the next scan reaches back before the day the last one began. */
export const lookbackDays = 7;

/** A scan in progress: which page to read next, and how much of it was already handed out. */
export interface Scan {
  /** The UTC day (YYYY-MM-DD) the scan read its first page. */
  day: string;
  page: number;
  skip: number;
  /** `total-items` as the first page reported it. */
  total: number;
  /** Whether every page so far reported the same total. */
  steady: boolean;
}

export interface Cursor {
  /** Lower bound of the scan's `effective_date`; null for the first scan (no bound). */
  since: string | null;
  scan: Scan | null;
}

const day = z.string().regex(/^\d{4}-\d{2}-\d{2}$/);
const cursorSchema = z.object({
  since: day.nullable(),
  scan: z
    .object({
      day,
      page: z.number().int().positive(),
      skip: z.number().int().nonnegative(),
      total: z.number().int().nonnegative(),
      steady: z.boolean(),
    })
    .nullable(),
});

export function readCursor(text: string | null): Cursor {
  if (text === null) return { since: null, scan: null };
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    parsed = undefined;
  }
  const checked = cursorSchema.safeParse(parsed);
  if (!checked.success) {
    // Only this adapter writes these cursors: one it cannot read was stored some other way.
    throw new ProcessorError('braintree', 'The stored listing cursor is not a Braintree cursor.', {
      retryable: false,
    });
  }
  return checked.data;
}

export function writeCursor(cursor: Cursor): string {
  return JSON.stringify(cursor);
}

/** The search criteria of the cursor's scan, as Braintree's `<search>` holds them. */
export function searchOf(cursor: Cursor): Record<string, { min: string }> {
  return cursor.since === null ? {} : { 'effective-date': { min: cursor.since } };
}

export function pageOf(cursor: Cursor): { page: number; skip: number } {
  return { page: cursor.scan?.page ?? 1, skip: cursor.scan?.skip ?? 0 };
}

/** What one page read told: Braintree's totals, how many entries it held, how many were handed out. */
export interface PageRead {
  total: number;
  pageSize: number;
  count: number;
  taken: number;
}

/** Where the listing stands after handing out `read.taken` entries of the page the cursor pointed at. */
export function advance(cursor: Cursor, read: PageRead, today: string): { next: Cursor; hasMore: boolean } {
  const scan = cursor.scan ?? { day: today, page: 1, skip: 0, total: read.total, steady: true };
  // A page that comes back empty although the total says it should hold entries: the set moved.
  const shortfall = read.count === 0 && (scan.page - 1) * read.pageSize < read.total;
  const steady = scan.steady && read.total === scan.total && !shortfall;
  const skip = scan.skip + read.taken;
  if (skip < read.count) {
    return { next: { since: cursor.since, scan: { ...scan, skip, steady } }, hasMore: true };
  }
  if (read.count > 0 && scan.page * read.pageSize < read.total) {
    return {
      next: { since: cursor.since, scan: { ...scan, page: scan.page + 1, skip: 0, steady } },
      hasMore: true,
    };
  }
  return {
    next: { since: steady ? shiftDay(scan.day, -lookbackDays) : cursor.since, scan: null },
    hasMore: false,
  };
}
