import { getTableColumns, sql } from 'drizzle-orm';
import type { Tx } from '../../db/client.js';
import { alerts } from '../../db/schema/index.js';
import type { NormalizedAlert } from '../../processors/alert-types.js';
import type { Tenant } from '../tenancy.js';

/**
 * What a processor's news of its alerts writes (docs/architecture.md, "Alerts"), in one statement, so that
 * it holds against the refund executor and the API writing the same rows:
 * - only processor-owned columns are written, and the outcome as the processor's news moves it; this
 *   service's refund, its failure, the refund lease and the dispute link never are;
 * - a row is written only when something changed: an identical re-listing bumps no version, sends no event;
 * - a row of another account (or processor) with the same id is left alone.
 */

export type AlertRow = typeof alerts.$inferSelect;

/** The account the alerts belong to: its tenant, processor and name (alerts carry it as `account`). */
export interface AlertAccount extends Tenant {
  uid: string;
  id: string;
  processor: string;
}

const excluded = (column: string) => sql.raw(`excluded.${column}`);

/**
 * `actionable` as news sets it. Unordered news (a push: no cursor says what is newer) never makes an alert
 * actionable again: processors only ever withdraw it (Stripe turns it false once the charge is refunded or
 * disputed), so a late or redelivered push cannot undo that.
 */
const nextActionable = (ordered: boolean) =>
  ordered ? excluded('actionable') : sql`(${alerts.actionable} and ${excluded('actionable')})`;

/**
 * The outcome as the processor's news moves it (docs/api.md, "Alerts"). Only `open` and `ignored` follow
 * the news: an open alert the processor no longer offers for action, with nothing done here, is `ignored`
 * (and `open` again if the processor offers it again). `refunded`, `refund_failed` and `disputed` record
 * what happened and never move back. An alert whose refund is being made right now (its lease held) stays
 * `open`: the processor's withdrawal is the refund's own echo, and the executor records `refunded`.
 */
const nextOutcome = (ordered: boolean) => sql`case
  when ${alerts.outcome} = 'open' and not ${nextActionable(ordered)}
    and (${alerts.refundClaimedUntil} is null or ${alerts.refundClaimedUntil} < now()) then 'ignored'
  when ${alerts.outcome} = 'ignored' and ${nextActionable(ordered)} then 'open'
  else ${alerts.outcome} end`;

/** What the news leaves out keeps what is stored: a push may not tell the amount, a listing always does. */
const kept = (column: string, stored: unknown) => sql`coalesce(${excluded(column)}, ${stored})`;

const written = {
  charge: (_: boolean) => kept('charge', alerts.charge),
  amount: (_: boolean) => kept('amount', alerts.amount),
  currency: (_: boolean) => kept('currency', alerts.currency),
  fraudType: (_: boolean) => kept('fraud_type', alerts.fraudType),
  reportedAt: (_: boolean) => kept('reported_at', alerts.reportedAt),
  actionable: nextActionable,
  outcome: nextOutcome,
};

const storedColumns = sql.join(
  [
    alerts.charge,
    alerts.amount,
    alerts.currency,
    alerts.fraudType,
    alerts.reportedAt,
    alerts.actionable,
    alerts.outcome,
  ],
  sql`, `,
);

export interface WrittenAlert extends AlertRow {
  inserted: boolean;
}

/**
 * Upserts a page of one account's alerts (in id order, each id once) inside the caller's transaction, and
 * answers the rows it wrote. `ordered`: the news comes in the processor's order (a poll).
 */
export async function upsertAlerts(
  tx: Tx,
  account: AlertAccount,
  page: readonly NormalizedAlert[],
  ordered: boolean,
): Promise<WrittenAlert[]> {
  if (page.length === 0) return [];
  const set = Object.fromEntries(Object.entries(written).map(([key, value]) => [key, value(ordered)]));
  const incoming = sql.join(
    ['charge', 'amount', 'currency', 'fraudType', 'reportedAt', 'actionable', 'outcome'].map(
      (key) => set[key] as ReturnType<typeof kept>,
    ),
    sql`, `,
  );
  return tx
    .insert(alerts)
    .values(
      page.map((alert) => ({
        orgId: account.orgId,
        livemode: account.livemode,
        id: alert.id,
        processor: account.processor,
        account: account.id,
        charge: alert.charge,
        amount: alert.amount,
        currency: alert.currency,
        fraudType: alert.fraudType,
        actionable: alert.actionable,
        reportedAt: alert.reportedAt,
        // Nothing can be done about a warning the processor no longer offers for action.
        outcome: alert.actionable ? ('open' as const) : ('ignored' as const),
      })),
    )
    .onConflictDoUpdate({
      target: [alerts.orgId, alerts.livemode, alerts.id],
      set: { ...set, updatedAt: sql`now()` },
      setWhere: sql`${alerts.processor} = ${excluded('processor')} and ${alerts.account} = ${excluded('account')}
        and (${storedColumns}) is distinct from (${incoming})`,
    })
    .returning({ ...getTableColumns(alerts), inserted: sql<boolean>`xmax = 0` });
}
