import { formatTimestamp } from '../../domain/disputes.js';
import type { DisputeStats } from './disputes.js';

/** The `dispute_stats` object as the API answers it and the CLI prints it (docs/api.md, "Statistics"). */

export const disputeStatsPath = '/v1/stats/disputes';

export function disputeStatsObject(stats: DisputeStats, livemode: boolean, url = disputeStatsPath) {
  return {
    object: 'dispute_stats' as const,
    from: formatTimestamp(stats.from),
    to: formatTimestamp(stats.to),
    group_by: stats.groupBy,
    groups: stats.groups,
    has_more: stats.hasMore,
    alerts: {
      group_by: stats.alerts.groupBy,
      groups: stats.alerts.groups,
      has_more: stats.alerts.hasMore,
    },
    livemode,
    url,
  };
}
