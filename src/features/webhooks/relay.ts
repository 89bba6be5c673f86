import { and, asc, eq, inArray, isNotNull, isNull, lt, or, sql } from 'drizzle-orm';
import type { Db, Tx } from '../../db/client.js';
import { disputes, events, submissions, webhookDeliveries, webhookEndpoints } from '../../db/schema/index.js';
import { statement } from '../../db/statements.js';
import { endpointWants } from '../../domain/webhooks.js';
import { newId } from '../../ids.js';

/**
 * The outbox relay: turns unrelayed events into one delivery per endpoint that wants each, and hands every
 * delivery still to be made to the webhook queue. Rows are written and committed first and jobs added
 * after, so a crash in between leaves deliveries without jobs; the same run therefore also looks for
 * pending deliveries long past due and makes sure each has a job (a flushed Redis loses them the same way).
 */

/**
 * How the relay hands deliveries to the webhook queue (jobs/delivery-dispatcher.ts implements it over
 * BullMQ): the feature says which deliveries are due, the job layer how they run.
 */
export interface DeliveryDispatcher {
  /** New deliveries: a job each. */
  dispatch(deliveryIds: readonly string[]): Promise<void>;
  /** A delivery to run now (a redelivery, a test event's): its job made sure of, and run at once. */
  restart(deliveryId: string): Promise<void>;
  /** A delivery whose job may have been lost (a crash, a flushed Redis): its job made sure of. */
  ensure(deliveryId: string): Promise<void>;
}

export interface RelayDeps {
  db: Db;
  deliveries: DeliveryDispatcher;
  now?: () => Date;
}

export interface RelayReport {
  events: number;
  /** Deliveries handed to the queue: new ones and restarted ones (a test event's, a redelivery's). */
  queued: number;
  /** Pending deliveries long past due whose job was made sure of. */
  recovered: number;
}

/** Events per transaction; the relay takes batches until none is left. */
const batchSize = 500;
/** A pending delivery this long past its due moment has lost its job (or its job is stuck behind others). */
const recoveryGraceMs = 2 * 60_000;

const pending = sql`${webhookDeliveries.status} = 'pending'`;

/** A batch's events already holding pending deliveries: a test event's own, or a redelivery's restarts. */
const pendingOfEvents = statement<{ eventIds: string }>(sql`
  select delivery.id from jsonb_array_elements_text(${sql.placeholder('eventIds')}::jsonb) as batch(id)
  join ${webhookDeliveries} as delivery on delivery.event_id = batch.id
  where delivery.status = 'pending'`);

/** The planned deliveries, one JSON parameter for the batch; a pair that exists already is left alone. */
const insertDeliveries = statement<{ rows: string }>(sql`
  insert into ${webhookDeliveries} (id, org_id, livemode, endpoint_id, event_id, next_attempt_at)
  select id, org_id, livemode, endpoint_id, event_id, next_attempt_at
  from jsonb_to_recordset(${sql.placeholder('rows')}::jsonb) as planned(
    id text, org_id text, livemode boolean, endpoint_id text, event_id text, next_attempt_at timestamptz)
  on conflict do nothing
  returning id`);

export async function relayEvents(deps: RelayDeps): Promise<RelayReport> {
  const report: RelayReport = { events: 0, queued: 0, recovered: 0 };
  // Each batch's jobs are added while the next batch's transaction runs; all are in before the run ends.
  const enqueued: Promise<unknown>[] = [];
  try {
    for (;;) {
      const batch = await relayBatch(deps);
      report.events += batch.events;
      report.queued += batch.queued;
      // Handled now, so a failure while later batches run is not an unhandled rejection; awaited below.
      batch.enqueued.catch(() => {});
      enqueued.push(batch.enqueued);
      if (batch.events < batchSize) break;
    }
  } finally {
    await Promise.all(enqueued);
  }
  report.recovered = await recoverDeliveries(deps);
  return report;
}

