import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DisputeObjectCache } from '../../src/features/disputes/object-cache.js';
import { startTestApi, type TestApi } from '../helpers/api.js';
import {
  createTemplate,
  createTestDispute,
  type Dispute,
  newTenant,
  type Tenant,
} from '../helpers/disputes.js';

let api: TestApi;
let tenant: Tenant;
beforeAll(async () => {
  api = await startTestApi();
  tenant = await newTenant(api);
});
afterAll(async () => {
  await api.close();
});

async function listed(id: string): Promise<Dispute | undefined> {
  const response = await api.call<{ data: Dispute[] }>('GET', '/v1/disputes', {
    key: tenant.key,
    query: { limit: 100 },
  });
  expect(response.status).toBe(200);
  return response.body.data.find((dispute) => dispute.id === id);
}

async function retrieved(id: string): Promise<Dispute> {
  return (await api.call<Dispute>('GET', `/v1/disputes/${id}`, { key: tenant.key })).body;
}

/** The list serves cached dispute objects; none of these changes may leave it serving an old one. */
describe('the list never serves a stale dispute object', () => {
  it('shows an update, an accept and a submit made after the dispute was listed', async () => {
    const template = await createTemplate(api, tenant.key, [
      { key: 'order_id', type: 'text', required: true },
    ]);
    const dispute = await createTestDispute(api, tenant.key);
    expect(await listed(dispute.id)).toEqual(await retrieved(dispute.id));

    await api.call('PUT', `/v1/disputes/${dispute.id}`, { key: tenant.key, json: { template } });
    expect((await listed(dispute.id))?.missing_fields).toEqual({ order_id: 'text' });

    await api.call('PUT', `/v1/disputes/${dispute.id}`, {
      key: tenant.key,
      json: { fields: { order_id: 'A-1' } },
    });
    expect(await listed(dispute.id)).toEqual(await retrieved(dispute.id));

    await api.call('POST', `/v1/disputes/${dispute.id}/submit`, { key: tenant.key });
    expect((await listed(dispute.id))?.state).toBe('submitted');
    expect(await listed(dispute.id)).toEqual(await retrieved(dispute.id));
  });

  it('shows a change to the template a listed dispute names, and the template being deleted', async () => {
    const template = await createTemplate(api, tenant.key, [{ key: 'order_id', type: 'text' }]);
    const dispute = await createTestDispute(api, tenant.key);
    await api.call('PUT', `/v1/disputes/${dispute.id}`, { key: tenant.key, json: { template } });
    expect((await listed(dispute.id))?.missing_fields).toEqual({});

    const fields = [{ key: 'order_id', type: 'text', required: true }];
    expect(
      (await api.call('PUT', `/v1/templates/${template}`, { key: tenant.key, json: { fields } })).status,
    ).toBe(200);
    expect((await listed(dispute.id))?.missing_fields).toEqual({ order_id: 'text' });

    expect((await api.call('DELETE', `/v1/templates/${template}`, { key: tenant.key })).status).toBe(200);
    expect((await listed(dispute.id))?.missing_fields).toEqual({});

    // A new template under the old id is another template: the dispute is served against it.
    await createTemplate(api, tenant.key, [{ key: 'shipped_on', type: 'date', required: true }], template);
    expect((await listed(dispute.id))?.missing_fields).toEqual({ shipped_on: 'date' });
    expect(await listed(dispute.id)).toEqual(await retrieved(dispute.id));
  });
});

describe('DisputeObjectCache', () => {
  const callerOf = (tenant: Tenant) =>
    ({
      orgId: tenant.org,
      livemode: false,
      apiVersion: '2021-09-15',
      version: '2021-09-15',
      queueLeadMinutes: 1440,
    }) as const;
  const held = (cache: DisputeObjectCache) => [
    ...(cache as unknown as { entries: Map<string, string> }).entries.values(),
  ];

  it('holds at most its size in characters, and a page larger than it is still served whole', async () => {
    const other = await newTenant(api);
    const ids: string[] = [];
    for (let index = 0; index < 5; index++) ids.push((await createTestDispute(api, other.key)).id);
    const cache = new DisputeObjectCache(3000);

    const first = await cache.list(api.db.db, callerOf(other), { limit: 10 });
    const second = await cache.list(api.db.db, callerOf(other), { limit: 10 });
    expect(first.data.map((json) => (JSON.parse(json) as Dispute).id)).toEqual([...ids].reverse());
    expect(second).toEqual(first);
    const kept = held(cache);
    expect(kept.length).toBeGreaterThan(0);
    expect(kept.reduce((sum, json) => sum + json.length, 0)).toBeLessThanOrEqual(3000);
  });

  it('serves an object larger than its per-object limit without keeping it', async () => {
    const other = await newTenant(api);
    const dispute = await createTestDispute(api, other.key);
    await api.call('PUT', `/v1/disputes/${dispute.id}`, {
      key: other.key,
      json: { fields: { note: 'x'.repeat(5000) } },
    });
    const cache = new DisputeObjectCache(1_000_000, 4000);

    const page = await cache.list(api.db.db, callerOf(other), { limit: 10 });
    expect((JSON.parse(page.data[0] ?? '{}') as Dispute).fields).toEqual({ note: 'x'.repeat(5000) });
    expect(held(cache)).toEqual([]);
  });
});
