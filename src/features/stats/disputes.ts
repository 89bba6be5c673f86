import { type SQL, sql } from 'drizzle-orm';
import { type Db, rowsOf } from '../../db/client.js';
import { stateIn } from '../../db/schema/columns.js';
import { disputes, submissions } from '../../db/schema/index.js';
import { compellingEvidenceScope } from '../../domain/compelling-evidence.js';
import {
  type CompellingEvidenceStatsStatus,
  compellingEvidenceStatsStatuses,
  maxStatsGroups,
  type PreventedResolution,
  preventedResolutions,
  type StatsDimension,
  type StatsQuery,
  statsRange,
} from '../../domain/dispute-stats.js';
import { codeKey } from '../../domain/networks.js';
import { type StatsOutcome, statesOfOutcome, statsOutcomes } from '../../domain/states.js';
import type { Tenant } from '../tenancy.js';
import { type AlertStats, alertStats } from './alerts.js';
import { groupKeys, rankedGroups } from './ranked.js';

/**
 * The outcome statistics of a tenant's disputes (docs/api.md, "Statistics"), computed by one statement over
 * the disputes table: one group per value of the `group_by` dimensions, each with its counts by outcome
 * (domain/states.ts, `statsOutcomeOf`; `prevented` apart), its amounts per currency, the median time from
 * `disputed_at` to submission and its Visa fraud disputes' CE 3.0 verdicts; and the alerts of the range
 * (alerts.ts) by a second one. The API's JSON and CSV and the CLI's `stats` all show what this answers.
 */

export interface CurrencyAmounts {
  disputed: number;
  won: number;
  lost: number;
}

/** The group's Visa fraud disputes (compellingEvidenceScope) by CE 3.0 verdict, and what each won. */
export type CompellingEvidenceStats = { visa_fraud: number } & Record<
  CompellingEvidenceStatsStatus,
  number
> & {
    /** qualified / visa_fraud; null when there are none. */
    qualified_share: number | null;
    /** won / (won + lost) of the qualified, and of the others submitted (requires_action, not_qualified). */
    win_rate_qualified: number | null;
    win_rate_not_qualified: number | null;
  };

/** One group, as the API answers it. */
export type StatsGroup = {
  /** The group's value of each `group_by` dimension; null where the dispute has none (no template). */
  group: Partial<Record<StatsDimension, string | null>>;
  count: number;
  /** Resolved by a pre-dispute program (`resolution`), in no other outcome. */
  prevented: number;
  prevented_by: Record<PreventedResolution, number>;
  /** won / (won + lost); null when none is decided. Accepted disputes are not in it. */
  win_rate: number | null;
  /** Minor units per lower-case currency, in currency order; disputes without a currency are left out. */
  amounts: Record<string, CurrencyAmounts>;
  /** Disputes submitted at or after their `disputed_at`: those the median is of. */
  submitted: number;
  /** Seconds from `disputed_at` to the last submission that got through, rounded; null when none. */
  median_seconds_to_submission: number | null;
  compelling_evidence: CompellingEvidenceStats;
} & Record<StatsOutcome, number>;

