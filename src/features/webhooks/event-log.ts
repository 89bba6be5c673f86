import { and, asc, eq, inArray, or, type SQL, sql } from 'drizzle-orm';
import type { Db, Tx } from '../../db/client.js';
import { type PageQuery, planPage } from '../../db/paging.js';
import { anyOf } from '../../db/schema/columns.js';
import { events, webhookDeliveries, webhookEndpoints } from '../../db/schema/index.js';
import { notFound } from '../../domain/errors.js';
import type { EventType } from '../../domain/webhooks.js';
import { ownedBy, type Tenant } from '../tenancy.js';
import { notifyEvents } from './events.js';
import { addOwedDeliveries } from './relay.js';

/** The event log (docs/api.md, "Webhooks"): events newest first, each with how its deliveries went. */

export type EventRow = typeof events.$inferSelect;
export type DeliveryRow = typeof webhookDeliveries.$inferSelect;

export interface LoggedEvent {
  event: Pick<EventRow, 'id' | 'type' | 'livemode' | 'createdAt'> & {
    disputeId: string | null;
    alertId: string | null;
  };
  deliveries: DeliveryRow[];
}

/** An alert event's snapshot is the alert (docs/api.md, "The event object"); its dispute is the linked one. */
const isAlertEvent = sql`${events.type} like 'alert.%'`;

/** The dispute's id, not its whole snapshot: a page of events stays small whatever the evidence weighs. */
const eventColumns = {
  id: events.id,
  type: events.type,
  livemode: events.livemode,
  createdAt: events.createdAt,
  disputeId: sql<
    string | null
  >`case when ${isAlertEvent} then ${events.data}->>'dispute' else ${events.data}->>'id' end`,
  alertId: sql<string | null>`case when ${isAlertEvent} then ${events.data}->>'id' end`,
};

export async function listEvents(db: Db, tenant: Tenant, query: PageQuery & { type?: EventType }) {
  const scope = and(
    ownedBy(events, tenant),
    query.type === undefined ? undefined : eq(events.type, query.type),
  );
  const page = await planPage(db, events, scope, query);
  const rows = await db
    .select(eventColumns)
    .from(events)
    .where(and(scope, page.after))
    .orderBy(...page.orderBy)
    .limit(page.limit);
  const { data, hasMore } = page.finish(rows);
  return { data: await withDeliveries(db, data), hasMore };
}

export async function retrieveEvent(db: Db | Tx, tenant: Tenant, id: string): Promise<LoggedEvent> {
  const [event] = await db
    .select(eventColumns)
    .from(events)
    .where(and(ownedBy(events, tenant), eq(events.id, id)));
  if (!event) throw notFound.event(id);
  const [logged] = await withDeliveries(db, [event]);
  if (!logged) throw notFound.event(id);
  return logged;
}

/**
 * Sends an event again: its deliveries to enabled endpoints (every delivery of a `test` event) restart as
 * pending with a fresh 3-day window, their attempt counts kept so the log stays whole; endpoints that want it
 * now and had no delivery get one, in the same transaction, so the answer shows every delivery it starts; the
 * event goes back to the relay, which queues them all.
 */
export async function redeliverEvent(db: Db, tenant: Tenant, id: string): Promise<LoggedEvent> {
  // Read back before the commit wakes the relay, so the answer shows what was started, not how far it got.
  return db.transaction(async (tx) => {
    const [event] = await tx
      .select({ id: events.id })
      .from(events)
      .where(and(ownedBy(events, tenant), eq(events.id, id)))
      .for('update');
    if (!event) throw notFound.event(id);
    await restartDeliveries(tx, [id]);
    await addOwedDeliveries(tx, [id], new Date());
    return retrieveEvent(tx, tenant, id);
  });
}

/**
 * The redelivery of these events, inside the caller's transaction (the relay wakes when it commits): their
 * deliveries (only those `which` picks, when given) restart as pending with a fresh 3-day window and their
 * attempt counts kept, except those to disabled endpoints, which stay as they are unless the event is a
 * `test`; and the events go back to the relay, which queues what is pending. Returns the restarted ids.
 */
export async function restartDeliveries(tx: Tx, eventIds: readonly string[], which?: SQL): Promise<string[]> {
  if (eventIds.length === 0) return [];
  const enabled = tx
    .select({ id: webhookEndpoints.id })
    .from(webhookEndpoints)
    .where(eq(webhookEndpoints.enabled, true));
  const testEvents = tx
    .select({ id: events.id })
    .from(events)
    .where(and(anyOf(events.id, eventIds, 'text'), eq(events.type, 'test')));
  const restarted = await tx
    .update(webhookDeliveries)
    .set({ status: 'pending', firstAttemptAt: null, nextAttemptAt: new Date(), completedAt: null })
    .where(
      and(
        anyOf(webhookDeliveries.eventId, eventIds, 'text'),
        which,
        or(inArray(webhookDeliveries.eventId, testEvents), inArray(webhookDeliveries.endpointId, enabled)),
      ),
    )
    .returning({ id: webhookDeliveries.id });
  await tx
    .update(events)
    .set({ relayedAt: null })
    .where(anyOf(events.id, eventIds, 'text'));
  await notifyEvents(tx);
  return restarted.map((row) => row.id);
}

async function withDeliveries(db: Db | Tx, rows: LoggedEvent['event'][]): Promise<LoggedEvent[]> {
  if (rows.length === 0) return [];
  const deliveries = await db
    .select()
    .from(webhookDeliveries)
    .where(
      inArray(
        webhookDeliveries.eventId,
        rows.map((row) => row.id),
      ),
    )
    .orderBy(asc(webhookDeliveries.createdAt), asc(webhookDeliveries.id));
  return rows.map((event) => ({
    event,
    deliveries: deliveries.filter((delivery) => delivery.eventId === event.id),
  }));
}
