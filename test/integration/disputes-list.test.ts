import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApi, type TestApi } from '../helpers/api.js';
import {
  createTestDispute,
  type Dispute,
  emptyDisputeList,
  expectError,
  newTenant,
  type Tenant,
  writeStored,
} from '../helpers/disputes.js';

interface List {
  object: string;
  data: Dispute[];
  has_more: boolean;
  livemode: boolean;
  url: string;
}

let api: TestApi;
beforeAll(async () => {
  api = await startTestApi({ workers: [] });
});
afterAll(async () => {
  await api.close();
});

const list = (tenantKey: string, query?: Record<string, unknown> | string) =>
  api.call<List>('GET', '/v1/disputes', { key: tenantKey, ...(query !== undefined && { query }) });

const ids = (page: List) => page.data.map((dispute) => dispute.id);

/**
 * 25 disputes whose `created` is set in groups of three sharing one instant, so that the id breaks ties.
 * Returns the ids in the contract's order: created desc, id desc.
 */
async function seedTwentyFive(tenant: Tenant): Promise<string[]> {
  const base = Date.parse('2024-03-01T12:00:00.000Z');
  const seeded: { id: string; created: number }[] = [];
  for (let index = 0; index < 25; index++) {
    // Ids whose lexical order differs from their creation order, to show the order is not by id alone.
    const id = `dp_page_${String((index * 7) % 25).padStart(2, '0')}`;
    await createTestDispute(api, tenant.key, { id });
    const created = base + Math.floor(index / 3) * 60_000;
    await writeStored(api, tenant, id, { createdAt: new Date(created) });
    seeded.push({ id, created });
  }
  return seeded
    .sort((a, b) => b.created - a.created || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0))
    .map((entry) => entry.id);
}

describe('GET /v1/disputes: order and limit', () => {
  let tenant: Tenant;
  let expected: string[];
  beforeAll(async () => {
    tenant = await newTenant(api);
    expected = await seedTwentyFive(tenant);
  });

  it('answers a list object with the first 20 disputes, newest created first, ties by id desc', async () => {
    const response = await list(tenant.key);
    expect(response.status).toBe(200);
    expect(response.headers['content-type']).toMatch(/^application\/json; charset=utf-8/);
    expect(response.body).toMatchObject({
      object: 'list',
      has_more: true,
      livemode: false,
      url: '/v1/disputes',
    });
    expect(ids(response.body)).toEqual(expected.slice(0, 20));
  });

  it('gives every item the full dispute object with its own url', async () => {
    const response = await list(tenant.key, { limit: 3 });
    for (const dispute of response.body.data) {
      expect(dispute).toMatchObject({
        object: 'dispute',
        livemode: false,
        url: `/v1/disputes/${dispute.id}`,
      });
    }
  });

  it.each([1, 24, 25, 100])('honours limit=%i', async (limit) => {
    const response = await list(tenant.key, { limit });
    expect(response.status).toBe(200);
    expect(ids(response.body)).toEqual(expected.slice(0, limit));
    expect(response.body.has_more).toBe(limit < 25);
  });

  it('walks every dispute exactly once with starting_after (older pages)', async () => {
    const seen: string[] = [];
    const hasMore: boolean[] = [];
    let cursor: string | undefined;
    for (let pages = 0; pages < 10; pages++) {
      const response = await list(tenant.key, {
        limit: 7,
        ...(cursor !== undefined && { starting_after: cursor }),
      });
      expect(response.status).toBe(200);
      seen.push(...ids(response.body));
      hasMore.push(response.body.has_more);
      if (!response.body.has_more) break;
      cursor = response.body.data.at(-1)?.id;
    }
    expect(seen).toEqual(expected);
    expect(new Set(seen).size).toBe(25);
    expect(hasMore).toEqual([true, true, true, false]);
  });

  it('walks every dispute exactly once with ending_before (newer pages, each newest first)', async () => {
    const oldest = expected.at(-1) as string;
    const pages: string[][] = [];
    const hasMore: boolean[] = [];
    let cursor = oldest;
    for (let count = 0; count < 10; count++) {
      const response = await list(tenant.key, { limit: 7, ending_before: cursor });
      expect(response.status).toBe(200);
      pages.push(ids(response.body));
      hasMore.push(response.body.has_more);
      if (!response.body.has_more) break;
      cursor = response.body.data[0]?.id as string;
    }
    // Each page is itself newest first: the newest page arrives last.
    expect(pages).toEqual([
      expected.slice(17, 24),
      expected.slice(10, 17),
      expected.slice(3, 10),
      expected.slice(0, 3),
    ]);
    const seen = [...pages.reverse().flat(), oldest];
    expect(seen).toEqual(expected);
    expect(new Set(seen).size).toBe(25);
    expect(hasMore).toEqual([true, true, true, false]);
  });

  it('answers has_more for the direction of travel only', async () => {
    // Older disputes exist, but nothing is newer than the second one but the first.
    const newer = await list(tenant.key, { ending_before: expected[1] });
    expect(ids(newer.body)).toEqual([expected[0]]);
    expect(newer.body.has_more).toBe(false);
    // Newer disputes exist, but nothing is older than the oldest.
    const older = await list(tenant.key, { starting_after: expected[24] });
    expect(older.body).toMatchObject({ data: [], has_more: false });
    const secondLast = await list(tenant.key, { starting_after: expected[23] });
    expect(ids(secondLast.body)).toEqual([expected[24]]);
    expect(secondLast.body.has_more).toBe(false);
  });

  it('pages from a cursor in the middle in both directions', async () => {
    const after = await list(tenant.key, { limit: 5, starting_after: expected[9] });
    expect(ids(after.body)).toEqual(expected.slice(10, 15));
    expect(after.body.has_more).toBe(true);
    const before = await list(tenant.key, { limit: 5, ending_before: expected[9] });
    expect(ids(before.body)).toEqual(expected.slice(4, 9));
    expect(before.body.has_more).toBe(true);
  });
});

