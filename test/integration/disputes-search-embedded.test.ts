import { describe, expect, it } from 'vitest';
import type { DisputeFilters } from '../../src/features/disputes/filters.js';
import { countDisputes, listDisputes } from '../../src/features/disputes/list.js';
import { createOrganisation } from '../../src/features/organisations/organisations.js';
import {
  baseFixture,
  expectedIds,
  type Filters,
  type Fixture,
  storeWithLookalikes,
} from '../helpers/dispute-search.js';
import { useEmbeddedDatabase } from '../helpers/embedded-database.js';

/**
 * The dispute list's filters on the embedded database (PGlite), which `npm start` uses: the filtered
 * statements, the counts and the search indexes' migration work there as on a Postgres server.
 */

const embedded = useEmbeddedDatabase('search-embedded');

const fixtures: Fixture[] = (
  [
    { id: 'dp_e_1' },
    { id: 'dp_e_2', state: 'won', reason: 'duplicate', evidence: 'products' },
    { id: 'dp_e_3', customerEmail: 'Ann@Example.com', amount: 50 },
    { id: 'dp_e_4', state: 'lost', currency: 'eur', evidence: 'template' },
    { id: 'dp_e_5', reason: 'duplicate', dueBy: new Date('2026-06-01T00:00:00Z') },
    { id: 'dp_e_6', network: null, processor: 'adyen' },
  ] as (Partial<Fixture> & { id: string })[]
).map((overrides, index) => ({
  ...baseFixture,
  // Two a second, with milliseconds: compared to the second all the same.
  created: new Date(Date.parse('2026-05-02T10:00:00.000Z') + index * 500),
  ...overrides,
}));

describe('the dispute list on PGlite', () => {
  it('filters, pages and counts as on Postgres', async () => {
    const { org } = await createOrganisation(embedded.db(), { name: 'Search' });
    const other = await createOrganisation(embedded.db(), { name: 'Other' });
    await storeWithLookalikes(embedded.db(), org, other.org, fixtures);
    const caller = {
      orgId: org,
      livemode: false,
      apiVersion: '2021-09-15',
      version: '2021-09-15',
      queueLeadMinutes: 1440,
    } as const;
    const uids = new Map(
      (await embedded.db().query.disputes.findMany({ columns: { uid: true, id: true } })).map((row) => [
        row.uid,
        row.id,
      ]),
    );
    const listed = async (filters: DisputeFilters, page: { startingAfter?: string } = {}) =>
      (await listDisputes(embedded.db(), caller, { limit: 100, ...page, filters })).data.map((stamp) =>
        uids.get(stamp.uid),
      );
    const cases: [DisputeFilters, Filters][] = [
      [{ reasons: ['duplicate'] }, { reason: ['duplicate'] }],
      [{ customerEmails: ['ann@EXAMPLE.com'] }, { customer_email: ['ann@EXAMPLE.com'] }],
      [
        { hasEvidence: true, currencies: ['usd', 'eur'] },
        { has_evidence: true, currency: ['usd', 'eur'] },
      ],
      [
        { networks: ['visa'], amount: { gt: 50 } },
        { network: ['visa'], amount: { gt: 50 } },
      ],
      [
        {
          created: { lte: new Date('2026-05-02T10:00:01Z') },
          dueBy: { gte: new Date('2026-06-05T00:00:00Z') },
        },
        {
          created: { lte: new Date('2026-05-02T10:00:01Z') },
          due_by: { gte: new Date('2026-06-05T00:00:00Z') },
        },
      ],
    ];
    for (const [filters, contract] of cases) {
      expect(await listed(filters), JSON.stringify(contract)).toEqual(expectedIds(fixtures, contract));
    }
    const all = expectedIds(fixtures, { state: ['needs_response'] });
    expect(await listed({ states: ['needs_response'] }, { startingAfter: all[1] })).toEqual(all.slice(2));
    expect(await countDisputes(embedded.db(), caller, { reasons: ['duplicate'] })).toMatchObject({
      total: 2,
      byState: { needs_response: 1, won: 1, lost: 0 },
    });
  }, 60_000);
});
