import { z } from 'zod';
import type { Logger } from '../../logger.js';
import type { DisputePage, NormalizedDispute } from '../types.js';
import type { StripeClient } from './client.js';
import { normalizeDispute, type StripeEvent } from './mapping.js';

/**
 * Mirroring a Stripe account: first every dispute Stripe holds (the backfill, `GET /v1/disputes`), then
 * the changes since, from the account's dispute events (`GET /v1/events`). Before the backfill's first
 * page the newest dispute event is remembered (the anchor): every change made while the backfill runs
 * raises an event above it, so none is lost between the two.
 *
 * Events are kept 30 days (docs.stripe.com/api/events). A cursor therefore also carries `safe`, a
 * time before which every event has been delivered: while it is recent, the events above the anchor are
 * all still there. When the anchor itself has aged out (an account with no dispute event for a month),
 * the events since `safe` are read by time instead; when `safe` has aged out (a paused account), events
 * may be gone and the backfill starts again: repeats are harmless, a lost change is not.
 */

const day = 86_400;
/** A day short of the 30 Stripe keeps events for: room for clock skew and a slow poll. */
const usableRetention = 29 * day;
/** How far back a read by time starts before `safe`: our clock and Stripe's may differ a little. */
const clockSkew = 300;
/** Stripe's page size limit (docs.stripe.com/api/pagination). */
const maxPage = 100;
/** Disputes fetched at once after an events page: the account's rate limit paces them anyway. */
const fetchConcurrency = 4;

const position = z.object({
  /** The newest event delivered (or, in the backfill, the newest when it began); null when none was. */
  anchor: z.string().nullable(),
  /** Its `created`, by Stripe's clock. */
  anchorAt: z.number().int().nullable(),
  /** Unix time before which every dispute event has been delivered (or covered by the backfill). */
  safe: z.number().int(),
});
const listCursor = z.discriminatedUnion('phase', [
  position.extend({
    phase: z.literal('backfill'),
    /** The last dispute of the last page (disputes come newest first); null before the first page. */
    after: z.string().nullable(),
  }),
  position.extend({ phase: z.literal('events') }),
]);
type ListCursor = z.infer<typeof listCursor>;
type EventsCursor = Extract<ListCursor, { phase: 'events' }>;
type BackfillCursor = Extract<ListCursor, { phase: 'backfill' }>;

export async function listChanges(
  client: StripeClient,
  request: { cursor: string | null; limit: number },
  logger?: Logger,
): Promise<DisputePage> {
  const limit = Math.min(Math.max(Math.trunc(request.limit), 1), maxPage);
  const now = Math.floor(Date.now() / 1000);
  const cursor = readCursor(request.cursor, logger);
  if (cursor === null || cursor.safe < now - usableRetention) return startBackfill(client, limit, now);
  if (cursor.phase === 'backfill') return backfillPage(client, cursor, limit);
  return eventsPage(client, cursor, limit, now);
}

/** The cursor as written by `writeCursor`; one that is not (another version's) starts a new backfill. */
function readCursor(text: string | null, logger?: Logger): ListCursor | null {
  if (text === null) return null;
  try {
    const read = listCursor.safeParse(JSON.parse(text));
    if (read.success) return read.data;
  } catch {
    // Not JSON: handled as any other cursor this adapter did not write.
  }
  logger?.warn({ processor: 'stripe' }, 'unreadable cursor: listing every dispute again');
  return null;
}

const writeCursor = (cursor: ListCursor) => JSON.stringify(cursor);

async function startBackfill(client: StripeClient, limit: number, now: number): Promise<DisputePage> {
  const [newest] = (await client.listEvents({ limit: 1 })).data;
  return backfillPage(
    client,
    {
      phase: 'backfill',
      after: null,
      anchor: newest?.id ?? null,
      anchorAt: newest?.created ?? null,
      safe: now,
    },
    limit,
  );
}

async function backfillPage(
  client: StripeClient,
  cursor: BackfillCursor,
  limit: number,
): Promise<DisputePage> {
  const page = await client.listDisputes({ limit, startingAfter: cursor.after });
  const last = page.data.at(-1);
  const disputes = page.data.map(normalizeDispute);
  if (page.has_more && last) {
    return { disputes, nextCursor: writeCursor({ ...cursor, after: last.id }), hasMore: true };
  }
  // The backfill is done; the changes made while it ran wait above the anchor.
  const { anchor, anchorAt, safe } = cursor;
  return { disputes, nextCursor: writeCursor({ phase: 'events', anchor, anchorAt, safe }), hasMore: true };
}

async function eventsPage(
  client: StripeClient,
  cursor: EventsCursor,
  limit: number,
  now: number,
): Promise<DisputePage> {
  const anchored =
    cursor.anchor !== null && cursor.anchorAt !== null && cursor.anchorAt >= now - usableRetention;
  const { events, more } = anchored
    ? await eventsAbove(client, cursor.anchor as string, limit)
    : await eventsSince(client, cursor.safe - clockSkew, limit);
  const newest = events.at(-1);
  const next: EventsCursor = {
    phase: 'events',
    anchor: newest?.id ?? cursor.anchor,
    anchorAt: newest?.created ?? cursor.anchorAt,
    // Caught up: everything before this poll began is delivered. Otherwise everything up to the newest
    // event delivered is.
    safe: more && newest ? Math.max(cursor.safe, newest.created) : now,
  };
  return { disputes: await changedDisputes(client, events), nextCursor: writeCursor(next), hasMore: more };
}

/**
 * The events just above the anchor, oldest first. `ending_before` gives the page adjacent to the
 * anchor on its newer side, itself newest first (docs.stripe.com/api/pagination).
 */
async function eventsAbove(client: StripeClient, anchor: string, limit: number) {
  const page = await client.listEvents({ limit, endingBefore: anchor });
  return { events: [...page.data].reverse(), more: page.has_more };
}

/**
 * The oldest events created since `from`, oldest first. Stripe lists newest first only, so every page
 * since `from` is read: few, as this runs only when the account had no dispute event for weeks or none
 * at all when its backfill began.
 */
async function eventsSince(client: StripeClient, from: number, limit: number) {
  const newestFirst: StripeEvent[] = [];
  let startingAfter: string | undefined;
  for (;;) {
    const page = await client.listEvents({ limit: maxPage, createdFrom: from, startingAfter });
    newestFirst.push(...page.data);
    startingAfter = page.data.at(-1)?.id;
    if (!page.has_more || startingAfter === undefined) break;
  }
  const oldestFirst = newestFirst.reverse();
  return { events: oldestFirst.slice(0, limit), more: oldestFirst.length > limit };
}

/**
 * The disputes the events are about, as they are now, ordered by their latest event. An event's own
 * snapshot is as old as the event and in the API version of its day; fetching the dispute gives its
 * current state in the pinned version, with its charge, exactly as the backfill and a push read it.
 */
async function changedDisputes(client: StripeClient, events: StripeEvent[]): Promise<NormalizedDispute[]> {
  const ids = [...new Set(events.map((event) => event.data.object.id).reverse())].reverse();
  const found: (NormalizedDispute | null)[] = new Array(ids.length).fill(null);
  let next = 0;
  const worker = async () => {
    while (next < ids.length) {
      const at = next++;
      const dispute = await client.retrieveDispute(ids[at] as string, null, { withCharge: true });
      found[at] = dispute && normalizeDispute(dispute);
    }
  };
  await Promise.all(Array.from({ length: Math.min(fetchConcurrency, ids.length) }, worker));
  return found.filter((dispute): dispute is NormalizedDispute => dispute !== null);
}
