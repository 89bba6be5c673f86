import { and, asc, eq, inArray, isNotNull, isNull, lt, not, or, sql } from 'drizzle-orm';
import type { Db, Tx } from '../../db/client.js';
import { anyOf } from '../../db/schema/columns.js';
import { disputes, events, submissions, webhookDeliveries, webhookEndpoints } from '../../db/schema/index.js';
import { statement } from '../../db/statements.js';
import { endpointWants } from '../../domain/webhooks.js';
import { newId } from '../../ids.js';
import { describeError } from '../../logger.js';

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
  /** Organisations whose events could not be relayed: theirs wait for the next run, the others' went on. */
  failed: { orgId: string; error: Record<string, unknown> }[];
}

/** Events per transaction at most; the relay takes batches until none is left. */
const batchSize = 500;
/**
 * Deliveries per transaction at most: a batch takes its events, oldest first, while their deliveries fit
 * (at least one event), so its one JSON parameter stays small whatever its organisations' endpoints.
 */
export const deliveryRowsPerBatch = 5000;
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

/** Which events a batch may take: every organisation's but those that failed in this run, or one's only. */
interface BatchScope {
  excluding: readonly string[];
  only?: string;
}

interface BatchOutcome {
  events: number;
  queued: number;
  enqueued: Promise<unknown>;
  /** Whether events were left over: a batch full of events, or cut short by its deliveries. */
  more: boolean;
}

/**
 * Relays batches until none is left. A batch that fails is tried again one organisation at a time, and an
 * organisation that fails on its own is left out for the rest of the run: one organisation's events (a
 * row that breaks them) cannot hold back another's, whichever are oldest.
 */
export async function relayEvents(deps: RelayDeps): Promise<RelayReport> {
  const report: RelayReport = { events: 0, queued: 0, recovered: 0, failed: [] };
  // Each batch's jobs are added while the next batch's transaction runs; all are in before the run ends.
  const enqueued: Promise<unknown>[] = [];
  const count = (batch: BatchOutcome) => {
    report.events += batch.events;
    report.queued += batch.queued;
    // Handled now, so a failure while later batches run is not an unhandled rejection; awaited below.
    batch.enqueued.catch(() => {});
    enqueued.push(batch.enqueued);
    return batch.more;
  };
  try {
    for (;;) {
      const excluding = report.failed.map((failure) => failure.orgId);
      try {
        if (!count(await relayBatch(deps, { excluding }))) break;
      } catch (error) {
        // Postgres away fails this read too, and the run with it, as before.
        const organisations = await organisationsAhead(deps.db, excluding);
        let moved = false;
        for (const orgId of organisations) {
          try {
            const batch = await relayBatch(deps, { excluding, only: orgId });
            count(batch);
            moved ||= batch.events > 0;
          } catch (failure) {
            report.failed.push({ orgId, error: describeError(failure) });
            moved = true;
          }
        }
        // Nothing relayed and nobody to blame: the failure is not one organisation's, so the run fails.
        if (!moved) throw error;
      }
    }
  } finally {
    await Promise.all(enqueued);
  }
  report.recovered = await recoverDeliveries(deps);
  return report;
}

/** Whether any event waits to be relayed: one row of the partial index on unrelayed events, if any. */
export async function eventsWaiting(db: Db): Promise<boolean> {
  const [row] = await db.select({ id: events.id }).from(events).where(isNull(events.relayedAt)).limit(1);
  return row !== undefined;
}

function claimable(scope: BatchScope) {
  return and(
    isNull(events.relayedAt),
    scope.excluding.length === 0 ? undefined : not(anyOf(events.orgId, scope.excluding, 'text')),
    scope.only === undefined ? undefined : eq(events.orgId, scope.only),
  );
}

/** The organisations of the events the next batch would take. */
async function organisationsAhead(db: Db, excluding: readonly string[]): Promise<string[]> {
  const ahead = db
    .select({ orgId: events.orgId })
    .from(events)
    .where(claimable({ excluding }))
    .orderBy(asc(events.createdAt))
    .limit(batchSize)
    .as('ahead');
  const rows = await db.selectDistinct({ orgId: ahead.orgId }).from(ahead);
  return rows.map((row) => row.orgId);
}