describe('GET /v1/disputes: filters', () => {
  let tenant: Tenant;
  const byState: Record<string, string[]> = { won: [], lost: [], needs_response: [] };
  const byAccount: Record<string, string[]> = { acct_one: [], acct_two: [] };
  beforeAll(async () => {
    tenant = await newTenant(api);
    for (const [state, account] of [
      ['won', 'acct_one'],
      ['lost', 'acct_two'],
      ['needs_response', 'acct_one'],
      ['won', 'acct_two'],
      ['needs_response', 'acct_one'],
      ['lost', 'acct_one'],
    ] as const) {
      const dispute = await createTestDispute(api, tenant.key, { state, account });
      byState[state]?.push(dispute.id);
      byAccount[account]?.push(dispute.id);
    }
  });

  it('filters by one state', async () => {
    const response = await list(tenant.key, { state: 'won' });
    expect(response.status).toBe(200);
    expect(ids(response.body).sort()).toEqual([...(byState.won ?? [])].sort());
    expect(response.body.data.every((dispute) => dispute.state === 'won')).toBe(true);
  });

  it('filters by a repeated state (state=a&state=b)', async () => {
    const response = await list(tenant.key, 'state=won&state=lost');
    expect(response.status).toBe(200);
    expect(ids(response.body).sort()).toEqual([...(byState.won ?? []), ...(byState.lost ?? [])].sort());
  });

  it('keeps the newest-first order under a filter', async () => {
    const all = await list(tenant.key);
    const filtered = await list(tenant.key, 'state=won&state=needs_response');
    const expected = ids(all.body).filter((id) =>
      [...(byState.won ?? []), ...(byState.needs_response ?? [])].includes(id),
    );
    expect(ids(filtered.body)).toEqual(expected);
  });

  it('filters by account', async () => {
    const response = await list(tenant.key, { account: 'acct_two' });
    expect(response.status).toBe(200);
    expect(ids(response.body).sort()).toEqual([...(byAccount.acct_two ?? [])].sort());
    expect(response.body.data.every((dispute) => dispute.account === 'acct_two')).toBe(true);
  });

  it('combines state and account', async () => {
    const response = await list(tenant.key, 'state=won&state=lost&account=acct_one');
    const expected = (byAccount.acct_one ?? []).filter((id) =>
      [...(byState.won ?? []), ...(byState.lost ?? [])].includes(id),
    );
    expect(ids(response.body).sort()).toEqual([...expected].sort());
  });

  it('answers an empty list for an unknown account', async () => {
    const response = await list(tenant.key, { account: 'acct_nobody' });
    expect(response.status).toBe(200);
    expect(response.body).toEqual(emptyDisputeList);
  });

  it('pages within a filter', async () => {
    const first = await list(tenant.key, { state: 'needs_response', limit: 1 });
    expect(first.body.has_more).toBe(true);
    const second = await list(tenant.key, {
      state: 'needs_response',
      limit: 1,
      starting_after: first.body.data[0]?.id,
    });
    expect(second.body.has_more).toBe(false);
    expect([...ids(first.body), ...ids(second.body)].sort()).toEqual(
      [...(byState.needs_response ?? [])].sort(),
    );
  });

  it("shows only the key's own organisation and mode", async () => {
    const other = await newTenant(api);
    await createTestDispute(api, other.key);
    const live = await list(tenant.live_key);
    expect(live.body).toMatchObject({ data: [], has_more: false, livemode: true });
    const mine = await list(tenant.key, { limit: 100 });
    expect(ids(mine.body).sort()).toEqual(Object.values(byState).flat().sort());
  });
});

describe('GET /v1/disputes: bad parameters', () => {
  let tenant: Tenant;
  let one: string;
  let two: string;
  beforeAll(async () => {
    tenant = await newTenant(api);
    one = (await createTestDispute(api, tenant.key)).id;
    two = (await createTestDispute(api, tenant.key)).id;
  });

  it('refuses both cursors at once with 400 invalid_request', async () => {
    const response = await list(tenant.key, { starting_after: one, ending_before: two });
    expectError(response, 400, 'invalid_request', { url: '/v1/disputes' });
  });

  it.each(['starting_after', 'ending_before'])(
    'refuses an unknown %s id with 400 invalid_request',
    async (cursor) => {
      const response = await list(tenant.key, { [cursor]: 'dp_does_not_exist' });
      expectError(response, 400, 'invalid_request', { url: '/v1/disputes' });
    },
  );

  it("refuses another organisation's dispute as a cursor", async () => {
    const other = await newTenant(api);
    const theirs = await createTestDispute(api, other.key);
    expectError(await list(tenant.key, { starting_after: theirs.id }), 400, 'invalid_request');
  });

  it.each(['0', '101', 'abc', '-1', '1.5', ''])(
    'refuses limit=%s with 400 invalid_request',
    async (limit) => {
      const response = await list(tenant.key, `limit=${limit}`);
      expectError(response, 400, 'invalid_request', { url: '/v1/disputes' });
    },
  );

  it.each(['state=bogus', 'state=won&state=bogus', 'state=WON'])(
    'refuses an unknown state value (%s) with 400 invalid_request',
    async (query) => {
      expectError(await list(tenant.key, query), 400, 'invalid_request', { url: '/v1/disputes' });
    },
  );
});
