import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApi, type TestApi } from '../helpers/api.js';
import {
  evidenceKinds,
  expectedIds,
  type Filters,
  type Fixture,
  passes,
  queryOf,
  type Range,
  storeWithLookalikes,
} from '../helpers/dispute-search.js';
import { type Dispute, newTenant, type Tenant } from '../helpers/disputes.js';

/**
 * Generated filter combinations over a small generated set of disputes: the list answers exactly the
 * disputes an in-test filter of the fixtures keeps, in order, with the counts of all of them, and paging
 * through them in either direction meets each once (docs/api.md, "Disputes" and "Paging").
 */

interface List {
  data: Dispute[];
  has_more: boolean;
  total_count?: number;
  count_by_state?: Record<string, number>;
}

const seed = 1919;
const base = Date.parse('2026-03-01T00:00:00.000Z');
const day = 86_400_000;

const pools = {
  state: ['needs_response', 'won', 'lost', 'under_review'],
  reason: ['fraudulent', 'duplicate', 'general'],
  kind: ['chargeback', 'retrieval'],
  processor: ['stripe', 'braintree', null],
  account: ['acct_a', 'acct_b', null],
  network: ['visa', 'amex', null],
  charge: ['ch_1', 'ch_2', 'ch_3', null],
  customer: ['cus_1', 'cus_2', null],
  customer_email: ['ann@example.com', 'Ann@Example.COM', 'bob@example.com', null],
  currency: ['usd', 'eur'],
  amount: [0, 100, 500, 1000, 5000],
} as const;

/** Moments around the fixtures' own: whole days from `base`, a second either side, and half seconds. */
const moment = fc
  .tuple(fc.integer({ min: -1, max: 6 }), fc.constantFrom(0, -1000, 1000, 500, -500))
  .map(([days, offset]) => new Date(base + days * day + offset));

const fixture = (index: number) =>
  fc
    .record({
      state: fc.constantFrom(...pools.state),
      reason: fc.constantFrom(...pools.reason),
      kind: fc.constantFrom(...pools.kind),
      processor: fc.constantFrom(...pools.processor),
      account: fc.constantFrom(...pools.account),
      network: fc.constantFrom(...pools.network),
      charge: fc.constantFrom(...pools.charge),
      customer: fc.constantFrom(...pools.customer),
      customerEmail: fc.constantFrom(...pools.customer_email),
      currency: fc.constantFrom(...pools.currency),
      amount: fc.constantFrom(...pools.amount),
      // Several disputes share a created second, and some a created moment: the id breaks those ties.
      created: fc
        .integer({ min: 0, max: 11 })
        .map((step) => new Date(base + step * 30_000 + (step % 3) * 400)),
      dueBy: fc.option(moment, { nil: null }),
      disputedAt: fc.option(moment, { nil: null }),
      evidence: fc.oneof(fc.constant('none' as const), fc.constantFrom(...evidenceKinds)),
    })
    .map((attributes): Fixture => ({ ...attributes, id: `dp_p_${String(index).padStart(2, '0')}` }));

const fixtures: Fixture[] = fc.sample(fc.tuple(...Array.from({ length: 40 }, (_, index) => fixture(index))), {
  seed,
  numRuns: 1,
})[0] as Fixture[];

const someOf = <T extends string | null>(values: readonly T[], absent: string, cased = false) => {
  const present = values.filter((value): value is Exclude<T, null> => value !== null);
  const chosen = fc.subarray([...present, absent], { minLength: 1, maxLength: 3 });
  if (!cased) return chosen;
  return fc
    .tuple(chosen, fc.boolean())
    .map(([picked, upper]) => (upper ? picked.map((value) => value.toUpperCase()) : picked));
};

function rangeOf<T>(bound: fc.Arbitrary<T>): fc.Arbitrary<Range<T>> {
  return fc.record({ gte: bound, gt: bound, lte: bound, lt: bound }, { requiredKeys: [] });
}

