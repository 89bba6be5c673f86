import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Database, openDatabase } from '../../src/db/client.js';
import { runMigrations } from '../../src/db/migrate.js';
import { parseTimestamp } from '../../src/domain/values.js';
import { createOrganisation } from '../../src/features/organisations/organisations.js';
import { disputeStats } from '../../src/features/stats/disputes.js';
import { expectedByReason, expectedTotal, seedStatsFixtures, statsRangeQuery } from '../helpers/stats.js';

/**
 * The outcome statistics on the embedded database (PGlite), which `npm start` and the CLI beside it use:
 * the same statement gives the same hand-counted numbers as on a Postgres server (dispute-stats.test.ts).
 */

let dataDir: string;
let database: Database;
beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'rebuttal-stats-embedded-'));
  database = await openDatabase({ DATABASE_URL: undefined, DATA_DIR: dataDir });
  await runMigrations(database.db);
}, 120_000);
afterAll(async () => {
  await database?.close();
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
});

describe('disputeStats on PGlite', () => {
  it('counts the hand-counted disputes as Postgres does', async () => {
    const { org } = await createOrganisation(database.db, { name: 'Stats' });
    const other = await createOrganisation(database.db, { name: 'Other' });
    await seedStatsFixtures(database.db, org, other.org);
    const query = {
      from: parseTimestamp(statsRangeQuery.from) ?? undefined,
      to: parseTimestamp(statsRangeQuery.to) ?? undefined,
    };
    const tenant = { orgId: org, livemode: false };
    expect(
      (await disputeStats(database.db, tenant, { ...query, group_by: ['reason'] }, new Date())).groups,
    ).toEqual(expectedByReason);
    expect((await disputeStats(database.db, tenant, query, new Date())).groups).toEqual([expectedTotal]);
  }, 60_000);
});
