import { and, type Column, eq, getTableColumns, isNull, sql } from 'drizzle-orm';
import { toSnakeCase } from 'drizzle-orm/casing';
import type { Db, Tx } from '../../db/client.js';
import { alerts, disputes } from '../../db/schema/index.js';
import { statement } from '../../db/statements.js';
import type { DisputeResolution } from '../../domain/vocabulary.js';
import type { DisputeRow } from '../disputes/records.js';
import { loadTemplates } from '../disputes/records.js';
import type { Tenant } from '../tenancy.js';
import { type AlertEvent, type DisputeEvent, recordDisputeEvents } from '../webhooks/events.js';
import type { AlertRow } from './upsert.js';

/**
 * Linking alerts and disputes both ways (docs/api.md, "Alerts", "Linking"): an alert and a dispute of the
 * same organisation, mode and charge name each other, whichever arrived first. Run in the transaction that
 * wrote either, after the write: one statement finds every unlinked alert and dispute of the charges
 * given, so the order of arrival does not matter. Never across tenants: both sides are scoped to one.
 */

export interface Linked {
  /** Alerts that gained their dispute (an open or ignored one is `disputed` now). */
  alerts: AlertRow[];
  /** Disputes that gained their alert, and the templates they name, for their events. */
  disputes: DisputeEvent[];
}

/**
 * Links the unlinked alerts and disputes of `charges` in `tenant`. An alert links to the charge's first
 * dispute, a dispute to the charge's first alert; a link once made is kept.
 * - An `open` or `ignored` alert becomes `disputed`: the warning did not head the dispute off. A refunded
 *   one stays `refunded`; one whose refund is under way right now stays `open` for the executor to settle.
 * - A dispute whose alert this service had refunded gets `resolution: alert_refund`, unless the processor
 *   told a resolution of its own.
 */
export async function linkByCharges(tx: Tx, tenant: Tenant, charges: readonly string[]): Promise<Linked> {
  const unique = [...new Set(charges)];
  if (unique.length === 0) return { alerts: [], disputes: [] };
  const [row] = await link.run(tx, {
    orgId: tenant.orgId,
    livemode: tenant.livemode,
    charges: JSON.stringify(unique),
  });
  const linkedAlerts = ((row?.alerts ?? []) as Record<string, unknown>[]).map((raw) =>
    fromJson<AlertRow>(alertColumns, raw),
  );
  const linkedDisputes = ((row?.disputes ?? []) as Record<string, unknown>[]).map((raw) =>
    fromJson<DisputeRow>(disputeColumns, raw),
  );
  const templates = await loadTemplates(tx, linkedDisputes);
  return {
    alerts: linkedAlerts,
    disputes: linkedDisputes.map((dispute) => ({
      type: 'dispute.updated',
      dispute,
      template: templates.get(dispute.uid) ?? null,
    })),
  };
}

const alertColumns = Object.entries(getTableColumns(alerts));
const disputeColumns = Object.entries(getTableColumns(disputes));

/** A row as `to_jsonb` gives it (snake_case keys, timestamps as text), as drizzle would have mapped it. */
function fromJson<T>(columns: [string, Column][], raw: Record<string, unknown>): T {
  const row: Record<string, unknown> = {};
  for (const [key, column] of columns) {
    const value = raw[toSnakeCase(key)];
    row[key] = value === null || value === undefined ? null : column.mapFromDriverValue(value);
  }
  return row as T;
}

/**
 * Both sides in one statement (a mirrored page stays a fixed number of statements): its parts see the
 * same snapshot, so the disputes read each alert's outcome as it was before this statement (`refunded`
 * is never changed by it anyway).
 */
const charges = sql`(select jsonb_array_elements_text(${sql.placeholder('charges')}::jsonb))`;
const tenantOf = (orgId: unknown, livemode: unknown) =>
  sql`${orgId} = ${sql.placeholder('orgId')} and ${livemode} = ${sql.placeholder('livemode')}`;
