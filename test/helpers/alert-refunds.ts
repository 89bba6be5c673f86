import { eq } from 'drizzle-orm';
import type { Db } from '../../src/db/client.js';
import { alerts, events, organisations } from '../../src/db/schema/index.js';
import type { AlertRefundThresholds } from '../../src/domain/alert-refund-rule.js';
import type { AlertRefunder } from '../../src/features/alerts/refund-dispatch.js';
import { uniqueId } from './disputes.js';

/**
 * Alerts written straight into the table, as the mirroring would leave them (the refund tests do not go
 * through it), and the organisation's refund thresholds as `org settings --alert-refund-up-to` stores them.
 */

export type AlertRow = typeof alerts.$inferSelect;

export async function insertAlert(
  db: Db,
  orgId: string,
  over: Partial<typeof alerts.$inferInsert> = {},
): Promise<AlertRow> {
  const [row] = await db
    .insert(alerts)
    .values({
      orgId,
      livemode: false,
      id: uniqueId('issfr'),
      processor: 'mock',
      account: 'default',
      charge: uniqueId('ch_alert'),
      amount: 5000,
      currency: 'usd',
      fraudType: 'made_with_stolen_card',
      actionable: true,
      reportedAt: new Date('2026-11-20T10:00:00Z'),
      ...over,
    })
    .returning();
  if (!row) throw new Error('alert not inserted');
  return row;
}

export async function setThresholds(db: Db, orgId: string, thresholds: AlertRefundThresholds): Promise<void> {
  await db.update(organisations).set({ alertRefundUpTo: thresholds }).where(eq(organisations.id, orgId));
}

export async function alertRow(db: Db, uid: string): Promise<AlertRow> {
  const [row] = await db.select().from(alerts).where(eq(alerts.uid, uid));
  if (!row) throw new Error(`no alert ${uid}`);
  return row;
}

/** The `alert.*` events of an organisation, oldest first, as the outbox holds them. */
export async function alertEvents(db: Db, orgId: string) {
  const rows = await db.select().from(events).where(eq(events.orgId, orgId)).orderBy(events.createdAt);
  return rows
    .filter((row) => row.type.startsWith('alert.'))
    .map((row) => ({ type: row.type, data: row.data as Record<string, unknown> }));
}

/** A refunder that refunds nothing: for tests of the mirroring that are not about refunds. */
export const noAlertRefunds: AlertRefunder = { async refund() {} };
