import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApi, type TestApi } from '../helpers/api.js';
import {
  createTestDispute,
  type Dispute,
  disputeAttributes,
  expectError,
  newTenant,
  type Tenant,
  timestampPattern,
} from '../helpers/disputes.js';

let api: TestApi;
let tenant: Tenant;
beforeAll(async () => {
  api = await startTestApi({ workers: [] });
  tenant = await newTenant(api);
});
afterAll(async () => {
  await api.close();
});

describe('GET /v1/disputes/:id', () => {
  it('answers 200 with every attribute of the dispute object, and nothing else', async () => {
    const created = await createTestDispute(api, tenant.key, {
      reason: 'fraudulent',
      amount: 4200,
      currency: 'EUR',
    });
    const response = await api.call<Dispute>('GET', `/v1/disputes/${created.id}`, { key: tenant.key });
    expect(response.status).toBe(200);
    expect(response.headers['content-type']).toMatch(/^application\/json; charset=utf-8/);
    expect(Object.keys(response.body).sort()).toEqual([...disputeAttributes].sort());
    expect(response.body).toMatchObject({
      object: 'dispute',
      id: created.id,
      livemode: false,
      url: `/v1/disputes/${created.id}`,
      state: 'needs_response',
      reason: 'fraudulent',
      amount: 4200,
      currency: 'eur',
      source: 'mock',
      kind: 'chargeback',
      template: null,
      fields: {},
      missing_fields: {},
      products: [],
      correspondence: [],
      past_payments: [],
      submitted_count: 0,
      submitted_at: null,
      closed_at: null,
      reference_url: null,
    });
  });

  it('prints timestamps as UTC without a zone', async () => {
    const created = await createTestDispute(api, tenant.key, { due_by: '2031-05-06T07:08:09+02:00' });
    const dispute = (await api.call<Dispute>('GET', `/v1/disputes/${created.id}`, { key: tenant.key })).body;
    expect(dispute.due_by).toBe('2031-05-06T05:08:09');
    for (const name of ['charged_at', 'disputed_at', 'created', 'updated'] as const) {
      expect(dispute[name]).toMatch(timestampPattern);
    }
  });

  it('answers the same object the list shows', async () => {
    const created = await createTestDispute(api, tenant.key);
    const one = await api.call<Dispute>('GET', `/v1/disputes/${created.id}`, { key: tenant.key });
    const listed = await api.call<{ data: Dispute[] }>('GET', '/v1/disputes', {
      key: tenant.key,
      query: { limit: 100 },
    });
    expect(listed.body.data.find((dispute) => dispute.id === created.id)).toEqual(one.body);
    expect({ ...one.body, url: '' }).toEqual({ ...created, url: '' });
  });

  it('retrieves an id with every allowed character', async () => {
    const id = 'Dp-1.a_b:C';
    await createTestDispute(api, tenant.key, { id });
    const response = await api.call<Dispute>('GET', `/v1/disputes/${id}`, { key: tenant.key });
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({ id, url: `/v1/disputes/${id}` });
  });

  it('answers 404 dispute_not_found with the exact error body for an unknown id', async () => {
    const response = await api.call('GET', '/v1/disputes/dp_unknown', { key: tenant.key });
    expect(response.status).toBe(404);
    expect(response.body).toEqual({
      url: '/v1/disputes/dp_unknown',
      livemode: false,
      error: { status: 404, message: expect.any(String), type: 'dispute_not_found' },
    });
  });

  it('answers 404 dispute_not_found, without the query string in url', async () => {
    const response = await api.call('GET', '/v1/disputes/dp_unknown', {
      key: tenant.key,
      query: { expand: 'x' },
    });
    expectError(response, 404, 'dispute_not_found', { url: '/v1/disputes/dp_unknown' });
  });

  it("answers 404 for another organisation's dispute", async () => {
    const other = await newTenant(api);
    const theirs = await createTestDispute(api, other.key);
    const response = await api.call('GET', `/v1/disputes/${theirs.id}`, { key: tenant.key });
    expectError(response, 404, 'dispute_not_found', { url: `/v1/disputes/${theirs.id}` });
  });

  it('answers 404 with livemode true for a test dispute asked with the live key', async () => {
    const created = await createTestDispute(api, tenant.key);
    const response = await api.call('GET', `/v1/disputes/${created.id}`, { key: tenant.live_key });
    expectError(response, 404, 'dispute_not_found', { url: `/v1/disputes/${created.id}`, livemode: true });
  });

  it('answers 404 for an id no dispute can have', async () => {
    const response = await api.call('GET', '/v1/disputes/bad%20id', { key: tenant.key });
    expectError(response, 404, 'dispute_not_found');
  });
});
