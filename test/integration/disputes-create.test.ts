import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApi, type TestApi } from '../helpers/api.js';
import {
  createTestDispute,
  type Dispute,
  daysFromNow,
  disputeAttributes,
  type ErrorBody,
  expectError,
  formatted,
  getDispute,
  type Json,
  newTenant,
  orderTemplate,
  readStored,
  requiredParams,
  type Tenant,
  uniqueId,
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

const create = (json: Json, key = tenant.key) => api.call<Dispute>('POST', '/v1/disputes', { key, json });

const notFoundAfter = async (id: string) => {
  const response = await api.call('GET', `/v1/disputes/${id}`, { key: tenant.key });
  expectError(response, 404, 'dispute_not_found');
};

describe('POST /v1/disputes: creating', () => {
  it('answers 201 with the full dispute object, source api', async () => {
    const params = requiredParams({ due_by: '2031-01-02T00:00:00Z' });
    const response = await create(params);
    expect(response.status).toBe(201);
    expect(Object.keys(response.body).sort()).toEqual([...disputeAttributes].sort());
    expect(response.body).toMatchObject({
      object: 'dispute',
      livemode: false,
      url: '/v1/disputes',
      id: params.id,
      charge: 'ch_standalone_1',
      reason: 'fraudulent',
      state: 'needs_response',
      source: 'api',
      kind: 'chargeback',
      charged_at: '2024-01-02T03:04:05',
      disputed_at: '2024-02-03T04:05:06',
      due_by: '2031-01-02T00:00:00',
      currency: 'usd',
      amount: 2599,
      submitted_count: 0,
      submitted_at: null,
      template: null,
      fields: {},
      missing_fields: {},
      products: [],
      correspondence: [],
      past_payments: [],
      evidence_files: [],
    });
    expect({ ...(await getDispute(api, tenant.key, params.id as string)), url: '/v1/disputes' }).toEqual(
      response.body,
    );
  });

  it('stores every optional parameter', async () => {
    const template = await orderTemplate(api, tenant.key);
    const params = requiredParams({
      customer: 'cus_42',
      processor: 'stripe',
      state: 'warning_needs_response',
      reversal_currency: 'EUR',
      fee: 1500,
      reversal_amount: 2400,
      reversal_total: 3999,
      is_charge_refundable: true,
      submitted_count: 2,
      address_line1_check: 'pass',
      address_zip_check: 'fail',
      cvc_check: 'unavailable',
      template,
      fields: { order_id: 'A-9' },
      products: [{ name: 'Mug', quantity: 1, amount: 2599 }],
      correspondence: [{ to: 'a@example.com', from: 'b@example.com', subject: 'Hi', body: 'Hello' }],
      past_payments: [{ id: 'ch_old', amount: 100, currency: 'usd', charged_at: 1_600_000_000 }],
      reference_url: 'https://shop.example/orders/A-9',
      account_id: 'acct_direct',
      kind: 'pre_arbitration',
    });
    const response = await create(params);
    expect(response.status).toBe(201);
    expect(response.body).toMatchObject({
      customer: 'cus_42',
      processor: 'stripe',
      state: 'warning_needs_response',
      reversal_currency: 'eur',
      fee: 1500,
      reversal_amount: 2400,
      reversal_total: 3999,
      is_charge_refundable: true,
      submitted_count: 2,
      address_line1_check: 'pass',
      address_zip_check: 'fail',
      cvc_check: 'unavailable',
      template,
      fields: { order_id: 'A-9' },
      missing_fields: {},
      products: params.products,
      correspondence: params.correspondence,
      past_payments: params.past_payments,
      reference_url: 'https://shop.example/orders/A-9',
      account_id: 'acct_direct',
      kind: 'pre_arbitration',
      source: 'api',
    });
  });

  it('lower-cases the currency', async () => {
    const response = await create(requiredParams({ currency: 'EUR' }));
    expect(response.status).toBe(201);
    expect(response.body.currency).toBe('eur');
  });

  it('computes reversal_total = reversal_amount + fee when it is not given', async () => {
    const response = await create(requiredParams({ reversal_amount: 2599, fee: 1500 }));
    expect(response.status).toBe(201);
    expect(response.body).toMatchObject({ reversal_amount: 2599, fee: 1500, reversal_total: 4099 });
  });

  it.each([
    ['ISO with Z', '2024-01-02T03:04:05Z', '2024-01-02T03:04:05'],
    ['ISO with an offset', '2024-01-02T05:04:05+02:00', '2024-01-02T03:04:05'],
    ['ISO without a zone (UTC)', '2024-01-02T03:04:05', '2024-01-02T03:04:05'],
    ['ISO with milliseconds', '2024-01-02T03:04:05.678Z', '2024-01-02T03:04:05'],
    ['a bare date', '2024-01-02', '2024-01-02T00:00:00'],
    ['Unix seconds', 1_704_164_645, formatted(new Date(1_704_164_645_000))],
    ['Unix seconds as text', '1704164645', formatted(new Date(1_704_164_645_000))],
  ])('accepts charged_at as %s', async (_, sent, printed) => {
    const response = await create(requiredParams({ charged_at: sent }));
    expect(response.status).toBe(201);
    expect(response.body.charged_at).toBe(printed);
  });

  it('accepts the characters A-Z a-z 0-9 _ - . : in ids, up to 255', async () => {
    for (const id of ['Dp_1-2.3:4', 'x', 'a'.repeat(255)]) {
      const response = await create(requiredParams({ id }));
      expect(response.status, id).toBe(201);
      expect((await getDispute(api, tenant.key, id)).id).toBe(id);
    }
  });

  it('accepts the same id in live mode and in another organisation', async () => {
    const id = uniqueId('dp_shared');
    expect((await create(requiredParams({ id }))).status).toBe(201);
    const live = await create(requiredParams({ id }), tenant.live_key);
    expect(live.status).toBe(201);
    expect(live.body.livemode).toBe(true);
    const other = await newTenant(api);
    expect((await create(requiredParams({ id }), other.key)).status).toBe(201);
  });
});

describe('POST /v1/disputes: refusals', () => {
  it('refuses a duplicate id in the same organisation and mode with 400 invalid_request', async () => {
    const params = requiredParams();
    const first = await create(params);
    expect(first.status).toBe(201);
    const before = await getDispute(api, tenant.key, params.id as string);
    expectError(await create({ ...params, amount: 1 }), 400, 'invalid_request', { url: '/v1/disputes' });
    expect(await getDispute(api, tenant.key, params.id as string)).toEqual(before);
  });

  it('refuses the id of a test-mode mock dispute', async () => {
    const mock = await createTestDispute(api, tenant.key);
    expectError(await create(requiredParams({ id: mock.id })), 400, 'invalid_request');
    expect((await getDispute(api, tenant.key, mock.id)).source).toBe('mock');
  });

  it.each(['id', 'charge', 'reason', 'charged_at', 'disputed_at', 'due_by', 'currency', 'amount'])(
    'refuses a missing %s with 400 invalid_request naming it',
    async (name) => {
      const params = requiredParams();
      delete params[name];
      const response = await create(params);
      expectError(response, 400, 'invalid_request', { url: '/v1/disputes' });
      expect((response.body as unknown as ErrorBody).error.message).toMatch(new RegExp(`\\b${name}\\b`));
      if (name !== 'id') await notFoundAfter(params.id as string);
    },
  );

  it.each(['dp 1', 'dp/1', 'dp#1', 'dpé', 'dp?1', '', 'a'.repeat(256)])('refuses the id %j', async (id) => {
    const response = await create(requiredParams({ id }));
    expectError(response, 400, 'invalid_request', { url: '/v1/disputes' });
  });

  it.each([
    ['reason', 'made_up'],
    ['state', 'won'],
    ['state', 'queued'],
    ['currency', 'us'],
    ['currency', 'usd1'],
    ['amount', -1],
    ['amount', 10.5],
    ['amount', 'ten'],
    ['charged_at', 'yesterday'],
    ['charged_at', '2021-02-31'],
    ['due_by', '2024-13-01T00:00:00Z'],
    ['kind', 'refund'],
    ['processor', 'bank_of_nowhere'],
    ['cvc_check', 'maybe'],
    ['reference_url', '/relative'],
    ['submit', 'yes'],
  ])('refuses %s=%j with 400 invalid_request', async (name, value) => {
    const params = requiredParams({ [name]: value });
    expectError(await create(params), 400, 'invalid_request');
    await notFoundAfter(params.id as string);
  });

  it.each([
    ['products', [{ name: 'Mug' }], 'invalid_products'],
    ['correspondence', [{ to: 'a' }], 'invalid_correspondence'],
    [
      'past_payments',
      Array.from({ length: 11 }, (_, n) => ({ id: `ch_${n}`, amount: 1, currency: 'usd', charged_at: 1 })),
      'invalid_past_payments',
    ],
    ['fields', { order_id: { nested: 1 } }, 'invalid_fields'],
  ])('refuses bad %s with its own type and creates nothing', async (name, value, type) => {
    const params = requiredParams({ [name]: value });
    expectError(await create(params), 400, type);
    await notFoundAfter(params.id as string);
  });

  it('refuses an unknown template with 400 template_not_found and creates nothing', async () => {
    const params = requiredParams({ template: 'tpl_missing' });
    expectError(await create(params), 400, 'template_not_found');
    await notFoundAfter(params.id as string);
  });

  it('checks fields against the template and creates nothing when one is wrong', async () => {
    const template = await orderTemplate(api, tenant.key);
    const params = requiredParams({ template, fields: { order_id: 12 } });
    expectError(await create(params), 400, 'invalid_fields');
    await notFoundAfter(params.id as string);
  });
});

describe('POST /v1/disputes with submit or queue', () => {
  it('submit=true with a template and its fields: 201 submitted', async () => {
    const template = await orderTemplate(api, tenant.key);
    const params = requiredParams({ template, fields: { order_id: 'A-1' }, submit: true });
    const response = await create(params);
    expect(response.status).toBe(201);
    expect(response.body).toMatchObject({
      id: params.id,
      state: 'submitted',
      submitted_count: 1,
      source: 'api',
    });
    expect(response.body.submitted_at).not.toBeNull();
  });

  it('queue=true: 201 queued', async () => {
    const template = await orderTemplate(api, tenant.key);
    const params = requiredParams({ template, fields: { order_id: 'A-1' }, queue: true });
    const response = await create(params);
    expect(response.status).toBe(201);
    expect(response.body).toMatchObject({ state: 'queued', submitted_count: 0 });
    const stored = await readStored(api, tenant, params.id as string);
    expect(stored.submitAt?.getTime()).toBe((stored.dueBy?.getTime() ?? 0) - 24 * 3_600_000);
  });

  it.each([
    ['without a template', {}, 'missing_template'],
    ['with a required field missing', { fields: { note: 'x' } }, 'missing_fields'],
    ['when overdue', { fields: { order_id: 'A-1' }, due_by: daysFromNow(-1) }, 'dispute_overdue'],
  ])('submit=true %s: 400 and nothing is created', async (name, extra, type) => {
    const template = name === 'without a template' ? {} : { template: await orderTemplate(api, tenant.key) };
    const params = requiredParams({ ...template, ...extra, submit: true });
    expectError(await create(params), 400, type, { url: '/v1/disputes' });
    await notFoundAfter(params.id as string);
  });

  it('queue=true that is not submittable: 400 missing_fields and nothing is created', async () => {
    const template = await orderTemplate(api, tenant.key);
    const params = requiredParams({ template, queue: true });
    expectError(await create(params), 400, 'missing_fields');
    await notFoundAfter(params.id as string);
  });
});