async function relayBatch(
  deps: RelayDeps,
): Promise<{ events: number; queued: number; enqueued: Promise<unknown> }> {
  const now = deps.now?.() ?? new Date();
  const { eventCount, created, restarted } = await deps.db.transaction(async (tx) => {
    // Claims a batch by marking it relayed, in the transaction that makes its deliveries: one statement,
    // and skip locked, so relays running at once (a notification and the schedule) take different batches.
    const claimable = tx
      .select({ id: events.id })
      .from(events)
      .where(isNull(events.relayedAt))
      .orderBy(asc(events.createdAt))
      .limit(batchSize)
      .for('update', { skipLocked: true });
    const batch = await tx
      .update(events)
      .set({ relayedAt: now })
      .where(inArray(events.id, claimable))
      .returning({
        id: events.id,
        orgId: events.orgId,
        livemode: events.livemode,
        type: events.type,
        disputeUid: events.disputeUid,
      });
    if (batch.length === 0) return { eventCount: 0, created: [], restarted: [] };
    const restarted = await pendingOfEvents.run(tx, {
      eventIds: JSON.stringify(batch.map((event) => event.id)),
    });
    const planned = await plannedDeliveries(tx, batch, now);
    const created =
      planned.length === 0 ? [] : await insertDeliveries.run(tx, { rows: JSON.stringify(planned) });
    return { eventCount: batch.length, created, restarted };
  });
  const enqueued = Promise.all([
    deps.deliveries.dispatch(created.map((row) => String(row.id))),
    ...restarted.map((row) => deps.deliveries.restart(String(row.id))),
  ]);
  return { events: eventCount, queued: created.length + restarted.length, enqueued };
}

type RelayedEvent = { id: string; orgId: string; livemode: boolean; type: string; disputeUid: string | null };

/** One delivery per event and enabled endpoint of the same organisation and mode that wants it. */
async function plannedDeliveries(tx: Tx, batch: RelayedEvent[], now: Date) {
  const endpoints = await tx
    .select({
      id: webhookEndpoints.id,
      orgId: webhookEndpoints.orgId,
      livemode: webhookEndpoints.livemode,
      events: webhookEndpoints.events,
      apiVersion: webhookEndpoints.apiVersion,
    })
    .from(webhookEndpoints)
    .where(
      and(
        eq(webhookEndpoints.enabled, true),
        inArray(webhookEndpoints.orgId, [...new Set(batch.map((event) => event.orgId))]),
      ),
    );
  if (endpoints.length === 0) return [];
  const submittedHere = await submittedByService(
    tx,
    batch
      .filter((event) => event.type === 'dispute.closed' && event.disputeUid)
      .map((event) => event.disputeUid as string),
  );
  return batch.flatMap((event) =>
    endpoints
      .filter(
        (endpoint) =>
          endpoint.orgId === event.orgId &&
          endpoint.livemode === event.livemode &&
          endpointWants(
            endpoint,
            event.type,
            event.disputeUid !== null && submittedHere.has(event.disputeUid),
          ),
      )
      .map((endpoint) => ({
        id: newId('webhookDelivery'),
        org_id: event.orgId,
        livemode: event.livemode,
        endpoint_id: endpoint.id,
        event_id: event.id,
        next_attempt_at: now.toISOString(),
      })),
  );
}

/** Disputes whose evidence this service submitted: a succeeded submission, or a recorded submission time. */
async function submittedByService(tx: Tx, disputeUids: string[]): Promise<Set<string>> {
  if (disputeUids.length === 0) return new Set();
  const succeeded = tx
    .select({ uid: submissions.disputeUid })
    .from(submissions)
    .where(and(inArray(submissions.disputeUid, disputeUids), eq(submissions.status, 'succeeded')));
  const rows = await tx
    .select({ uid: disputes.uid })
    .from(disputes)
    .where(
      and(
        inArray(disputes.uid, disputeUids),
        or(isNotNull(disputes.submittedAt), inArray(disputes.uid, succeeded)),
      ),
    );
  return new Set(rows.map((row) => row.uid));
}

/**
 * Pending deliveries long past due get their job back; their due moment moves to now, so each is looked
 * at once per grace period however long a backlog keeps it waiting.
 */
async function recoverDeliveries(deps: RelayDeps): Promise<number> {
  const now = deps.now?.() ?? new Date();
  const overdue = await deps.db
    .select({ id: webhookDeliveries.id })
    .from(webhookDeliveries)
    .where(and(pending, lt(webhookDeliveries.nextAttemptAt, new Date(now.getTime() - recoveryGraceMs))))
    .orderBy(asc(webhookDeliveries.nextAttemptAt))
    .limit(batchSize);
  if (overdue.length === 0) return 0;
  await Promise.all(overdue.map(({ id }) => deps.deliveries.ensure(id)));
  await deps.db
    .update(webhookDeliveries)
    .set({ nextAttemptAt: now })
    .where(
      and(
        pending,
        inArray(
          webhookDeliveries.id,
          overdue.map(({ id }) => id),
        ),
      ),
    );
  return overdue.length;
}
