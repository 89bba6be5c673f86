import { z } from 'zod';
import type { Logger } from '../../logger.js';
import type { DisputePage, NormalizedDispute } from '../types.js';
import type { EventQuery, StripeClient } from './client.js';
import { disputeEventTypes, normalizeDispute, type StripeEvent } from './mapping.js';

/**
 * Mirroring a Stripe account: first every dispute Stripe holds (the backfill, `GET /v1/disputes`), then
 * the changes since, from the account's dispute events (`GET /v1/events`). Early fraud warnings are
 * mirrored the same way, with their own list, events and cursor (early-fraud-warnings.ts). Before the backfill's first
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

/**
 * What is mirrored the way this file describes, for disputes and for early fraud warnings
 * (early-fraud-warnings.ts): the list call, the event types of their changes, and the fetch of one.
 */
export interface ChangeSource<Item> {
  /** One page of the objects, newest first, after `startingAfter`; `startedAt` is when the backfill began. */
  list(query: { limit: number; startingAfter: string | null; startedAt: number }): Promise<{
    items: Item[];
    lastId: string | undefined;
    hasMore: boolean;
  }>;
  /** One page of the events of their changes, newest first (docs.stripe.com/api/events/list). */
  events(query: EventQuery): Promise<{ data: StripeEvent[]; has_more: boolean }>;
  /** The object as it is now; null when Stripe no longer knows it. */
  fetch(id: string): Promise<Item | null>;
  /** What is listed, for the log. */
  what: string;
}

export interface ChangePage<Item> {
  items: Item[];
  nextCursor: string | null;
  hasMore: boolean;
}

/** The account's disputes changed since the cursor. */
export async function listChanges(
  client: StripeClient,
  request: { cursor: string | null; limit: number },
  logger?: Logger,
): Promise<DisputePage> {
  const source: ChangeSource<NormalizedDispute> = {
    what: 'dispute',
    list: async (query) => {
      const page = await client.listDisputes(query);
      return { items: page.data.map(normalizeDispute), lastId: page.data.at(-1)?.id, hasMore: page.has_more };
    },
    events: (query) => client.listEvents(query, disputeEventTypes),
    fetch: async (id) => {
      const dispute = await client.retrieveDispute(id, null, { withCharge: true });
      return dispute && normalizeDispute(dispute);
    },
  };
  const page = await listChangesOf(source, request, logger);
  return { disputes: page.items, nextCursor: page.nextCursor, hasMore: page.hasMore };
}

export async function listChangesOf<Item>(
  source: ChangeSource<Item>,
  request: { cursor: string | null; limit: number },
  logger?: Logger,
): Promise<ChangePage<Item>> {
  const limit = Math.min(Math.max(Math.trunc(request.limit), 1), maxPage);
  const now = Math.floor(Date.now() / 1000);
  const cursor = readCursor(request.cursor, source.what, logger);
  if (cursor === null || cursor.safe < now - usableRetention) return startBackfill(source, limit, now);
  if (cursor.phase === 'backfill') return backfillPage(source, cursor, limit);
  return eventsPage(source, cursor, limit, now);
}

/** The cursor as written by `writeCursor`; one that is not (another version's) starts a new backfill. */
function readCursor(text: string | null, what: string, logger?: Logger): ListCursor | null {
  if (text === null) return null;
  try {
    const read = listCursor.safeParse(JSON.parse(text));
    if (read.success) return read.data;
  } catch {
    // Not JSON: handled as any other cursor this adapter did not write.
  }
  logger?.warn({ processor: 'stripe' }, `unreadable cursor: listing every ${what} again`);
  return null;
}

const writeCursor = (cursor: ListCursor) => JSON.stringify(cursor);

async function startBackfill<Item>(
  source: ChangeSource<Item>,
  limit: number,
  now: number,
): Promise<ChangePage<Item>> {
  const [newest] = (await source.events({ limit: 1 })).data;
  return backfillPage(
    source,
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

async function backfillPage<Item>(
  source: ChangeSource<Item>,
  cursor: BackfillCursor,
  limit: number,
): Promise<ChangePage<Item>> {
  const page = await source.list({ limit, startingAfter: cursor.after, startedAt: cursor.safe });
  if (page.hasMore && page.lastId) {
    return { items: page.items, nextCursor: writeCursor({ ...cursor, after: page.lastId }), hasMore: true };
  }
  // The backfill is done; the changes made while it ran wait above the anchor.
  const { anchor, anchorAt, safe } = cursor;
  return {
    items: page.items,
    nextCursor: writeCursor({ phase: 'events', anchor, anchorAt, safe }),
    hasMore: true,
  };
}

async function eventsPage<Item>(
  source: ChangeSource<Item>,
  cursor: EventsCursor,
  limit: number,
  now: number,
): Promise<ChangePage<Item>> {
  const anchored =
    cursor.anchor !== null && cursor.anchorAt !== null && cursor.anchorAt >= now - usableRetention;
  const { events, more } = anchored
    ? await eventsAbove(source, cursor.anchor as string, limit)
    : await eventsSince(source, cursor.safe - clockSkew, limit);
  const newest = events.at(-1);
  const next: EventsCursor = {
    phase: 'events',
    anchor: newest?.id ?? cursor.anchor,
    anchorAt: newest?.created ?? cursor.anchorAt,
    // Caught up: everything before this poll began is delivered. Otherwise everything up to the newest
    // event delivered is.
    safe: more && newest ? Math.max(cursor.safe, newest.created) : now,
  };
  return { items: await changedItems(source, events), nextCursor: writeCursor(next), hasMore: more };
}

/**
 * The events just above the anchor, oldest first. `ending_before` gives the page adjacent to the
 * anchor on its newer side, itself newest first (docs.stripe.com/api/pagination).
 */
async function eventsAbove<Item>(source: ChangeSource<Item>, anchor: string, limit: number) {
  const page = await source.events({ limit, endingBefore: anchor });
  return { events: [...page.data].reverse(), more: page.has_more };
}

/**
 * The oldest events created since `from`, oldest first. Stripe lists newest first only, so every page
 * since `from` is read: few, as this runs only when the account had no dispute event for weeks or none
 * at all when its backfill began.
 */
async function eventsSince<Item>(source: ChangeSource<Item>, from: number, limit: number) {
  const newestFirst: StripeEvent[] = [];
  let startingAfter: string | undefined;
  for (;;) {
    const page = await source.events({ limit: maxPage, createdFrom: from, startingAfter });
    newestFirst.push(...page.data);
    startingAfter = page.data.at(-1)?.id;
    if (!page.has_more || startingAfter === undefined) break;
  }
  const oldestFirst = newestFirst.reverse();
  return { events: oldestFirst.slice(0, limit), more: oldestFirst.length > limit };
}

/**
 * The objects the events are about, as they are now, ordered by their latest event. An event's own
 * snapshot is as old as the event and in the API version of its day; fetching the object gives its
 * current state in the pinned version, with its charge, exactly as the backfill and a push read it.
 */
async function changedItems<Item>(source: ChangeSource<Item>, events: StripeEvent[]): Promise<Item[]> {
  const ids = [...new Set(events.map((event) => event.data.object.id).reverse())].reverse();
  const found: (Item | null)[] = new Array(ids.length).fill(null);
  let next = 0;
  const worker = async () => {
    while (next < ids.length) {
      const at = next++;
      found[at] = await source.fetch(ids[at] as string);
    }
  };
  await Promise.all(Array.from({ length: Math.min(fetchConcurrency, ids.length) }, worker));
  return found.filter((item): item is Item => item !== null);
}