const link = statement<{ orgId: string; livemode: boolean; charges: string }>(sql`
  with first_dispute as (
    select distinct on (${disputes.charge}) ${disputes.charge} as charge, ${disputes.id} as id from ${disputes}
    where ${tenantOf(disputes.orgId, disputes.livemode)} and ${disputes.charge} in ${charges}
    order by ${disputes.charge}, ${disputes.createdAt}, ${disputes.id}
  ), first_alert as (
    select distinct on (${alerts.charge}) ${alerts.charge} as charge, ${alerts.id} as id, ${alerts.outcome} as outcome
    from ${alerts}
    where ${tenantOf(alerts.orgId, alerts.livemode)} and ${alerts.charge} in ${charges}
    order by ${alerts.charge}, coalesce(${alerts.reportedAt}, ${alerts.createdAt}), ${alerts.id}
  ), linked_alerts as (
    update ${alerts} set dispute = first_dispute.id,
      outcome = case when ${alerts.outcome} in ('open', 'ignored')
        and (${alerts.refundClaimedUntil} is null or ${alerts.refundClaimedUntil} < now())
        then 'disputed' else ${alerts.outcome} end,
      updated_at = now()
    from first_dispute
    where ${tenantOf(alerts.orgId, alerts.livemode)} and ${alerts.charge} = first_dispute.charge
      and ${alerts.dispute} is null
    returning ${alerts}.*
  ), linked_disputes as (
    update ${disputes} set alert = first_alert.id,
      resolution = case when first_alert.outcome = 'refunded'
        then coalesce(${disputes.resolution}, 'alert_refund') else ${disputes.resolution} end,
      updated_at = now()
    from first_alert
    where ${tenantOf(disputes.orgId, disputes.livemode)} and ${disputes.charge} = first_alert.charge
      and ${disputes.alert} is null
    returning ${disputes}.*
  )
  select (select coalesce(jsonb_agg(to_jsonb(a)), '[]') from linked_alerts a) as alerts,
    (select coalesce(jsonb_agg(to_jsonb(d)), '[]') from linked_disputes d) as disputes`);

/**
 * The events of a write and of the links it made, one per object: an object written and then linked in the
 * same transaction reports once, with the row as linking left it (a new dispute's `dispute.created` carries
 * its alert); one only linked reports `dispute.updated` or `alert.updated`.
 */
export function withLinks(
  written: { alerts: AlertEvent[]; disputes: DisputeEvent[] },
  linked: Linked,
): { alerts: AlertEvent[]; disputes: DisputeEvent[] } {
  const alertEvents = [...written.alerts];
  for (const alert of linked.alerts) {
    const at = alertEvents.findIndex((event) => event.alert.id === alert.id);
    const first = alertEvents[at];
    if (first) alertEvents[at] = { ...first, alert };
    else alertEvents.push({ type: 'alert.updated', alert });
  }
  const latest = new Map(linked.disputes.map((event) => [event.dispute.uid, event.dispute]));
  const disputeEvents = written.disputes.map((event) => ({
    ...event,
    dispute: latest.get(event.dispute.uid) ?? event.dispute,
  }));
  const mentioned = new Set(written.disputes.map((event) => event.dispute.uid));
  disputeEvents.push(...linked.disputes.filter((event) => !mentioned.has(event.dispute.uid)));
  return { alerts: alertEvents, disputes: disputeEvents };
}

/**
 * A refund recorded after its alert was linked (the link found the refund under way): the dispute gets
 * `resolution: alert_refund` now, with `dispute.updated`, unless it has a resolution already. Its own
 * transaction, after the alert's: mirroring locks disputes before alerts, so this takes no alert lock.
 */
export async function resolveByAlertRefund(
  db: Db,
  alert: { orgId: string; livemode: boolean; dispute: string | null; outcome: string },
): Promise<void> {
  const { dispute: id, orgId, livemode } = alert;
  if (id === null || alert.outcome !== 'refunded') return;
  await db.transaction(async (tx) => {
    const resolved = await tx
      .update(disputes)
      .set({ resolution: 'alert_refund' satisfies DisputeResolution, updatedAt: sql`now()` })
      .where(
        and(
          eq(disputes.orgId, orgId),
          eq(disputes.livemode, livemode),
          eq(disputes.id, id),
          isNull(disputes.resolution),
        ),
      )
      .returning();
    const templates = await loadTemplates(tx, resolved);
    await recordDisputeEvents(
      tx,
      resolved.map((dispute) => ({
        type: 'dispute.updated',
        dispute,
        template: templates.get(dispute.uid) ?? null,
      })),
    );
  });
}
