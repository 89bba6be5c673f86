import { describe, expect, it } from 'vitest';
import { parseTimestamp } from '../../src/domain/values.js';
import { createOrganisation } from '../../src/features/organisations/organisations.js';
import { disputeStats } from '../../src/features/stats/disputes.js';
import { useEmbeddedDatabase } from '../helpers/embedded-database.js';
import { expectedByReason, expectedTotal, seedStatsFixtures, statsRangeQuery } from '../helpers/stats.js';

/**
 * The outcome statistics on the embedded database (PGlite), which `npm start` and the CLI beside it use:
 * the same statement gives the same hand-counted numbers as on a Postgres server (dispute-stats.test.ts).
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
});
