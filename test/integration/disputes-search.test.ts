import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApi, type TestApi } from '../helpers/api.js';
import {
  baseFixture,
  expectedIds,
  type Filters,
  type Fixture,
  queryOf,
  storeWithLookalikes,
} from '../helpers/dispute-search.js';
import {
  type Dispute,
  emptyDisputeList,
  newTenant,
  requiredParams,
  type Tenant,
} from '../helpers/disputes.js';

/** The filters of GET /v1/disputes and `include[]=total_count` (docs/api.md, "Disputes"), over HTTPS. */

interface List {
  object: string;
  data: Dispute[];
  has_more: boolean;
  total_count?: number;
  count_by_state?: Record<string, number>;
  livemode: boolean;
  url: string;
}

let api: TestApi;
let tenant: Tenant;
let other: Tenant;
beforeAll(async () => {
  api = await startTestApi({ workers: [] });
  tenant = await newTenant(api);
  other = await newTenant(api);
  await storeWithLookalikes(api.db.db, tenant.org, other.org, fixtures);
});
afterAll(async () => {
  await api.close();
});

const at = (iso: string) => new Date(iso);

/** Fourteen disputes a minute apart, each differing from the base in what its id says. */
const fixtures: Fixture[] = (
  [
    { id: 'dp_s_base' },
    { id: 'dp_s_won_eur', state: 'won', currency: 'eur', amount: 500 },
    {
      id: 'dp_s_lost_two',
      state: 'lost',
      account: 'acct_two',
      processor: 'braintree',
      network: 'mastercard',
    },
    { id: 'dp_s_dup_retrieval', reason: 'duplicate', kind: 'retrieval', network: null, processor: null },
    { id: 'dp_s_charge', charge: 'ch_1', customer: 'cus_1', customerEmail: 'Ann@Example.com' },
    {
      id: 'dp_s_charge_too',
      charge: 'ch_2',
      customer: 'cus_1',
      customerEmail: 'ann@example.com',
      amount: 1001,
    },
    { id: 'dp_s_template', evidence: 'template', amount: 999 },
    { id: 'dp_s_fields', evidence: 'fields', state: 'won' },
    { id: 'dp_s_products', evidence: 'products', reason: 'general' },
    { id: 'dp_s_correspondence', evidence: 'correspondence', currency: 'gbp' },
    { id: 'dp_s_past', evidence: 'past_payments', dueBy: at('2026-06-20T00:00:00Z') },
    { id: 'dp_s_files', evidence: 'evidence_files', dueBy: null, disputedAt: null },
    { id: 'dp_s_early', dueBy: at('2026-06-01T00:00:00Z'), disputedAt: at('2026-04-01T00:00:00Z') },
    { id: 'dp_s_amex', network: 'amex', processor: 'adyen', amount: 0 },
  ] as (Partial<Fixture> & { id: string })[]
).map((overrides, index) => ({
  ...baseFixture,
  created: new Date(Date.parse('2026-05-02T10:00:00.000Z') + index * 60_000),
  ...overrides,
}));

const list = (query: Record<string, unknown> | string, key = tenant.key) =>
  api.call<List>('GET', '/v1/disputes', { key, query });

const ids = (page: List) => page.data.map((dispute) => dispute.id);

async function expectListed(filters: Filters, iso = false) {
  const response = await list({ ...queryOf(filters, iso), limit: 100 });
  expect(response.status, response.text).toBe(200);
  const expected = expectedIds(fixtures, filters);
  expect(ids(response.body)).toEqual(expected);
  return expected;
}

