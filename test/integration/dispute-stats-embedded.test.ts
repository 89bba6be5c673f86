import { describe, expect, it } from 'vitest';
import { parseTimestamp } from '../../src/domain/values.js';
import { createOrganisation } from '../../src/features/organisations/organisations.js';
import { disputeStats } from '../../src/features/stats/disputes.js';
import { useEmbeddedDatabase } from '../helpers/embedded-database.js';
import { expectedByReason, expectedTotal, seedStatsFixtures, statsRangeQuery } from '../helpers/stats.js';
import {
  expectedAlertsByProcessor,
  expectedPreventionByProcessor,
  seedPreventionFixtures,
} from '../helpers/stats-prevention.js';

/**
 * The outcome statistics on the embedded database (PGlite), which `npm start` and the CLI beside it use:
 * the same statements give the same hand-counted numbers as on a Postgres server (dispute-stats.test.ts,
 * dispute-stats-prevention.test.ts).
 */

const embedded = useEmbeddedDatabase('stats-embedded');

describe('disputeStats on PGlite', () => {
  it('counts the hand-counted disputes as Postgres does', async () => {
    const { org } = await createOrganisation(embedded.db(), { name: 'Stats' });
    const other = await createOrganisation(embedded.db(), { name: 'Other' });
    await seedStatsFixtures(embedded.db(), org, other.org);
    const query = {
      from: parseTimestamp(statsRangeQuery.from) ?? undefined,
      to: parseTimestamp(statsRangeQuery.to) ?? undefined,
    };
    const tenant = { orgId: org, livemode: false };
    expect(
      (await disputeStats(embedded.db(), tenant, { ...query, group_by: ['reason'] }, new Date())).groups,
    ).toEqual(expectedByReason);
    expect((await disputeStats(embedded.db(), tenant, query, new Date())).groups).toEqual([expectedTotal]);
  }, 60_000);

  it('counts prevented disputes, CE 3.0 verdicts and alerts as Postgres does', async () => {
    const { org } = await createOrganisation(embedded.db(), { name: 'Prevention' });
    const other = await createOrganisation(embedded.db(), { name: 'Other' });
    await seedPreventionFixtures(embedded.db(), org, other.org);
    const answer = await disputeStats(
      embedded.db(),
      { orgId: org, livemode: false },
      {
        from: parseTimestamp(statsRangeQuery.from) ?? undefined,
        to: parseTimestamp(statsRangeQuery.to) ?? undefined,
        group_by: ['processor'],
      },
      new Date(),
    );
    expect(answer.groups).toEqual(expectedPreventionByProcessor);
    expect(answer.alerts.groups).toEqual(expectedAlertsByProcessor);
  }, 60_000);
});