const everyFilter = {
  state: someOf(pools.state, 'accepted'),
  reason: someOf(pools.reason, 'retrieved'),
  kind: someOf(pools.kind, 'pre_arbitration'),
  processor: someOf(pools.processor, 'adyen'),
  account: someOf(pools.account, 'acct_nobody'),
  network: someOf(pools.network, 'jcb'),
  charge: someOf(pools.charge, 'ch_nobody'),
  customer: someOf(pools.customer, 'cus_nobody'),
  customer_email: someOf(pools.customer_email, 'nobody@example.com', true),
  currency: someOf(pools.currency, 'gbp', true),
  amount: rangeOf(fc.constantFrom(-1, 0, 99, 100, 101, 500, 1000, 4999, 5000, 6000)),
  created: rangeOf(fc.integer({ min: -1, max: 12 }).map((step) => new Date(base + step * 30_000))),
  due_by: rangeOf(moment),
  disputed_at: rangeOf(moment),
  has_evidence: fc.boolean(),
};

/** One to three filters at a time: all fifteen together would keep nothing. */
const filters: fc.Arbitrary<Filters> = fc
  .tuple(fc.record(everyFilter), fc.subarray(Object.keys(everyFilter), { minLength: 1, maxLength: 3 }))
  .map(([all, names]) => Object.fromEntries(names.map((name) => [name, all[name as keyof Filters]])));

let api: TestApi;
let tenant: Tenant;
beforeAll(async () => {
  api = await startTestApi({ workers: [] });
  tenant = await newTenant(api);
  const other = await newTenant(api);
  await storeWithLookalikes(api.db.db, tenant.org, other.org, fixtures);
});
afterAll(async () => {
  await api.close();
});

const list = (query: Record<string, unknown>) =>
  api.call<List>('GET', '/v1/disputes', { key: tenant.key, query });
const ids = (page: List) => page.data.map((dispute) => dispute.id);

describe('GET /v1/disputes under generated filters', () => {
  it('the fixtures vary enough for the filters to mean something', () => {
    expect(new Set(fixtures.map((each) => each.created.getTime())).size).toBeGreaterThan(8);
    expect(fixtures.filter((each) => each.evidence !== 'none').length).toBeGreaterThan(5);
    expect(fixtures.filter((each) => passes(each, { state: ['won'] })).length).toBeGreaterThan(3);
  });

  it('lists exactly the disputes that pass, newest first, and counts them by state', async () => {
    let nonEmpty = 0;
    await fc.assert(
      fc.asyncProperty(filters, fc.boolean(), async (chosen, iso) => {
        const response = await list({ ...queryOf(chosen, iso), limit: 100, include: ['total_count'] });
        expect(response.status, response.text).toBe(200);
        const expected = expectedIds(fixtures, chosen);
        expect(ids(response.body)).toEqual(expected);
        expect(response.body.total_count).toBe(expected.length);
        const byState = Object.entries(response.body.count_by_state ?? {}).filter(([, count]) => count > 0);
        const expectedByState = pools.state
          .map((state) => [state, expectedIds(fixtures, { ...chosen, state: [state] }).length] as const)
          .filter(([state, count]) => count > 0 && (chosen.state?.includes(state) ?? true));
        expect(Object.fromEntries(byState)).toEqual(Object.fromEntries(expectedByState));
        if (expected.length > 0) nonEmpty += 1;
      }),
      { seed, numRuns: 150 },
    );
    // Not every combination filters everything out.
    expect(nonEmpty).toBeGreaterThan(30);
  });

  it('pages through what passes, in both directions, meeting each dispute once', async () => {
    await fc.assert(
      fc.asyncProperty(filters, fc.integer({ min: 1, max: 4 }), async (chosen, limit) => {
        const expected = expectedIds(fixtures, chosen);
        const query = { ...queryOf(chosen), limit };
        const older: string[] = [];
        let cursor: string | undefined;
        for (let page = 0; page <= expected.length; page++) {
          const response = await list({ ...query, ...(cursor !== undefined && { starting_after: cursor }) });
          older.push(...ids(response.body));
          cursor = response.body.data.at(-1)?.id;
          if (!response.body.has_more) break;
        }
        expect(older).toEqual(expected);
        if (expected.length === 0) return;
        // From the oldest that passes, newer pages, each newest first: the newest page comes last.
        const newer: string[][] = [];
        cursor = expected.at(-1);
        for (let page = 0; page <= expected.length; page++) {
          const response = await list({ ...query, ending_before: cursor });
          newer.unshift(ids(response.body));
          cursor = response.body.data[0]?.id;
          if (!response.body.has_more) break;
        }
        expect(newer.flat()).toEqual(expected.slice(0, -1));
      }),
      { seed, numRuns: 40 },
    );
  });
});
