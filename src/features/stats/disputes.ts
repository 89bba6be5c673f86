import { type SQL, sql } from 'drizzle-orm';
import { type Db, rowsOf } from '../../db/client.js';
import { stateIn } from '../../db/schema/columns.js';
import { disputes } from '../../db/schema/index.js';
import {
  maxStatsGroups,
  type StatsDimension,
  type StatsQuery,
  statsRange,
} from '../../domain/dispute-stats.js';
import { type StatsOutcome, statesOfOutcome, statsOutcomes } from '../../domain/states.js';
import type { Tenant } from '../tenancy.js';

/**
 * The outcome statistics of a tenant's disputes (docs/api.md, "Statistics"), computed by one statement over
 * the disputes table: one group per value of the `group_by` dimensions, each with its counts by outcome
 * (domain/states.ts, `statsOutcomeOf`), its amounts per currency, and the median time from `disputed_at`
 * to submission. The API's JSON and CSV and the CLI's `stats` all show what this answers.
 */

export interface CurrencyAmounts {
  disputed: number;
  won: number;
  lost: number;
}

/** One group, as the API answers it. */
export type StatsGroup = {
  /** The group's value of each `group_by` dimension; null where the dispute has none (no template). */
  group: Partial<Record<StatsDimension, string | null>>;
  count: number;
  /** won / (won + lost); null when none is decided. Accepted disputes are not in it. */
  win_rate: number | null;
  /** Minor units per lower-case currency, in currency order; disputes without a currency are left out. */
  amounts: Record<string, CurrencyAmounts>;
  /** Disputes submitted at or after their `disputed_at`: those the median is of. */
  submitted: number;
  /** Seconds from `disputed_at` to the last submission that got through, rounded; null when none. */
  median_seconds_to_submission: number | null;
} & Record<StatsOutcome, number>;

export interface DisputeStats {
  from: Date;
  to: Date;
  groupBy: StatsDimension[];
  /** In the order of their keys (each dimension ascending, nulls last). */
  groups: StatsGroup[];
  /** More groups than `maxStatsGroups` had disputes: the largest were kept. */
  hasMore: boolean;
}

/** What each dimension groups by. Months are of `disputed_at` in UTC, `YYYY-MM`. */
const dimensionValue: Record<StatsDimension, SQL> = {
  reason: sql`${disputes.reason}`,
  processor: sql`${disputes.processor}`,
  template: sql`${disputes.template}`,
  network: sql`${disputes.network}`,
  month: sql`to_char(${disputes.disputedAt} at time zone 'UTC', 'YYYY-MM')`,
};

const list = (items: SQL[]) => sql.join(items, sql`, `);
const outcomeFilter = (outcome: StatsOutcome) => stateIn(disputes.state, statesOfOutcome(outcome));
/**
 * `submitted_at` is the last submission that got through. One before `disputed_at` answered an earlier
 * stage (a chargeback won, then reopened as pre-arbitration and not answered again): not this one's.
 */
const answered = sql`${disputes.submittedAt} >= ${disputes.disputedAt}`;
const secondsToSubmission = sql`extract(epoch from ${disputes.submittedAt} - ${disputes.disputedAt})::float8`;

interface SliceRow {
  keys: (string | null)[];
  currency: string | null;
  /** The group's own row, rather than one currency's within it. */
  whole: boolean;
  place: number;
  total: number;
  outcomes: Record<StatsOutcome, number>;
  amounts: CurrencyAmounts;
  submitted: number;
  median: number | null;
}

/**
 * One statement: grouping sets give each group's row (counts, median) and its rows per currency
 * (amounts) in one scan; groups are ranked by size so that at most `maxStatsGroups` come back, and one more
 * tells that others were left out.
 */
