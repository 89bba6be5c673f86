import { and, asc, eq, gt, isNotNull, isNull, lt, or, sql } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import { anyOf } from '../../db/schema/columns.js';
import { alerts, organisations } from '../../db/schema/index.js';
import { type AlertRefundThresholds, refundsOnItsOwn } from '../../domain/alert-refund-rule.js';
import { describeError, type Logger } from '../../logger.js';
import type { AdapterRegistry } from '../../processors/registry.js';
import { refundingAdapter } from './refunds.js';

/**
 * Automatic refunds (docs/architecture.md, "Alert refunds exactly once"): which alerts get a refund job,
 * and when. Postgres stays the truth: the mirroring kicks the job right after its commit
 * (`refundCoveredAlerts`), and the sweep (`sweepAlertRefunds`) finds every alert the kick missed (a
 * process that died between the commit and the enqueue, Redis away, a threshold raised later), so nothing
 * the rule covers is left open.
 */

/** Hands alerts to their refund jobs (jobs/alert-refunder.ts); never throws: the sweep catches up. */
export interface AlertRefunder {
  /** Runs each alert's refund job, after `delayMs` (a retry the processor asked to wait for). */
  refund(alertUids: readonly string[], delayMs?: number): Promise<void>;
}

/**
 * The port function for the mirroring: after committing alerts, it passes their uids, and those the
 * organisation's rule covers get their refund job at once. The job checks the rule again under the
 * alert's lock, so a stale answer here costs a job, never a refund.
 */
export async function refundCoveredAlerts(
  deps: { db: Db; alertRefunds: AlertRefunder; logger?: Logger },
  alertUids: readonly string[],
): Promise<number> {
  if (alertUids.length === 0) return 0;
  let rows: { alert: typeof alerts.$inferSelect; thresholds: AlertRefundThresholds }[];
  try {
    rows = await deps.db
      .select({ alert: alerts, thresholds: organisations.alertRefundUpTo })
      .from(alerts)
      .innerJoin(organisations, eq(organisations.id, alerts.orgId))
      .where(anyOf(alerts.uid, alertUids, 'uuid'));
  } catch (error) {
    // The alerts are committed: the sweep refunds them within its interval.
    deps.logger?.warn({ err: describeError(error) }, 'alert refunds not kicked; the sweep will catch up');
    return 0;
  }
  const covered = rows.filter(({ alert, thresholds }) => refundsOnItsOwn(alert, thresholds));
  await deps.alertRefunds.refund(covered.map(({ alert }) => alert.uid));
  return covered.length;
}

const page = 1000;

/**
 * Every alert whose refund is due and not held: open alerts the rule covers, and refunds started and not
 * finished (an expired lease on an undecided alert: a call may have been made, so it is finished under the
 * same key whatever the rule says now). Postgres narrows to organisations with a threshold in the alert's
 * mode; the rule itself decides (domain/alert-refund-rule.ts). Alerts of processors without a refund call
 * are left alone.
 */
export async function sweepAlertRefunds(deps: {
  db: Db;
  adapters: AdapterRegistry;
  refunder: AlertRefunder;
}): Promise<{ refunds: number }> {
  const mode = sql`case when ${alerts.livemode} then 'live' else 'test' end`;
  const free = or(isNull(alerts.refundClaimedUntil), lt(alerts.refundClaimedUntil, sql`now()`));
  const started = and(
    isNotNull(alerts.refundClaimedUntil),
    sql`${alerts.outcome} not in ('refunded', 'refund_failed')`,
  );
  const covered = and(
    eq(alerts.outcome, 'open'),
    eq(alerts.actionable, true),
    sql`${organisations.alertRefundUpTo} ? ${mode}`,
  );
  let refunds = 0;
  let after = '00000000-0000-0000-0000-000000000000';
  for (;;) {
    const rows = await deps.db
      .select({ alert: alerts, thresholds: organisations.alertRefundUpTo })
      .from(alerts)
      .innerJoin(organisations, eq(organisations.id, alerts.orgId))
      .where(and(isNotNull(alerts.charge), free, or(started, covered), gt(alerts.uid, after)))
      .orderBy(asc(alerts.uid))
      .limit(page);
    const due = rows.filter(
      ({ alert, thresholds }) =>
        (alert.refundClaimedUntil !== null || refundsOnItsOwn(alert, thresholds)) &&
        refundingAdapter(deps.adapters, alert.processor) !== null,
    );
    await deps.refunder.refund(due.map(({ alert }) => alert.uid));
    refunds += due.length;
    const last = rows.at(-1);
    if (!last || rows.length < page) return { refunds };
    after = last.alert.uid;
  }
}
