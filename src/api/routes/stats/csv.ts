import {
  alertStatsDimensions,
  compellingEvidenceStatsStatuses,
  preventedResolutions,
} from '../../../domain/dispute-stats.js';
import { statsOutcomes } from '../../../domain/states.js';
import type { AlertStatsGroup } from '../../../features/stats/alerts.js';
import type { DisputeStats, StatsGroup } from '../../../features/stats/disputes.js';
import { type CsvCell, csvText } from '../../csv.js';

/**
 * The statistics as CSV (docs/api.md, "Statistics"): one row per group with the numbers of the JSON
 * answer, its amounts flattened into three columns per currency that any group has
 * (`amount_disputed_usd`, `amount_won_usd`, `amount_lost_usd`; 0 where the group has none), so every row
 * adds up like the others. Alerts have columns of their own where their groups are the disputes' (group_by
 * names only processor or month): a group with alerts and no disputes gets a row of its own.
 */

const currenciesOf = (amounts: Record<string, unknown>[]) =>
  [...new Set(amounts.flatMap((each) => Object.keys(each)))].sort();

const ceColumns = [
  'visa_fraud',
  ...compellingEvidenceStatsStatuses,
  'qualified_share',
  'win_rate_qualified',
  'win_rate_not_qualified',
] as const;

/** What a group with alerts and no disputes shows in the disputes' columns. */
function noDisputes(group: StatsGroup['group']): StatsGroup {
  const zero = (names: readonly string[]) => Object.fromEntries(names.map((name) => [name, 0]));
  return {
    group,
    count: 0,
    ...(zero(statsOutcomes) as Record<(typeof statsOutcomes)[number], number>),
    prevented: 0,
    prevented_by: zero(preventedResolutions) as StatsGroup['prevented_by'],
    win_rate: null,
    amounts: {},
    submitted: 0,
    median_seconds_to_submission: null,
    compelling_evidence: {
      visa_fraud: 0,
      ...(zero(compellingEvidenceStatsStatuses) as Record<
        (typeof compellingEvidenceStatsStatuses)[number],
        0
      >),
      qualified_share: null,
      win_rate_qualified: null,
      win_rate_not_qualified: null,
    },
  };
}

/** Key order as the statement's: each value by its bytes, null last. */
function compareKeys(a: (string | null)[], b: (string | null)[]): number {
  for (const [at, left] of a.entries()) {
    const right = b[at] ?? null;
    if (left === right) continue;
    if (left === null) return 1;
    if (right === null) return -1;
    return Buffer.compare(Buffer.from(left), Buffer.from(right));
  }
  return 0;
}

/** The disputes' groups with the alerts' of the same key beside them, when the two are grouped alike. */
function rowsWithAlerts(stats: DisputeStats): {
  aligned: boolean;
  rows: { group: StatsGroup; alerts?: AlertStatsGroup }[];
} {
  const aligned = stats.groupBy.every((dimension) =>
    (alertStatsDimensions as readonly string[]).includes(dimension),
  );
  if (!aligned) return { aligned, rows: stats.groups.map((group) => ({ group })) };
  const keyOf = (group: Record<string, string | null | undefined>) =>
    stats.groupBy.map((dimension) => group[dimension] ?? null);
  const rows = new Map<string, { group: StatsGroup; alerts?: AlertStatsGroup }>();
  for (const group of stats.groups) rows.set(JSON.stringify(keyOf(group.group)), { group });
  for (const alerts of stats.alerts.groups) {
    const key = JSON.stringify(keyOf(alerts.group));
    rows.set(key, { group: rows.get(key)?.group ?? noDisputes(alerts.group), alerts });
  }
  const sorted = [...rows.values()].sort((a, b) => compareKeys(keyOf(a.group.group), keyOf(b.group.group)));
  return { aligned, rows: sorted };
}

export function disputeStatsCsv(stats: DisputeStats): string {
  const { aligned: alertColumns, rows } = rowsWithAlerts(stats);
  const currencies = currenciesOf(stats.groups.map((group) => group.amounts));
  const refundCurrencies = currenciesOf(rows.map((row) => row.alerts?.refunded_amounts ?? {}));
  const header = [
    ...stats.groupBy,
    'count',
    ...statsOutcomes,
    'prevented',
    ...preventedResolutions.map((resolution) => `prevented_${resolution}`),
    'win_rate',
    'submitted',
    'median_seconds_to_submission',
    ...ceColumns.map((name) => `ce_${name}`),
    ...currencies.flatMap((currency) =>
      ['disputed', 'won', 'lost'].map((amount) => `amount_${amount}_${currency}`),
    ),
    ...(alertColumns
      ? [
          'alerts',
          'alerts_refunded',
          'alerts_followed_by_dispute',
          ...refundCurrencies.map((currency) => `alerts_refunded_amount_${currency}`),
        ]
      : []),
  ];
  const lines = rows.map(({ group, alerts }): CsvCell[] => [
    ...stats.groupBy.map((dimension) => group.group[dimension] ?? null),
    group.count,
    ...statsOutcomes.map((outcome) => group[outcome]),
    group.prevented,
    ...preventedResolutions.map((resolution) => group.prevented_by[resolution]),
    group.win_rate,
    group.submitted,
    group.median_seconds_to_submission,
    ...ceColumns.map((name) => group.compelling_evidence[name]),
    ...currencies.flatMap((currency) => {
      const amounts = group.amounts[currency] ?? { disputed: 0, won: 0, lost: 0 };
      return [amounts.disputed, amounts.won, amounts.lost];
    }),
    ...(alertColumns
      ? [
          alerts?.count ?? 0,
          alerts?.refunded ?? 0,
          alerts?.followed_by_dispute ?? 0,
          ...refundCurrencies.map((currency) => alerts?.refunded_amounts[currency] ?? 0),
        ]
      : []),
  ]);
  return csvText([header, ...lines]);
}