describe('GET /v1/disputes: each filter', () => {
  it.each<[string, Filters, string[]]>([
    ['state', { state: ['won'] }, ['dp_s_fields', 'dp_s_won_eur']],
    ['account', { account: ['acct_two'] }, ['dp_s_lost_two']],
    ['reason', { reason: ['duplicate'] }, ['dp_s_dup_retrieval']],
    ['processor', { processor: ['braintree'] }, ['dp_s_lost_two']],
    ['kind', { kind: ['retrieval'] }, ['dp_s_dup_retrieval']],
    ['network', { network: ['amex'] }, ['dp_s_amex']],
    ['charge', { charge: ['ch_2'] }, ['dp_s_charge_too']],
    ['customer', { customer: ['cus_1'] }, ['dp_s_charge_too', 'dp_s_charge']],
    [
      'customer_email, in any case',
      { customer_email: ['ANN@example.COM'] },
      ['dp_s_charge_too', 'dp_s_charge'],
    ],
    ['currency, in any case', { currency: ['GBP'] }, ['dp_s_correspondence']],
    ['amount[gte]', { amount: { gte: 1001 } }, ['dp_s_charge_too']],
    ['amount[lt]', { amount: { lt: 999 } }, ['dp_s_amex', 'dp_s_won_eur']],
    [
      'amount[gt] and amount[lte]',
      { amount: { gt: 999, lte: 1000 } },
      expectedIds(fixtures, { amount: { gte: 1000, lte: 1000 } }),
    ],
    ['due_by[lte]', { due_by: { lte: at('2026-06-01T00:00:00Z') } }, ['dp_s_early']],
    ['due_by[gt]', { due_by: { gt: at('2026-06-10T00:00:00Z') } }, ['dp_s_past']],
    ['disputed_at[lt]', { disputed_at: { lt: at('2026-05-01T00:00:00Z') } }, ['dp_s_early']],
    [
      'has_evidence=false',
      { has_evidence: false },
      expectedIds(fixtures, {}).filter(
        (id) => !/template|fields|products|correspondence|past|files/.test(id),
      ),
    ],
  ])('%s', async (_name, filters, expected) => {
    expect(await expectListed(filters)).toEqual(expected);
  });

  it('has_evidence=true: a template, fields, products, correspondence, past payments or evidence files', async () => {
    expect(await expectListed({ has_evidence: true })).toEqual([
      'dp_s_files',
      'dp_s_past',
      'dp_s_correspondence',
      'dp_s_products',
      'dp_s_fields',
      'dp_s_template',
    ]);
  });

  it('never matches a dispute whose attribute is null', async () => {
    const listed = await expectListed({ processor: ['stripe'] });
    expect(listed).not.toContain('dp_s_dup_retrieval');
    expect(await expectListed({ due_by: { gte: at('2020-01-01T00:00:00Z') } })).not.toContain('dp_s_files');
  });

  it('created, in Unix seconds and in ISO 8601', async () => {
    const from = fixtures[3]?.created as Date;
    const to = fixtures[6]?.created as Date;
    const expected = ['dp_s_template', 'dp_s_charge_too', 'dp_s_charge', 'dp_s_dup_retrieval'];
    expect(await expectListed({ created: { gte: from, lte: to } })).toEqual(expected);
    expect(await expectListed({ created: { gte: from, lte: to } }, true)).toEqual(expected);
    const response = await list('created[gte]=2026-05-02T10:03:00&created[lte]=2026-05-02T12:06:00%2B02:00');
    expect(ids(response.body)).toEqual(expected);
  });

  it('compares timestamps to the second, as the API shows them', async () => {
    const [first] = fixtures;
    // Stored with milliseconds, shown without them.
    await api.db
      .sql`update disputes set created_at = '2026-05-02T10:00:00.700Z' where id = ${first?.id as string}`;
    try {
      const shown = (await list({ limit: 100 })).body.data.find((dispute) => dispute.id === first?.id);
      expect(shown?.created).toBe('2026-05-02T10:00:00');
      const second = '2026-05-02T10:00:00';
      expect(ids((await list({ created: { lte: second } })).body)).toEqual(['dp_s_base']);
      expect(ids((await list({ created: { gte: second, lt: '2026-05-02T10:00:01' } })).body)).toEqual([
        'dp_s_base',
      ]);
      expect(ids((await list({ created: { lt: second } })).body)).toEqual([]);
      expect(ids((await list({ created: { gt: second, lte: '2026-05-02T10:01:00' } })).body)).toEqual([
        'dp_s_won_eur',
      ]);
    } finally {
      await api.db
        .sql`update disputes set created_at = '2026-05-02T10:00:00.000Z' where id = ${first?.id as string}`;
    }
  });
});

