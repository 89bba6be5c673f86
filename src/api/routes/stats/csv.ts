import { statsOutcomes } from '../../../domain/states.js';
import type { DisputeStats } from '../../../features/stats/disputes.js';
import { type CsvCell, csvText } from '../../csv.js';

/**
 * The statistics as CSV (docs/api.md, "Statistics"): one row per group with the numbers of the JSON
 * answer, its amounts flattened into three columns per currency that any group has
 * (`amount_disputed_usd`, `amount_won_usd`, `amount_lost_usd`; 0 where the group has none), so every row
 * adds up like the others.
 */
export function disputeStatsCsv(stats: DisputeStats): string {
  const currencies = [...new Set(stats.groups.flatMap((group) => Object.keys(group.amounts)))].sort();
  const header = [
    ...stats.groupBy,
    'count',
    ...statsOutcomes,
    'win_rate',
    'submitted',
    'median_seconds_to_submission',
    ...currencies.flatMap((currency) =>
      ['disputed', 'won', 'lost'].map((amount) => `amount_${amount}_${currency}`),
    ),
  ];
  const rows = stats.groups.map((group): CsvCell[] => [
    ...stats.groupBy.map((dimension) => group.group[dimension] ?? null),
    group.count,
    ...statsOutcomes.map((outcome) => group[outcome]),
    group.win_rate,
    group.submitted,
    group.median_seconds_to_submission,
    ...currencies.flatMap((currency) => {
      const amounts = group.amounts[currency] ?? { disputed: 0, won: 0, lost: 0 };
      return [amounts.disputed, amounts.won, amounts.lost];
    }),
  ]);
  return csvText([header, ...rows]);
}
