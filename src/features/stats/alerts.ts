import { type SQL, sql } from 'drizzle-orm';
import { type Db, rowsOf } from '../../db/client.js';
import { alerts } from '../../db/schema/index.js';
import {
  type AlertStatsDimension,
  alertDimensionsOf,
  maxStatsGroups,
  type StatsDimension,
} from '../../domain/dispute-stats.js';
import type { Tenant } from '../tenancy.js';
import { groupKeys, rankedGroups } from './ranked.js';

/**
 * The alerts part of the outcome statistics (docs/api.md, "Statistics"), by one statement over the alerts
 * table: the alerts created in the range, by the `group_by` dimensions alerts have (processor, month; the
 * others do not split them), each group with its count, the refunded ones and their amounts per currency,
 * and those a dispute followed anyway.
 */

export interface AlertStatsGroup {
  group: Partial<Record<AlertStatsDimension, string | null>>;
  count: number;
  /** Outcome `refunded`. */
  refunded: number;
  /** The refunded alerts' amounts, minor units per lower-case currency, in currency order. */
  refunded_amounts: Record<string, number>;
  /** Alerts a dispute for the same charge followed (`dispute` set), refunded or not. */
  followed_by_dispute: number;
}

export interface AlertStats {
  groupBy: AlertStatsDimension[];
  groups: AlertStatsGroup[];
  /** More groups than `maxStatsGroups` had alerts: the largest were kept. */
  hasMore: boolean;
}

/** The alert's `created` as its object shows it (domain/alerts.ts): when the processor raised it. */
const created = sql`coalesce(${alerts.reportedAt}, ${alerts.createdAt})`;

const dimensionValue: Record<AlertStatsDimension, SQL> = {
  processor: sql`${alerts.processor}`,
  month: sql`to_char(${created} at time zone 'UTC', 'YYYY-MM')`,
};

const list = (items: SQL[]) => sql.join(items, sql`, `);

/**
 * The range is of `created`, which no index orders: the statement reads the tenant's alerts by the list
 * index's (organisation, mode) prefix. Alerts are fewer than a tenant's disputes and read once a request.
 */
export async function alertStats(
  db: Db,
  tenant: Tenant,
  disputeGroupBy: readonly StatsDimension[],
  from: Date,
  to: Date,
): Promise<AlertStats> {
  const groupBy = alertDimensionsOf(disputeGroupBy);
  const values = groupBy.map((dimension) => dimensionValue[dimension]);
  const keys = groupKeys(groupBy.length);
  const refunded = sql`${alerts.outcome} = 'refunded'`;
  const result = await db.execute(
    rankedGroups(
      sql`
        select ${list([
          ...values.map((value, at) => sql`${value} as ${keys[at]}`),
          sql`${alerts.currency} as currency`,
          sql`grouping(${alerts.currency}) = 1 as whole`,
          sql`count(*)::int as total`,
          sql`count(*) filter (where ${refunded})::int as refunded`,
          sql`coalesce(sum(${alerts.amount}) filter (where ${refunded}), 0)::float8 as refunded_amount`,
          sql`count(*) filter (where ${alerts.dispute} is not null)::int as followed`,
        ])}
        from ${alerts}
        where ${alerts.orgId} = ${tenant.orgId} and ${alerts.livemode} = ${tenant.livemode}
          and ${created} >= ${from.toISOString()}::timestamptz and ${created} < ${to.toISOString()}::timestamptz
        group by grouping sets ((${list(values)}), (${list([...values, sql`${alerts.currency}`])}))`,
      keys.length,
    ),
  );
  const groups: AlertStatsGroup[] = [];
  let hasMore = false;
  for (const row of rowsOf<Record<string, unknown>>(result)) {
    if (Number(row.place) > maxStatsGroups) {
      hasMore = true;
    } else if (row.whole === true) {
      groups.push({
        group: Object.fromEntries(groupBy.map((dimension, at) => [dimension, row[`k${at}`] ?? null])),
        count: Number(row.total),
        refunded: Number(row.refunded),
        refunded_amounts: {},
        followed_by_dispute: Number(row.followed),
      });
    } else if (typeof row.currency === 'string' && Number(row.refunded) > 0) {
      // A group's own row comes first, its currencies' rows after it (the statement's order).
      const group = groups.at(-1);
      if (group) group.refunded_amounts[row.currency] = Number(row.refunded_amount);
    }
  }
  return { groupBy, groups, hasMore };
}
