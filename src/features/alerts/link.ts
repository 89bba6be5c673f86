import { and, asc, eq, getTableColumns, isNull, sql } from 'drizzle-orm';
import type { Tx } from '../../db/client.js';
import { anyOf } from '../../db/schema/columns.js';
import { alerts, disputes } from '../../db/schema/index.js';
import type { DisputeRow } from '../disputes/records.js';
import { loadTemplates } from '../disputes/records.js';
import { ownedBy, type Tenant } from '../tenancy.js';
import type { AlertEvent, DisputeEvent } from '../webhooks/events.js';
import type { AlertRow } from './upsert.js';

/**
 * Linking alerts and disputes both ways (docs/api.md, "Alerts", "Linking"): an alert and a dispute of the
 * same organisation, mode and charge name each other, whichever arrived first. Run in the transaction that
 * wrote either, after the write: the one statement per side finds every unlinked pair of the charges
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

  const firstDispute = tx
    .selectDistinctOn([disputes.charge], { charge: disputes.charge, id: disputes.id })
    .from(disputes)
    .where(and(ownedBy(disputes, tenant), anyOf(disputes.charge, unique, 'text')))
    .orderBy(asc(disputes.charge), asc(disputes.createdAt), asc(disputes.id))
    .as('first_dispute');
  const linkedAlerts = await tx
    .update(alerts)
    .set({
      dispute: sql`${firstDispute.id}`,
      outcome: sql`case when ${alerts.outcome} in ('open', 'ignored')
        and (${alerts.refundClaimedUntil} is null or ${alerts.refundClaimedUntil} < now())
        then 'disputed' else ${alerts.outcome} end`,
      updatedAt: sql`now()`,
    })
    .from(firstDispute)
    .where(and(ownedBy(alerts, tenant), eq(alerts.charge, firstDispute.charge), isNull(alerts.dispute)))
    .returning(getTableColumns(alerts));

  const firstAlert = tx
    .selectDistinctOn([alerts.charge], { charge: alerts.charge, id: alerts.id, outcome: alerts.outcome })
    .from(alerts)
    .where(and(ownedBy(alerts, tenant), anyOf(alerts.charge, unique, 'text')))
    .orderBy(asc(alerts.charge), sql`coalesce(${alerts.reportedAt}, ${alerts.createdAt})`, asc(alerts.id))
    .as('first_alert');
  const linkedDisputes: DisputeRow[] = await tx
    .update(disputes)
    .set({
      alert: sql`${firstAlert.id}`,
      resolution: sql`case when ${firstAlert.outcome} = 'refunded'
        then coalesce(${disputes.resolution}, 'alert_refund') else ${disputes.resolution} end`,
      updatedAt: sql`now()`,
    })
    .from(firstAlert)
    .where(and(ownedBy(disputes, tenant), eq(disputes.charge, firstAlert.charge), isNull(disputes.alert)))
    .returning(getTableColumns(disputes));

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
