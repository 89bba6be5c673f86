import { sql } from 'drizzle-orm';
import type { Tx } from '../../db/client.js';
import { events } from '../../db/schema/index.js';
import { statement } from '../../db/statements.js';
import { type AlertRecord, toAlertObject } from '../../domain/alerts.js';
import { type DisputeRecord, toDisputeObject } from '../../domain/disputes.js';
import type { TemplateShape } from '../../domain/templates.js';
import type { EventType } from '../../domain/webhooks.js';
import { newId } from '../../ids.js';

export { type EventType, eventTypes } from '../../domain/webhooks.js';

/**
 * Told on every commit that wrote events, so the webhook relay starts at once rather than at its next
 * scheduled run. Postgres delivers a notification only when its transaction commits, and folds identical
 * ones in one transaction into one.
 */
export const eventsChannel = 'rebuttal_events';

export async function notifyEvents(tx: Tx): Promise<void> {
  await tx.execute(sql`select pg_notify(${eventsChannel}, '')`);
}

/**
 * Writes an event to the outbox inside the caller's transaction, so the event exists exactly when the
 * change it reports does. The webhook relay delivers it later.
 */
export async function recordDisputeEvent(
  tx: Tx,
  type: EventType,
  dispute: DisputeRecord & { orgId: string; uid: string },
  template: TemplateShape | null,
): Promise<void> {
  await recordDisputeEvents(tx, [{ type, dispute, template }]);
}

export interface DisputeEvent {
  type: EventType;
  dispute: DisputeRecord & { orgId: string; uid: string };
  template: TemplateShape | null;
  /** Stored with the dispute object: what the event's kind adds to its payload (docs/api.md, "Webhooks"). */
  extra?: Record<string, unknown>;
}

/**
 * Writes many events in one INSERT (a mirrored page reports up to a page of them), with the notification.
 * The rows travel as one JSON parameter of a prepared statement (src/db/statements.ts): far cheaper to
 * build and bind than six parameters an event, and sent together with the notification.
 */
export async function recordDisputeEvents(tx: Tx, items: readonly DisputeEvent[]): Promise<void> {
  if (items.length === 0) return;
  const rows = items.map(({ type, dispute, template, extra }) => ({
    id: newId('event'),
    orgId: dispute.orgId,
    livemode: dispute.livemode,
    type,
    disputeUid: dispute.uid,
    data: extra ? { ...toDisputeObject(dispute, template), ...extra } : toDisputeObject(dispute, template),
  }));
  await Promise.all([insertEvents.run(tx, { rows: JSON.stringify(rows) }), notify.run(tx, {})]);
}

const insertEvents = statement<{ rows: string }>(sql`
  insert into ${events} (id, org_id, livemode, type, dispute_uid, data)
  select id, "orgId", livemode, type, "disputeUid", data
  from jsonb_to_recordset(${sql.placeholder('rows')}::jsonb)
    as event(id text, "orgId" text, livemode boolean, type text, "disputeUid" uuid, data jsonb)`);

const notify = statement<Record<string, never>>(sql`select pg_notify(${eventsChannel}, '')`);

export interface AlertEvent {
  type: Extract<EventType, `alert.${string}`>;
  alert: AlertRecord & { orgId: string };
}

/** Writes alert events to the outbox in the caller's transaction, as recordDisputeEvents does for disputes. */
export async function recordAlertEvents(tx: Tx, items: readonly AlertEvent[]): Promise<void> {
  if (items.length === 0) return;
  const rows = items.map(({ type, alert }) => ({
    id: newId('event'),
    orgId: alert.orgId,
    livemode: alert.livemode,
    type,
    disputeUid: null,
    data: toAlertObject(alert),
  }));
  await Promise.all([insertEvents.run(tx, { rows: JSON.stringify(rows) }), notify.run(tx, {})]);
}