describe('GET /v1/disputes: filters together', () => {
  it('repeated values mean any of them, in each spelling', async () => {
    const expected = expectedIds(fixtures, { reason: ['duplicate', 'general'] });
    expect(expected).toEqual(['dp_s_products', 'dp_s_dup_retrieval']);
    for (const query of ['reason=duplicate&reason=general', 'reason[]=duplicate&reason[]=general']) {
      expect(ids((await list(query)).body), query).toEqual(expected);
    }
    expect(await expectListed({ state: ['won', 'lost'], currency: ['usd', 'eur'] })).toEqual([
      'dp_s_fields',
      'dp_s_lost_two',
      'dp_s_won_eur',
    ]);
  });

  it('a dispute is listed when it passes every filter given', async () => {
    expect(
      await expectListed({
        state: ['needs_response'],
        due_by: { lte: at('2026-06-10T00:00:00Z') },
        has_evidence: false,
      }),
    ).toEqual([
      'dp_s_amex',
      'dp_s_early',
      'dp_s_charge_too',
      'dp_s_charge',
      'dp_s_dup_retrieval',
      'dp_s_base',
    ]);
    expect(
      await expectListed({ account: ['acct_one'], network: ['visa'], amount: { gte: 999 } }),
    ).toHaveLength(10);
  });

  it('a range whose gte is past its lte is empty, not an error', async () => {
    const response = await list({ amount: { gte: 10, lte: 5 } });
    expect(response.status).toBe(200);
    expect(response.body).toEqual(emptyDisputeList);
  });

  it('takes the last second of year 9999 on either side of a range, in both forms', async () => {
    const last = '9999-12-31T23:59:59Z';
    const everyone = ids((await list({ limit: 100 })).body);
    for (const query of [`created[lte]=${last}`, 'due_by[lte]=253402300799', `disputed_at[lt]=${last}`]) {
      const response = await list(`${query}&limit=100&include[]=total_count`);
      expect(response.status, query).toBe(200);
    }
    expect(ids((await list(`created[lte]=${last}&limit=100`)).body)).toEqual(everyone);
    for (const query of [`created[gt]=${last}`, `created[gte]=${last}`, 'due_by[gt]=253402300799']) {
      const response = await list(`${query}&include[]=total_count`);
      expect(response.status, query).toBe(200);
      expect(response.body).toMatchObject({ data: [], total_count: 0 });
    }
  });

  it('ignores parameters it does not know, as every endpoint does', async () => {
    expect(ids((await list('colour=red&reason=duplicate&sort=amount')).body)).toEqual(['dp_s_dup_retrieval']);
  });

  it("never shows another organisation's disputes, nor the other mode's", async () => {
    const mine = await list({ limit: 100, include: ['total_count'] });
    expect(ids(mine.body)).toEqual(expectedIds(fixtures, {}));
    expect(mine.body.total_count).toBe(fixtures.length);
    const live = await list({ limit: 100, reason: 'duplicate' }, tenant.live_key);
    expect(ids(live.body)).toEqual(['dp_s_dup_retrieval_live']);
    const theirs = await list({ limit: 100, charge: 'ch_1' }, other.key);
    expect(ids(theirs.body)).toEqual(['dp_s_charge_theirs']);
  });
});

