import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { disputes } from '../../src/db/schema/index.js';
import { parseTimestamp } from '../../src/domain/values.js';
import { createOrganisation } from '../../src/features/organisations/organisations.js';
import { disputeStats } from '../../src/features/stats/disputes.js';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';
import { expectedByReason, expectedTotal, seedStatsFixtures, statsRangeQuery } from '../helpers/stats.js';

/**
 * The outcome statistics' numbers (docs/api.md, "Statistics"), by a direct call of the feature over
 * hand-counted disputes (test/helpers/stats.ts), on real Postgres.
 */

let db: TestDatabase;
let org: string;
beforeAll(async () => {
  db = await createTestDatabase();
  org = (await createOrganisation(db.db, { name: 'Stats' })).org;
  const other = (await createOrganisation(db.db, { name: 'Other' })).org;
  await seedStatsFixtures(db.db, org, other);
});
afterAll(async () => {
  await db.drop();
});

const range = {
  from: parseTimestamp(statsRangeQuery.from) ?? undefined,
  to: parseTimestamp(statsRangeQuery.to) ?? undefined,
};
const stats = (group_by: ('reason' | 'processor' | 'template' | 'network' | 'month')[], tenant = { org }) =>
  disputeStats(db.db, { orgId: tenant.org, livemode: false }, { ...range, group_by }, new Date());

