import { and, desc, eq, gte, inArray, sql } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import { anyOf } from '../../db/schema/columns.js';
import { events, webhookDeliveries, webhookEndpoints } from '../../db/schema/index.js';
import type { deliveryStatuses } from '../../db/schema/webhooks.js';
import { ownedBy, type Tenant } from '../tenancy.js';
import { restartDeliveries } from './event-log.js';

/**
 * Webhook deliveries for on-call (`webhook deliveries|redeliver` in the CLI): the recent ones, and sending
 * chosen ones again. A redelivery is the API's (POST /v1/events/:id/redeliver, event-log.ts) narrowed to
 * the deliveries chosen: rows restarted in one transaction, then the relay queues their jobs, so it is as
 * durable as any delivery and needs nothing from Redis here.
 */

export type DeliveryStatus = (typeof deliveryStatuses)[number];

export interface DeliveryView {
  id: string;
  endpoint: string;
  event: string;
  type: string;
  /** The dispute the event is about; null for a `test` event. */
  dispute: string | null;
  status: DeliveryStatus;
  attempts: number;
  lastStatus: number | null;
  lastError: string | null;
  nextAttemptAt: Date | null;
  createdAt: Date;
  completedAt: Date | null;
}

const viewColumns = {
  id: webhookDeliveries.id,
  endpoint: webhookDeliveries.endpointId,
  event: webhookDeliveries.eventId,
  type: events.type,
  dispute: sql<string | null>`${events.data}->>'id'`,
  status: webhookDeliveries.status,
  attempts: webhookDeliveries.attempts,
  lastStatus: webhookDeliveries.lastStatus,
  lastError: webhookDeliveries.lastError,
  nextAttemptAt: webhookDeliveries.nextAttemptAt,
  createdAt: webhookDeliveries.createdAt,
  completedAt: webhookDeliveries.completedAt,
};

/** The tenant's deliveries, newest first, optionally of one endpoint or in one status. */
export async function listDeliveries(
  db: Db,
  tenant: Tenant,
  query: { endpoint?: string; status?: DeliveryStatus; limit: number },
): Promise<DeliveryView[]> {
  return db
    .select(viewColumns)
    .from(webhookDeliveries)
    .innerJoin(events, eq(events.id, webhookDeliveries.eventId))
    .where(
      and(
        ownedBy(webhookDeliveries, tenant),
        query.endpoint === undefined ? undefined : eq(webhookDeliveries.endpointId, query.endpoint),
        query.status === undefined ? undefined : eq(webhookDeliveries.status, query.status),
      ),
    )
    .orderBy(desc(webhookDeliveries.createdAt), desc(webhookDeliveries.id))
    .limit(query.limit);
}

/** Which deliveries to send again: one by id, or every one that ended failed since a moment. */
export type RedeliverySelection = { delivery: string } | { failedSince: Date; endpoint?: string };

export interface Redelivery {
  /** Restarted: pending again, with their jobs on the way from the relay. */
  redelivered: DeliveryView[];
  /** Left as they were: their endpoint is disabled (enable it first, then redeliver). */
  skipped: { delivery: DeliveryView; reason: string }[];
}

/**
 * Restarts the chosen deliveries, as a redelivery of their events restarts theirs: pending, a fresh 3-day
 * window, attempts counted on. A delivery to a disabled endpoint is not restarted (it would end failed at
 * once), except a test event's; one asked for by id is then refused, with the reason.
 */
export async function redeliverDeliveries(
  db: Db,
  tenant: Tenant,
  selection: RedeliverySelection,
): Promise<Redelivery> {
  const picked = and(
    ownedBy(webhookDeliveries, tenant),
    'delivery' in selection
      ? eq(webhookDeliveries.id, selection.delivery)
      : and(
          eq(webhookDeliveries.status, 'failed'),
          gte(webhookDeliveries.completedAt, selection.failedSince),
          selection.endpoint === undefined ? undefined : eq(webhookDeliveries.endpointId, selection.endpoint),
        ),
  );
  const chosen = await db.transaction(async (tx) => {
    // Their events first, in id order, as the API's redelivery locks its event before its deliveries
    // (event-log.ts): the two cannot deadlock on the same event.
    await tx
      .select({ id: events.id })
      .from(events)
      .where(
        inArray(
          events.id,
          tx.select({ id: webhookDeliveries.eventId }).from(webhookDeliveries).where(picked),
        ),
      )
      .orderBy(events.id)
      .for('update');
    const rows = await tx
      .select({
        ...viewColumns,
        enabled: webhookEndpoints.enabled,
        disabledReason: webhookEndpoints.disabledReason,
      })
      .from(webhookDeliveries)
      .innerJoin(events, eq(events.id, webhookDeliveries.eventId))
      .innerJoin(webhookEndpoints, eq(webhookEndpoints.id, webhookDeliveries.endpointId))
      .where(picked)
      .orderBy(webhookDeliveries.createdAt, webhookDeliveries.id)
      .for('update', { of: webhookDeliveries });
    if ('delivery' in selection && rows.length === 0) {
      throw new Error(`no webhook delivery ${selection.delivery} in ${describeTenant(tenant)}`);
    }
    // What restartDeliveries restarts; the others' events are not handed back to the relay either.
    const restartable = rows.filter((row) => row.enabled || row.type === 'test');
    const [refused] = rows.filter((row) => !restartable.includes(row));
    if ('delivery' in selection && refused) {
      throw new Error(`not redelivered: ${disabled(refused)}; enable it first`);
    }
    await restartDeliveries(
      tx,
      [...new Set(restartable.map((row) => row.event))],
      anyOf(
        webhookDeliveries.id,
        restartable.map((row) => row.id),
        'text',
      ),
    );
    // Read back before the commit wakes the relay: as restarted, not however far they got since.
    const redelivered =
      restartable.length === 0
        ? []
        : await tx
            .select(viewColumns)
            .from(webhookDeliveries)
            .innerJoin(events, eq(events.id, webhookDeliveries.eventId))
            .where(
              anyOf(
                webhookDeliveries.id,
                restartable.map((row) => row.id),
                'text',
              ),
            )
            .orderBy(webhookDeliveries.createdAt, webhookDeliveries.id);
    return { rows, restartable, redelivered };
  });
  const { redelivered } = chosen;
  const skipped = chosen.rows
    .filter((row) => !chosen.restartable.includes(row))
    .map((row) => {
      const { enabled: _enabled, disabledReason: _disabledReason, ...delivery } = row;
      return { delivery, reason: disabled(row) };
    });
  return { redelivered, skipped };
}

function disabled(row: { endpoint: string; disabledReason: string | null }): string {
  return `endpoint ${row.endpoint} is disabled${row.disabledReason ? ` (${row.disabledReason})` : ''}`;
}

function describeTenant(tenant: Tenant): string {
  return `${tenant.orgId} (${tenant.livemode ? 'live' : 'test'})`;
}