export interface DisputeStats {
  from: Date;
  to: Date;
  groupBy: StatsDimension[];
  /** In the order of their keys (each dimension ascending, nulls last). */
  groups: StatsGroup[];
  /** More groups than `maxStatsGroups` had disputes: the largest were kept. */
  hasMore: boolean;
  alerts: AlertStats;
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
const rate = (won: number, lost: number) => (won + lost > 0 ? won / (won + lost) : null);

/** Each dispute's facts beside its columns (the statement's lateral `facts`). */
const prevented = sql`facts.prevented`;
const verdict = sql`facts.verdict`;
const outcomeFilter = (outcome: StatsOutcome) =>
  sql`not ${prevented} and ${stateIn(disputes.state, statesOfOutcome(outcome))}`;

/**
 * A Visa fraud dispute, as `compellingEvidenceApplies` (domain/compelling-evidence.ts) decides it from the
 * same values: a code compared as `codeKey` does, case and surrounding spaces aside.
 */
const scope = compellingEvidenceScope;
const visaFraud = sql`${disputes.network} = ${scope.network} and ${disputes.reason} = ${scope.reason}
  and (${disputes.networkReasonCode} is null
    or upper(regexp_replace(${disputes.networkReasonCode}, '^[[:space:]]+|[[:space:]]+$', '', 'g'))
      = ${codeKey(scope.networkReasonCode)})`;

/**
 * The verdict the issuer saw: this service's, at the dispute's latest submission that got through; one sent
 * without a verdict (before verdicts were kept, or before the dispute was known as Visa fraud) claimed no
 * CE 3.0 and counts as `not_qualified`. Looked up only for Visa fraud disputes (a subplan in a case).
 */
const verdictOf = sql`case when ${visaFraud} then coalesce(
  (select coalesce(${submissions.compellingEvidence} ->> 'status', 'not_qualified') from ${submissions}
    where ${submissions.disputeUid} = ${disputes.uid} and ${submissions.orgId} = ${disputes.orgId}
      and ${submissions.livemode} = ${disputes.livemode} and ${submissions.status} = 'succeeded'
    order by ${submissions.createdAt} desc, ${submissions.id} desc limit 1),
  'not_submitted') end`;

/**
 * `submitted_at` is the last submission that got through. One before `disputed_at` answered an earlier
 * stage (a chargeback won, then reopened as pre-arbitration and not answered again): not this one's.
 */
const answered = sql`${disputes.submittedAt} >= ${disputes.disputedAt}`;
const secondsToSubmission = sql`extract(epoch from ${disputes.submittedAt} - ${disputes.disputedAt})::float8`;

const ceWinCounts = {
  won_qualified: sql`${verdict} = 'qualified' and ${outcomeFilter('won')}`,
  lost_qualified: sql`${verdict} = 'qualified' and ${outcomeFilter('lost')}`,
  won_not_qualified: sql`${verdict} in ('requires_action', 'not_qualified') and ${outcomeFilter('won')}`,
  lost_not_qualified: sql`${verdict} in ('requires_action', 'not_qualified') and ${outcomeFilter('lost')}`,
};

interface SliceRow {
  keys: (string | null)[];
  currency: string | null;
  /** The group's own row, rather than one currency's within it. */
  whole: boolean;
  place: number;
  total: number;
  outcomes: Record<StatsOutcome, number>;
  preventedBy: Record<PreventedResolution, number>;
  amounts: CurrencyAmounts;
  submitted: number;
  median: number | null;
  compellingEvidence: CompellingEvidenceStats;
}

const count = (filter: SQL, name: string) =>
  sql`count(*) filter (where ${filter})::int as ${sql.identifier(name)}`;

/**
 * One statement: grouping sets give each group's row (counts, median) and its rows per currency
 * (amounts) in one scan; groups are ranked by size so that at most `maxStatsGroups` come back, and one more
 * tells that others were left out (ranked.ts).
 */
async function slices(db: Db, tenant: Tenant, groupBy: StatsDimension[], from: Date, to: Date) {
  const values = groupBy.map((dimension) => dimensionValue[dimension]);
  const keys = groupKeys(groupBy.length);
  const sum = (filter: SQL) => sql`coalesce(sum(${disputes.amount}) filter (where ${filter}), 0)::float8`;
  const aggregates = [
    sql`${disputes.currency} as currency`,
    sql`grouping(${disputes.currency}) = 1 as whole`,
    sql`count(*)::int as total`,
    ...statsOutcomes.map((outcome) => count(outcomeFilter(outcome), outcome)),
    ...preventedResolutions.map((resolution) =>
      count(sql`${disputes.resolution} = ${resolution}`, `prevented_${resolution}`),
    ),
    sql`${sum(sql`true`)} as disputed_amount`,
    sql`${sum(outcomeFilter('won'))} as won_amount`,
    sql`${sum(outcomeFilter('lost'))} as lost_amount`,
    sql`count(*) filter (where ${answered})::int as submitted`,
    sql`round((percentile_cont(0.5) within group (order by ${secondsToSubmission})
      filter (where ${answered}))::numeric)::float8 as median`,
    ...compellingEvidenceStatsStatuses.map((status) => count(sql`${verdict} = ${status}`, `ce_${status}`)),
    ...Object.entries(ceWinCounts).map(([name, filter]) => count(filter, `ce_${name}`)),
  ];
  const result = await db.execute(
    rankedGroups(
      sql`
        select ${list(values.map((value, at) => sql`${value} as ${keys[at]}`).concat(aggregates))}
        from ${disputes}
        cross join lateral (select
          coalesce(${disputes.resolution} in (${list(preventedResolutions.map((value) => sql`${value}`))}), false) as prevented,
          ${verdictOf} as verdict) facts
        where ${disputes.orgId} = ${tenant.orgId} and ${disputes.livemode} = ${tenant.livemode}
          and ${disputes.disputedAt} >= ${from.toISOString()}::timestamptz
          and ${disputes.disputedAt} < ${to.toISOString()}::timestamptz
        group by grouping sets ((${list(values)}), (${list([...values, sql`${disputes.currency}`])}))`,
      keys.length,
    ),
  );
  return rowsOf<Record<string, unknown>>(result).map((row): SliceRow => {
    const number = (name: string) => Number(row[name]);
    const ce = (name: string) => number(`ce_${name}`);
    const statuses = Object.fromEntries(
      compellingEvidenceStatsStatuses.map((status) => [status, ce(status)]),
    ) as Record<CompellingEvidenceStatsStatus, number>;
    const visaFraud = compellingEvidenceStatsStatuses.reduce((sum, status) => sum + statuses[status], 0);
    return {
      keys: keys.map((_, at) => row[`k${at}`] as string | null),
      currency: row.currency as string | null,
      whole: row.whole === true,
      place: number('place'),
      total: number('total'),
      outcomes: Object.fromEntries(statsOutcomes.map((outcome) => [outcome, number(outcome)])) as Record<
        StatsOutcome,
        number
      >,
      preventedBy: Object.fromEntries(
        preventedResolutions.map((resolution) => [resolution, number(`prevented_${resolution}`)]),
      ) as Record<PreventedResolution, number>,
      amounts: {
        disputed: number('disputed_amount'),
        won: number('won_amount'),
        lost: number('lost_amount'),
      },
      submitted: number('submitted'),
      median: row.median === null ? null : Number(row.median),
      compellingEvidence: {
        visa_fraud: visaFraud,
        ...statuses,
        qualified_share: visaFraud > 0 ? statuses.qualified / visaFraud : null,
        win_rate_qualified: rate(ce('won_qualified'), ce('lost_qualified')),
        win_rate_not_qualified: rate(ce('won_not_qualified'), ce('lost_not_qualified')),
      },
    };
  });
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
  const alerts = await alertStats(db, tenant, groupBy, from, to);
  const groups: StatsGroup[] = [];
  let hasMore = false;
  for (const row of rows) {
    if (row.place > maxStatsGroups) {
      hasMore = true;
    } else if (row.whole) {
      const preventedCount = preventedResolutions.reduce((sum, by) => sum + row.preventedBy[by], 0);
      groups.push({
        group: Object.fromEntries(groupBy.map((dimension, at) => [dimension, row.keys[at] ?? null])),
        count: row.total,
        ...row.outcomes,
        prevented: preventedCount,
        prevented_by: row.preventedBy,
        win_rate: rate(row.outcomes.won, row.outcomes.lost),
        amounts: {},
        submitted: row.submitted,
        median_seconds_to_submission: row.median,
        compelling_evidence: row.compellingEvidence,
      });
    } else if (row.currency !== null) {
      // A group's own row comes first, its currencies' rows after it (the statement's order).
      const group = groups.at(-1);
      if (group) group.amounts[row.currency] = row.amounts;
    }
  }
  return { from, to, groupBy, groups, hasMore, alerts };
}