describe('disputeStats', () => {
  it('without group_by: one group of every dispute of the tenant in the range', async () => {
    expect(await stats([])).toEqual({
      from: range.from,
      to: range.to,
      groupBy: [],
      groups: [expectedTotal],
      hasMore: false,
      alerts: {
        groupBy: [],
        groups: [{ group: {}, count: 0, refunded: 0, refunded_amounts: {}, followed_by_dispute: 0 }],
        hasMore: false,
      },
    });
  });

  it('by reason: counts by outcome, the pre-arbitration dispute once as lost, medians of odd and even counts', async () => {
    expect((await stats(['reason'])).groups).toEqual(expectedByReason);
  });

  it('by month of disputed_at (UTC): the reopened dispute in the month it was reopened', async () => {
    const groups = (await stats(['month'])).groups;
    expect(
      groups.map(({ group, count, won, lost, amounts }) => ({ group, count, won, lost, amounts })),
    ).toEqual([
      {
        group: { month: '2026-01' },
        count: 3,
        won: 1,
        lost: 1,
        amounts: { jpy: { disputed: 5000, won: 0, lost: 0 }, usd: { disputed: 3000, won: 1000, lost: 2000 } },
      },
      {
        group: { month: '2026-02' },
        count: 3,
        won: 1,
        lost: 0,
        amounts: { eur: { disputed: 1200, won: 500, lost: 0 }, usd: { disputed: 300, won: 0, lost: 0 } },
      },
      {
        group: { month: '2026-03' },
        count: 3,
        won: 1,
        lost: 1,
        amounts: { eur: { disputed: 2500, won: 0, lost: 2500 }, usd: { disputed: 1000, won: 600, lost: 0 } },
      },
    ]);
  });

  it('by two dimensions, null as a group of its own, in key order with nulls last', async () => {
    const groups = (await stats(['processor', 'network'])).groups;
    expect(groups.map(({ group }) => group)).toEqual([
      { processor: 'adyen', network: null },
      { processor: 'stripe', network: 'amex' },
      { processor: 'stripe', network: 'mastercard' },
      { processor: 'stripe', network: 'visa' },
      { processor: null, network: null },
    ]);
    // a1, a2, a5, a6, a7: submitted after 86400, 259200, 100 and 201 s; the median is (201 + 86400) / 2.
    expect(groups[3]).toEqual({
      group: { processor: 'stripe', network: 'visa' },
      count: 5,
      won: 2,
      lost: 1,
      accepted: 0,
      open: 2,
      closed_otherwise: 0,
      prevented: 0,
      prevented_by: { rdr: 0, alert_refund: 0 },
      win_rate: 2 / 3,
      amounts: { usd: { disputed: 4300, won: 1600, lost: 2000 } },
      submitted: 4,
      median_seconds_to_submission: 43301,
      compelling_evidence: expectedTotal.compelling_evidence,
    });
    expect(groups[0]).toMatchObject({ count: 1, lost: 1, win_rate: 0, submitted: 0 });
    expect(groups[4]).toMatchObject({ count: 1, accepted: 1, win_rate: null });
  });

  it('by template: the merchant ids as they are, the disputes without one as null', async () => {
    const groups = (await stats(['template'])).groups;
    expect(groups.map(({ group, count }) => [group.template, count])).toEqual([
      ['-tpl', 1],
      ['tpl_a', 4],
      ['tpl_b', 1],
      [null, 3],
    ]);
  });

  it('counts nothing of another organisation, another mode or outside the range', async () => {
    const empty = await createOrganisation(db.db, { name: 'Empty' });
    expect(await stats(['reason'], { org: empty.org })).toMatchObject({ groups: [], hasMore: false });
    const live = await disputeStats(
      db.db,
      { orgId: org, livemode: true },
      { ...range, group_by: [] },
      new Date(),
    );
    // The live copies: a1-a8 without the mirrored pre-arbitration dispute.
    expect(live.groups[0]).toMatchObject({ count: 8, won: 3, lost: 1 });
    const [none] = (await disputeStats(db.db, { orgId: empty.org, livemode: false }, range, new Date()))
      .groups;
    expect(none).toEqual({
      group: {},
      count: 0,
      won: 0,
      lost: 0,
      accepted: 0,
      open: 0,
      closed_otherwise: 0,
      prevented: 0,
      prevented_by: { rdr: 0, alert_refund: 0 },
      win_rate: null,
      amounts: {},
      submitted: 0,
      median_seconds_to_submission: null,
      compelling_evidence: {
        visa_fraud: 0,
        qualified: 0,
        requires_action: 0,
        not_qualified: 0,
        not_submitted: 0,
        qualified_share: null,
        win_rate_qualified: null,
        win_rate_not_qualified: null,
      },
    });
  });

  it('answers the 1,000 largest groups and says more exist', async () => {
    const { org: many } = await createOrganisation(db.db, { name: 'Many templates' });
    const row = (template: string) => ({
      orgId: many,
      livemode: false,
      id: `dp_${template}_${Math.random()}`,
      state: 'won',
      reason: 'fraudulent',
      source: 'api',
      template,
      disputedAt: new Date('2026-02-01T00:00:00Z'),
    });
    // 1,002 templates: tpl_9999 has three disputes and the rest one each, so the two left out are the last
    // of the one-dispute templates in key order.
    const templates = Array.from({ length: 1001 }, (_, n) => `tpl_${String(n).padStart(4, '0')}`);
    await db.db
      .insert(disputes)
      .values([...templates.map(row), row('tpl_9999'), row('tpl_9999'), row('tpl_9999')]);
    const answer = await disputeStats(
      db.db,
      { orgId: many, livemode: false },
      { ...range, group_by: ['template'] },
      new Date(),
    );
    expect(answer.hasMore).toBe(true);
    expect(answer.groups.map(({ group }) => group.template)).toEqual([
      ...templates.slice(0, 999),
      'tpl_9999',
    ]);
    expect(answer.groups.at(-1)).toMatchObject({ count: 3, won: 3, win_rate: 1 });
  });

  it('defaults: to is now and from a year before it', async () => {
    const now = new Date('2026-03-10T12:00:00Z');
    const answer = await disputeStats(db.db, { orgId: org, livemode: false }, { group_by: [] }, now);
    expect([answer.from, answer.to]).toEqual([new Date('2025-03-10T12:00:00Z'), now]);
    // The nine counted disputes, and x1 of 2025-12-31 too; not x2 of 2026-04-01.
    expect(answer.groups[0]?.count).toBe(10);
  });
});