describe('GET /v1/disputes: paging under filters', () => {
  const filtered: Filters = { state: ['needs_response', 'won'], amount: { gte: 500 } };

  it.each([1, 2, 3])(
    'walks the filtered set exactly, older pages then newer ones, %i a page',
    async (limit) => {
      const expected = expectedIds(fixtures, filtered);
      expect(expected.length).toBeGreaterThan(6);
      const query = { ...queryOf(filtered), limit };
      const older: string[][] = [];
      let cursor: string | undefined;
      for (let page = 0; page < 20; page++) {
        const response = await list({ ...query, ...(cursor !== undefined && { starting_after: cursor }) });
        older.push(ids(response.body));
        cursor = response.body.data.at(-1)?.id;
        if (!response.body.has_more) break;
      }
      expect(older.flat()).toEqual(expected);
      const newer: string[][] = [];
      cursor = expected.at(-1);
      for (let page = 0; page < 20; page++) {
        const response = await list({ ...query, ending_before: cursor });
        newer.push(ids(response.body));
        cursor = response.body.data[0]?.id;
        if (!response.body.has_more) break;
      }
      expect(newer.reverse().flat()).toEqual(expected.slice(0, -1));
    },
  );

  it('pages within created from a cursor outside it, in both directions', async () => {
    const created = { gte: fixtures[4]?.created as Date, lte: fixtures[8]?.created as Date };
    const expected = expectedIds(fixtures, { created });
    const newest = expectedIds(fixtures, {})[0];
    const oldest = expectedIds(fixtures, {}).at(-1);
    const older = await list({ ...queryOf({ created }), limit: 3, starting_after: newest });
    expect(ids(older.body)).toEqual(expected.slice(0, 3));
    expect(older.body.has_more).toBe(true);
    const newer = await list({ ...queryOf({ created }), limit: 3, ending_before: oldest });
    expect(ids(newer.body)).toEqual(expected.slice(-3));
    expect(newer.body.has_more).toBe(true);
  });
});

describe('GET /v1/disputes: include[]=total_count', () => {
  const states = (counts: Record<string, number>) =>
    Object.fromEntries(Object.entries(counts).filter(([, count]) => count > 0));

  it('counts the whole filtered set, by state, whatever the page', async () => {
    const query = { ...queryOf({ currency: ['usd', 'eur'] }), include: ['total_count'], limit: 2 };
    const expected = expectedIds(fixtures, { currency: ['usd', 'eur'] });
    const first = await list(query);
    expect(first.status).toBe(200);
    expect(Object.keys(first.body)).toEqual([
      'object',
      'data',
      'has_more',
      'total_count',
      'count_by_state',
      'livemode',
      'url',
    ]);
    expect(first.body.total_count).toBe(expected.length);
    expect(states(first.body.count_by_state ?? {})).toEqual({ needs_response: 10, won: 2, lost: 1 });
    const later = await list({ ...query, starting_after: expected[5] });
    expect(later.body.total_count).toBe(expected.length);
  });

  it('names every state, 0 where none matches; include=total_count works too', async () => {
    const response = await list('include=total_count&state=lost');
    expect(response.body.total_count).toBe(1);
    expect(response.body.count_by_state).toEqual({
      needs_response: 0,
      compiling_evidence: 0,
      submitted: 0,
      under_review: 0,
      won: 0,
      lost: 1,
      warning_needs_response: 0,
      warning_under_review: 0,
      warning_closed: 0,
      response_disabled: 0,
      charge_refunded: 0,
      requires_review: 0,
      accepted: 0,
      queued: 0,
    });
    const none = await list({ include: ['total_count'], account: 'acct_nobody' });
    expect(none.body).toMatchObject({ data: [], total_count: 0 });
  });

  it('is absent unless asked for', async () => {
    const response = await list({ limit: 1 });
    expect(response.body).not.toHaveProperty('total_count');
    expect(response.body).not.toHaveProperty('count_by_state');
  });

  it('leaves a dispute whose id is `count` a dispute: GET /v1/disputes/count retrieves it', async () => {
    const own = await newTenant(api);
    const created = await api.call<Dispute>('POST', '/v1/disputes', {
      key: own.key,
      json: requiredParams({ id: 'count' }),
    });
    expect(created.status, created.text).toBe(201);
    const retrieved = await api.call<Dispute>('GET', '/v1/disputes/count', {
      key: own.key,
      query: { include: ['total_count'] },
    });
    expect(retrieved.status).toBe(200);
    expect(retrieved.body).toMatchObject({ object: 'dispute', id: 'count', url: '/v1/disputes/count' });
    const missing = await api.call('GET', '/v1/disputes/count', { key: tenant.key });
    expect(missing.status).toBe(404);
  });
});
