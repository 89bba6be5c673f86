import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { alerts } from '../../src/db/schema/index.js';
import type { StatsDimension } from '../../src/domain/dispute-stats.js';
import { parseTimestamp } from '../../src/domain/values.js';
import { createOrganisation } from '../../src/features/organisations/organisations.js';
import { disputeStats } from '../../src/features/stats/disputes.js';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';
import { statsRangeQuery } from '../helpers/stats.js';
import {
  expectedAlertsByMonth,
  expectedAlertsByProcessor,
  expectedAlertsTotal,
  expectedPreventionByProcessor,
  expectedPreventionTotal,
  seedPreventionFixtures,
} from '../helpers/stats-prevention.js';

/**
 * The statistics' prevented disputes, CE 3.0 verdicts and alerts (docs/api.md, "Statistics"), by a direct
 * call of the feature over hand-counted rows inserted directly (test/helpers/stats-prevention.ts).
 */

let db: TestDatabase;
let org: string;
let other: string;
beforeAll(async () => {
  db = await createTestDatabase();
  org = (await createOrganisation(db.db, { name: 'Prevention' })).org;
  other = (await createOrganisation(db.db, { name: 'Other' })).org;
  await seedPreventionFixtures(db.db, org, other);
});
afterAll(async () => {
  await db.drop();
});

const range = {
  from: parseTimestamp(statsRangeQuery.from) ?? undefined,
  to: parseTimestamp(statsRangeQuery.to) ?? undefined,
};
const stats = (group_by: StatsDimension[], tenant = { orgId: org, livemode: false }) =>
  disputeStats(db.db, tenant, { ...range, group_by }, new Date());
const noAlerts = { count: 0, refunded: 0, refunded_amounts: {}, followed_by_dispute: 0 };

describe('disputeStats: prevented disputes, CE 3.0 and alerts', () => {
  it('counts prevented disputes apart, whatever their state, out of the win rate and the won and lost amounts', async () => {
    const answer = await stats([]);
    expect(answer.groups).toEqual([expectedPreventionTotal]);
    expect(answer.alerts).toEqual({ groupBy: [], groups: expectedAlertsTotal.groups, hasMore: false });
  });

  it('by processor: the Visa fraud disputes by the verdict of their latest submission that got through, alerts by processor', async () => {
    const answer = await stats(['processor']);
    expect(answer.groups).toEqual(expectedPreventionByProcessor);
    expect(answer.alerts).toEqual({
      groupBy: ['processor'],
      groups: expectedAlertsByProcessor,
      hasMore: false,
    });
  });

  it('by month: alerts in the month of their created (reported_at, else the row), out-of-range ones left out', async () => {
    const answer = await stats(['month']);
    expect(answer.groups.map(({ group, count, prevented }) => [group.month, count, prevented])).toEqual([
      ['2026-01', 2, 0],
      ['2026-02', 3, 0],
      ['2026-03', 7, 3],
    ]);
    expect(answer.alerts).toEqual({ groupBy: ['month'], groups: expectedAlertsByMonth, hasMore: false });
  });

  it('splits alerts only by processor and month: reason, template and network leave them whole', async () => {
    const byReason = await stats(['reason', 'network']);
    expect(byReason.alerts).toEqual({ groupBy: [], groups: expectedAlertsTotal.groups, hasMore: false });
    const fraud = byReason.groups.find(
      ({ group }) => group.reason === 'fraudulent' && group.network === 'visa',
    );
    // p1-p5, p6 (code 13.1: not Visa fraud), p8, p10, p12.
    expect(fraud).toMatchObject({
      count: 9,
      ...{ compelling_evidence: expectedPreventionTotal.compelling_evidence },
    });
    const byMonthAndReason = await stats(['reason', 'month']);
    expect(byMonthAndReason.alerts).toEqual({
      groupBy: ['month'],
      groups: expectedAlertsByMonth,
      hasMore: false,
    });
  });

  it('counts nothing of another organisation or mode: the same rows there count once, there', async () => {
    const { org: empty } = await createOrganisation(db.db, { name: 'Empty' });
    const none = await stats(['processor'], { orgId: empty, livemode: false });
    expect(none).toMatchObject({ groups: [], alerts: { groups: [], hasMore: false } });
    for (const tenant of [
      { orgId: other, livemode: false },
      { orgId: org, livemode: true },
    ]) {
      const answer = await stats([], tenant);
      expect(answer.groups, JSON.stringify(tenant)).toEqual([expectedPreventionTotal]);
      expect(answer.alerts.groups).toEqual(expectedAlertsTotal.groups);
    }
    const [whole] = (await stats([], { orgId: empty, livemode: false })).alerts.groups;
    expect(whole).toEqual({ group: {}, ...noAlerts });
  });

  it('answers the 1,000 largest alert groups and says more exist', async () => {
    const { org: many } = await createOrganisation(db.db, { name: 'Many processors' });
    const row = (processor: string, n: number) => ({
      orgId: many,
      livemode: false,
      id: `al_${processor}_${n}`,
      processor,
      account: processor,
      actionable: true,
      reportedAt: new Date('2026-02-01T00:00:00Z'),
    });
    const processors = Array.from({ length: 1001 }, (_, n) => `p_${String(n).padStart(4, '0')}`);
    await db.db
      .insert(alerts)
      .values([
        ...processors.map((processor) => row(processor, 0)),
        ...[1, 2, 3].map((n) => row('p_9999', n)),
      ]);
    const answer = await stats(['processor'], { orgId: many, livemode: false });
    expect(answer.alerts.hasMore).toBe(true);
    expect(answer.alerts.groups.map(({ group }) => group.processor)).toEqual([
      ...processors.slice(0, 999),
      'p_9999',
    ]);
    expect(answer.alerts.groups.at(-1)).toEqual({ group: { processor: 'p_9999' }, ...noAlerts, count: 3 });
    expect(answer.hasMore).toBe(false);
  });
});