async function relayBatch(deps: RelayDeps, scope: BatchScope): Promise<BatchOutcome> {
  const now = deps.now?.() ?? new Date();
  const { eventCount, more, created, restarted } = await deps.db.transaction(async (tx) => {
    // Skip locked, so relays running at once (a notification and the schedule) take different events;
    // those read but not taken (their deliveries did not fit) are let go when the transaction ends.
    const candidates = await tx
      .select(relayedColumns)
      .from(events)
      .where(claimable(scope))
      .orderBy(asc(events.createdAt))
      .limit(batchSize)
      .for('update', { skipLocked: true });
    if (candidates.length === 0) return { eventCount: 0, more: false, created: [], restarted: [] };
    const plans = await plannedDeliveries(tx, candidates, now);
    const taken = fitting(plans);
    const batch = candidates.slice(0, taken);
    const eventIds = batch.map((event) => event.id);
    await tx
      .update(events)
      .set({ relayedAt: now })
      .where(anyOf(events.id, eventIds, 'text'));
    const restarted = await pendingOfEvents.run(tx, { eventIds: JSON.stringify(eventIds) });
    const created = await insertPlanned(tx, plans.slice(0, taken).flat());
    return {
      eventCount: batch.length,
      more: candidates.length === batchSize || taken < candidates.length,
      created,
      restarted,
    };
  });
  const enqueued = Promise.all([
    deps.deliveries.dispatch(created.map((row) => String(row.id))),
    ...restarted.map((row) => deps.deliveries.restart(String(row.id))),
  ]);
  return { events: eventCount, queued: created.length + restarted.length, enqueued, more };
}

/**
 * The deliveries these events are owed now and lack, created inside the caller's transaction: a redelivery
 * (event-log.ts) answers with every delivery it starts. The relay queues them when the events come back to it.
 */
export async function addOwedDeliveries(tx: Tx, eventIds: readonly string[], now: Date): Promise<void> {
  const batch = await tx
    .select(relayedColumns)
    .from(events)
    .where(anyOf(events.id, eventIds, 'text'));
  await insertPlanned(tx, (await plannedDeliveries(tx, batch, now)).flat());
}

/** Inserts planned deliveries, in parts for the one event whose own are more than a batch's (endpoints made before the cap). */
async function insertPlanned(tx: Tx, planned: readonly object[]) {
  const created = [];
  for (let start = 0; start < planned.length; start += deliveryRowsPerBatch) {
    const part = planned.slice(start, start + deliveryRowsPerBatch);
    created.push(...(await insertDeliveries.run(tx, { rows: JSON.stringify(part) })));
  }
  return created;
}

/** How many of the events, oldest first, a batch takes: as many as their deliveries fit, at least one. */
function fitting(plans: readonly unknown[][]): number {
  let rows = 0;
  let taken = 0;
  for (const plan of plans) {
    if (taken > 0 && rows + plan.length > deliveryRowsPerBatch) break;
    rows += plan.length;
    taken += 1;
  }
  return taken;
}

/** What planning an event's deliveries reads of it. */
const relayedColumns = {
  id: events.id,
  orgId: events.orgId,
  livemode: events.livemode,
  type: events.type,
  disputeUid: events.disputeUid,
};

type RelayedEvent = { id: string; orgId: string; livemode: boolean; type: string; disputeUid: string | null };

/**
 * Each event's deliveries, in the events' order: one per enabled endpoint of the same organisation and
 * mode that wants it.
 */
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
  if (endpoints.length === 0) return batch.map(() => []);
  const submittedHere = await submittedByService(
    tx,
    batch
      .filter((event) => event.type === 'dispute.closed' && event.disputeUid)
      .map((event) => event.disputeUid as string),
  );
  return batch.map((event) =>
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
