import { maxStatsGroups, maxStatsYears, statsQuery } from '../../../domain/dispute-stats.js';
import { disputeStats } from '../../../features/stats/disputes.js';
import { disputeStatsObject } from '../../../features/stats/objects.js';
import { defineEndpoint, type Reply } from '../../endpoint.js';
import { disputeStatsCsv } from './csv.js';

const csvType = 'text/csv';

/**
 * GET /v1/stats/disputes: outcome statistics of the caller's disputes (docs/api.md, "Statistics"), as the
 * `dispute_stats` object, or as CSV for a request that prefers `text/csv`.
 */
export const disputeStatsEndpoint = defineEndpoint({
  method: 'get',
  path: '/stats/disputes',
  input: { query: statsQuery },
  // A range of years of a large tenant is read whole: seconds, not the milliseconds of a page.
  databaseWaitMs: 10_000,
  budget: 'stats',
  docs: {
    operationId: 'disputeStats',
    summary:
      'Outcome statistics of the disputes disputed in a range, by reason, processor, template, network or month',
    description: `Counts by outcome (\`won\`, \`lost\`, \`accepted\`, \`open\`, \`closed_otherwise\`: the state now; \`prevented\`: resolved by a pre-dispute program, whatever the state), the win rate \`won / (won + lost)\`, amounts per currency, the median seconds from \`disputed_at\` to submission, and the Visa fraud disputes by CE 3.0 verdict, per group; and the alerts created in the range, grouped by the dimensions they have (processor, month). \`from\` and \`to\` bound \`disputed_at\` (\`from\` included, \`to\` not; default the year up to now; at most ${maxStatsYears} years). At most ${maxStatsGroups} groups, the largest; \`has_more\` says more exist.`,
    success: { 200: 'The statistics.' },
    returns: 'disputeStats',
    alsoAs: [
      {
        mediaType: csvType,
        description:
          'With `Accept: text/csv`: a header row, then one row per group, amounts in three columns per currency, alert columns where `group_by` names only processor or month; `X-Has-More` says whether groups were left out.',
      },
    ],
    errors: [],
  },
  async handle({ caller, input, url, accepts, deps }): Promise<Reply> {
    const stats = await disputeStats(deps.db, caller, input, new Date());
    if (accepts(['application/json', csvType]) !== csvType) {
      return {
        status: 200,
        body: disputeStatsObject(stats, caller.livemode, url),
        headers: { Vary: 'Accept' },
      };
    }
    return {
      status: 200,
      bytes: Buffer.from(disputeStatsCsv(stats)),
      headers: {
        'Content-Type': `${csvType}; charset=utf-8; header=present`,
        'Content-Disposition': 'attachment; filename="dispute-stats.csv"',
        'X-Has-More': String(stats.hasMore || stats.alerts.hasMore),
        Vary: 'Accept',
      },
    };
  },
});