async function slices(db: Db, tenant: Tenant, groupBy: StatsDimension[], from: Date, to: Date) {
  const values = groupBy.map((dimension) => dimensionValue[dimension]);
  const keys = groupBy.map((_, at) => sql`${sql.identifier(`k${at}`)}`);
  const ordered = keys.map((key) => sql`${key} collate "C"`);
  const outcomeCounts = statsOutcomes.map(
    (outcome) => sql`count(*) filter (where ${outcomeFilter(outcome)})::int as ${sql.identifier(outcome)}`,
  );
  const sum = (filter: SQL) => sql`coalesce(sum(${disputes.amount}) filter (where ${filter}), 0)::float8`;
  const aggregates = [
    sql`${disputes.currency} as currency`,
    sql`grouping(${disputes.currency}) = 1 as whole`,
    sql`count(*)::int as total`,
    ...outcomeCounts,
    sql`${sum(sql`true`)} as disputed_amount`,
    sql`${sum(outcomeFilter('won'))} as won_amount`,
    sql`${sum(outcomeFilter('lost'))} as lost_amount`,
    sql`count(*) filter (where ${answered})::int as submitted`,
    sql`round((percentile_cont(0.5) within group (order by ${secondsToSubmission})
      filter (where ${answered}))::numeric)::float8 as median`,
  ];
  const result = await db.execute(sql`
    select * from (
      select sized.*, dense_rank() over (order by ${list([sql`group_total desc`, ...ordered])}) as place
      from (
        select sliced.*, max(total) over (${keys.length > 0 ? sql`partition by ${list(keys)}` : sql``}) as group_total
        from (
          select ${list(values.map((value, at) => sql`${value} as ${keys[at]}`).concat(aggregates))}
          from ${disputes}
          where ${disputes.orgId} = ${tenant.orgId} and ${disputes.livemode} = ${tenant.livemode}
            and ${disputes.disputedAt} >= ${from.toISOString()}::timestamptz
            and ${disputes.disputedAt} < ${to.toISOString()}::timestamptz
          group by grouping sets ((${list(values)}), (${list([...values, sql`${disputes.currency}`])}))
        ) sliced
      ) sized
    ) ranked
    where place <= ${maxStatsGroups + 1}
    order by ${list([...ordered.map((key) => sql`${key} nulls last`), sql`whole desc`, sql`currency`])}`);
  return rowsOf<Record<string, unknown>>(result).map(
    (row): SliceRow => ({
      keys: keys.map((_, at) => row[`k${at}`] as string | null),
      currency: row.currency as string | null,
      whole: row.whole === true,
      place: Number(row.place),
      total: Number(row.total),
      outcomes: Object.fromEntries(statsOutcomes.map((outcome) => [outcome, Number(row[outcome])])) as Record<
        StatsOutcome,
        number
      >,
      amounts: {
        disputed: Number(row.disputed_amount),
        won: Number(row.won_amount),
        lost: Number(row.lost_amount),
      },
      submitted: Number(row.submitted),
      median: row.median === null ? null : Number(row.median),
    }),
  );
}

/** The statistics of the disputes of `tenant` with `disputed_at` in the query's range (statsRange). */
export async function disputeStats(
  db: Db,
  tenant: Tenant,
  query: StatsQuery,
  now: Date,
): Promise<DisputeStats> {
  const { from, to } = statsRange(query, now);
  const groupBy = query.group_by ?? [];
  const rows = await slices(db, tenant, groupBy, from, to);
  const groups: StatsGroup[] = [];
  let hasMore = false;
  for (const row of rows) {
    if (row.place > maxStatsGroups) {
      hasMore = true;
    } else if (row.whole) {
      const { won, lost } = row.outcomes;
      groups.push({
        group: Object.fromEntries(groupBy.map((dimension, at) => [dimension, row.keys[at] ?? null])),
        count: row.total,
        ...row.outcomes,
        win_rate: won + lost > 0 ? won / (won + lost) : null,
        amounts: {},
        submitted: row.submitted,
        median_seconds_to_submission: row.median,
      });
    } else if (row.currency !== null) {
      // A group's own row comes first, its currencies' rows after it (the statement's order).
      const group = groups.at(-1);
      if (group) group.amounts[row.currency] = row.amounts;
    }
  }
  return { from, to, groupBy, groups, hasMore };
}
