import { z } from 'zod';
import { ProcessorError } from '../types.js';
import type { PaypalLink } from './mapping.js';

/**
 * Where a mirror of a PayPal account stands: a sweep of `GET /v1/customer/disputes?update_time_after=…`.
 *
 * PayPal sorts that list by creation time, newest first (OpenAPI `dispute_search.items`), not by update
 * time, so "the newest update time committed" cannot be the position inside a sweep: a page's newest
 * change says nothing of the older changes on later pages. A sweep therefore keeps one lower bound for
 * all its pages and walks PayPal's own next links. That misses nothing:
 * - a dispute in the result can only stay in it (updating it raises its update time), and one that joins
 *   is placed by its creation time: before the sweep's position it shifts the rest one place later (a
 *   dispute is seen twice), after it the sweep reaches it;
 * - one that joined before the sweep's position was updated after the sweep began, so the next sweep,
 *   whose lower bound is the moment this one began (PayPal's clock, its Date header), includes it.
 * The next lower bound also goes back `overlap`, for changes PayPal lists a little late: what was already
 * seen comes again, which the mirror's diff makes harmless.
 */

/** PayPal refuses `update_time_after` older than 180 days; a lower bound older than that starts there. */
const searchWindowMs = 180 * 24 * 3600_000;
/** Inside PayPal's window by a margin, so that a request slow on the way is not refused. */
const windowMarginMs = 3600_000;
/** How far each sweep re-reads the one before it (PayPal does not say how soon a change is listed). */
const overlapMs = 5 * 60_000;
/** PayPal's page_size is 1-50. */
const maxPageSize = 50;

const timestamp = z.string().refine((text) => !Number.isNaN(Date.parse(text)));

const cursorSchema = z.object({
  /** The sweep's lower bound on update_time. */
  after: timestamp,
  /** When the sweep began, on PayPal's clock: the next sweep's lower bound. */
  started: timestamp.optional(),
  /** The query of the sweep's next page, as PayPal's next link gave it. */
  next: z.record(z.string(), z.string()).optional(),
});
export type ListPosition = z.infer<typeof cursorSchema>;

/**
 * The position a cursor holds. No cursor (or one this code cannot read, which only repeats disputes)
 * starts at the oldest change PayPal lists.
 */
export function readCursor(cursor: string | null, now: number): ListPosition {
  let position: ListPosition | undefined;
  try {
    position = cursor === null ? undefined : cursorSchema.parse(JSON.parse(cursor));
  } catch {
    position = undefined;
  }
  if (!position) return { after: new Date(now - searchWindowMs + windowMarginMs).toISOString() };
  return position.next ? position : restartSweep(position, now);
}

/** The sweep from its lower bound again, without a page token; never older than PayPal lists. */
export function restartSweep(position: ListPosition, now: number): ListPosition {
  const after = Math.max(Date.parse(position.after), now - searchWindowMs + windowMarginMs);
  return { after: new Date(after).toISOString() };
}

/**
 * The query of the page at `position`. The bound goes one millisecond back: PayPal does not say whether
 * `update_time_after` includes its instant, and a dispute updated exactly then must not be left out.
 */
export function pageQuery(position: ListPosition, limit: number): Record<string, string> {
  if (position.next) return position.next;
  return {
    update_time_after: new Date(Date.parse(position.after) - 1).toISOString(),
    page_size: String(Math.min(maxPageSize, Math.max(1, limit))),
  };
}

/** Where the sweep goes on after a page with these links, answered at `date` (PayPal's Date header). */
export function nextCursor(
  position: ListPosition,
  links: readonly PaypalLink[],
  date: string | string[] | undefined,
): { cursor: string; hasMore: boolean } {
  const answeredAt = Date.parse(Array.isArray(date) ? (date[0] ?? '') : (date ?? ''));
  const started =
    position.started ?? new Date(Number.isNaN(answeredAt) ? Date.now() : answeredAt).toISOString();
  const next = links.find((link) => link.rel === 'next');
  if (next) {
    if (!URL.canParse(next.href, 'https://api-m.paypal.com')) {
      throw new ProcessorError('paypal', "PayPal's next-page link is not a URL.", { retryable: false });
    }
    const query = Object.fromEntries(new URL(next.href, 'https://api-m.paypal.com').searchParams);
    return { cursor: JSON.stringify({ after: position.after, started, next: query }), hasMore: true };
  }
  const after = Math.max(Date.parse(position.after), Date.parse(started) - overlapMs);
  return { cursor: JSON.stringify({ after: new Date(after).toISOString() }), hasMore: false };
}
