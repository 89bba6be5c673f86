import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApi, type TestApi } from '../helpers/api.js';
import {
  comparable,
  createTemplate,
  type Dispute,
  daysFromNow,
  expectError,
  getDispute,
  type Json,
  newTenant,
  submittableDispute,
  type Tenant,
  uniqueId,
} from '../helpers/disputes.js';

/**
 * docs/api.md, "Conventions": a body is JSON or a form (brackets for dictionaries, one JSON-text value per array,
 * `true`/`false` booleans), and query-string parameters merge under the body on POST and PUT.
 */

let api: TestApi;
let tenant: Tenant;
let template: string;
beforeAll(async () => {
  api = await startTestApi();
  tenant = await newTenant(api);
  template = await createTemplate(api, tenant.key, [
    { key: 'order_id', type: 'text', required: true },
    { key: 'items', type: 'number' },
    { key: 'refund', type: 'amount' },
    { key: 'shipped_on', type: 'date' },
  ]);
});
afterAll(async () => {
  await api.close();
});

const product = { name: 'Blue mug', quantity: 2, amount: 1500, url: 'https://shop.example/mug' };
const letter = {
  to: 'ada@example.com',
  from: 'shop@example.com',
  subject: 'Order',
  body: 'Shipped & on its way.',
};
const payment = { id: 'ch_past', amount: 900, currency: 'usd', charged_at: 1_600_000_000 };
const dueBy = '2031-06-07T08:09:10Z';

function createJson(id: string, extra: Json = {}): Json {
  return {
    id,
    charge: 'ch_body_1',
    reason: 'product_not_received',
    charged_at: '2024-01-02T03:04:05Z',
    disputed_at: 1_706_000_000,
    due_by: dueBy,
    currency: 'GBP',
    amount: 4200,
    fee: 1500,
    reversal_amount: 4200,
    is_charge_refundable: false,
    template,
    fields: { order_id: '123', items: 3, refund: 4200 },
    products: [product],
    correspondence: [letter],
    past_payments: [payment],
    reference_url: 'https://shop.example/orders/123?ref=a&b=c',
    ...extra,
  };
}

/** The same parameters as a form: every value text, arrays as one JSON-text value each. */
function createForm(id: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    id,
    charge: 'ch_body_1',
    reason: 'product_not_received',
    charged_at: '2024-01-02T03:04:05Z',
    disputed_at: '1706000000',
    due_by: dueBy,
    currency: 'GBP',
    amount: '4200',
    fee: '1500',
    reversal_amount: '4200',
    is_charge_refundable: 'false',
    template,
    fields: { order_id: '123', items: '3', refund: '4200' },
    products: JSON.stringify([product]),
    correspondence: JSON.stringify([letter]),
    past_payments: JSON.stringify([payment]),
    reference_url: 'https://shop.example/orders/123?ref=a&b=c',
    ...extra,
  };
}

describe('JSON and form bodies give the same result', () => {
  it('for a create', async () => {
    const asJson = await api.call<Dispute>('POST', '/v1/disputes', {
      key: tenant.key,
      json: createJson(uniqueId('dp_json')),
    });
    const asForm = await api.call<Dispute>('POST', '/v1/disputes', {
      key: tenant.key,
      form: createForm(uniqueId('dp_form')),
    });
    expect(asJson.status).toBe(201);
    expect(asForm.status).toBe(201);
    expect(comparable(asForm.body)).toEqual(comparable(asJson.body));
    expect(asForm.body).toMatchObject({
      currency: 'gbp',
      amount: 4200,
      is_charge_refundable: false,
      reversal_total: 5700,
      fields: { order_id: '123', items: 3, refund: 4200 },
      products: [product],
      correspondence: [letter],
      past_payments: [payment],
    });
  });

  it('for an update, brackets for fields and JSON text for arrays', async () => {
    const [one, two] = [uniqueId('dp_u_json'), uniqueId('dp_u_form')];
    for (const id of [one, two]) {
      const created = await api.call('POST', '/v1/disputes', {
        key: tenant.key,
        json: createJson(id, { fields: {}, products: [], correspondence: [], past_payments: [] }),
      });
      expect(created.status).toBe(201);
    }
    const asJson = await api.call<Dispute>('PUT', `/v1/disputes/${one}`, {
      key: tenant.key,
      json: {
        fields: { order_id: '123', items: 7, shipped_on: '2024-01-05' },
        products: [product, { ...product, name: 'Red mug' }],
        correspondence: [letter],
        past_payments: [payment],
        reference_url: 'https://shop.example/r',
        account_id: 'acct_1',
      },
    });
    const asForm = await api.call<Dispute>('PUT', `/v1/disputes/${two}`, {
      key: tenant.key,
      form:
        'fields[order_id]=123&fields[items]=7&fields[shipped_on]=2024-01-05' +
        `&products=${encodeURIComponent(JSON.stringify([product, { ...product, name: 'Red mug' }]))}` +
        `&correspondence=${encodeURIComponent(JSON.stringify([letter]))}` +
        `&past_payments=${encodeURIComponent(JSON.stringify([payment]))}` +
        '&reference_url=https%3A%2F%2Fshop.example%2Fr&account_id=acct_1',
    });
    expect(asJson.status).toBe(200);
    expect(asForm.status).toBe(200);
    expect(comparable(asForm.body)).toEqual(comparable(asJson.body));
    expect(asForm.body.fields).toEqual({ order_id: '123', items: 7, shipped_on: '2024-01-05' });
  });

  it('removes a field sent as an empty form value', async () => {
    const id = uniqueId('dp_empty');
    await api.call('POST', '/v1/disputes', { key: tenant.key, json: createJson(id) });
    const response = await api.call<Dispute>('PUT', `/v1/disputes/${id}`, {
      key: tenant.key,
      form: 'fields[items]=&fields[note]=kept',
    });
    expect(response.status).toBe(200);
    expect(response.body.fields).toEqual({ order_id: '123', refund: 4200, note: 'kept' });
  });

  it('takes booleans as true/false in a form: submit=true submits', async () => {
    const id = uniqueId('dp_form_submit');
    const response = await api.call<Dispute>('POST', '/v1/disputes', {
      key: tenant.key,
      form: createForm(id, { submit: 'true' }),
    });
    expect(response.status).toBe(201);
    expect(response.body.state).toBe('submitted');
  });

  it('queue=true as a form value queues, and queue=false un-queues', async () => {
    const { dispute } = await submittableDispute(api, tenant);
    const queued = await api.call<Dispute>('PUT', `/v1/disputes/${dispute.id}`, {
      key: tenant.key,
      form: 'queue=true',
    });
    expect(queued.body.state).toBe('queued');
    const back = await api.call<Dispute>('PUT', `/v1/disputes/${dispute.id}`, {
      key: tenant.key,
      form: 'queue=false',
    });
    expect(back.body.state).toBe('needs_response');
  });

  it.each([
    ['a boolean that is not true/false', 'queue=yes', 'invalid_request'],
    ['products that are not JSON text', 'products=%5Bnot%20json', 'invalid_products'],
    ['correspondence as bracketed fields', 'correspondence[0][to]=a', 'invalid_correspondence'],
    [
      'past_payments with a bad item',
      `past_payments=${encodeURIComponent('[{"id":"x"}]')}`,
      'invalid_past_payments',
    ],
    ['a number field that is not a number', 'fields[items]=many', 'invalid_fields'],
  ])('refuses %s in a form and changes nothing', async (_, form, type) => {
    const id = uniqueId('dp_bad_form');
    await api.call('POST', '/v1/disputes', { key: tenant.key, json: createJson(id) });
    const before = await getDispute(api, tenant.key, id);
    expectError(await api.call('PUT', `/v1/disputes/${id}`, { key: tenant.key, form }), 400, type);
    expect(await getDispute(api, tenant.key, id)).toEqual(before);
  });

  it('refuses an unsupported content type with 400 invalid_request', async () => {
    const { dispute } = await submittableDispute(api, tenant);
    const response = await api.call('PUT', `/v1/disputes/${dispute.id}`, {
      key: tenant.key,
      raw: 'fields[note]=x',
      headers: { 'content-type': 'text/plain' },
    });
    expectError(response, 400, 'invalid_request', { url: `/v1/disputes/${dispute.id}` });
  });

  it('refuses a JSON body that is not an object with 400 invalid_request', async () => {
    const { dispute } = await submittableDispute(api, tenant);
    const response = await api.call('PUT', `/v1/disputes/${dispute.id}`, { key: tenant.key, json: [1, 2] });
    expectError(response, 400, 'invalid_request');
  });
});

describe('query-string parameters merge under the body', () => {
  it('POST /v1/disputes/:id/submit?force=true forces a held dispute', async () => {
    const { dispute } = await submittableDispute(api, tenant, { state: 'requires_review' });
    const response = await api.call<Dispute>('POST', `/v1/disputes/${dispute.id}/submit`, {
      key: tenant.key,
      query: 'force=true',
    });
    expect(response.status).toBe(201);
    expect(response.body).toMatchObject({ state: 'submitted', url: `/v1/disputes/${dispute.id}/submit` });
  });

  it('the JSON body wins a clash with the query string', async () => {
    const { dispute } = await submittableDispute(api, tenant, { state: 'requires_review' });
    const response = await api.call<Dispute>('POST', `/v1/disputes/${dispute.id}/submit`, {
      key: tenant.key,
      query: 'force=true',
      json: { force: false },
    });
    expect(response.status).toBe(202);
    expect(response.body.state).toBe('requires_review');
  });

  it('the form body wins a clash with the query string', async () => {
    const { dispute } = await submittableDispute(api, tenant, { state: 'requires_review' });
    const response = await api.call<Dispute>('POST', `/v1/disputes/${dispute.id}/submit`, {
      key: tenant.key,
      query: 'force=true',
      form: 'force=false',
    });
    expect(response.status).toBe(202);
    expect(response.body.state).toBe('requires_review');
  });

  it('PUT takes some parameters from the query and others from the body', async () => {
    const { dispute } = await submittableDispute(api, tenant);
    const response = await api.call<Dispute>('PUT', `/v1/disputes/${dispute.id}`, {
      key: tenant.key,
      query: { reference_url: 'https://shop.example/q', fields: { note: 'from query' } },
      json: { fields: { order_id: 'from body' } },
    });
    expect(response.status).toBe(200);
    // The body's `fields` replaces the query's as a parameter; it then merges into the stored fields.
    expect(response.body).toMatchObject({
      reference_url: 'https://shop.example/q',
      fields: { order_id: 'from body' },
      url: `/v1/disputes/${dispute.id}`,
    });
    expect(response.body.fields).not.toHaveProperty('note');
  });

  it('POST /v1/disputes?submit=true creates and submits', async () => {
    const id = uniqueId('dp_query_submit');
    const response = await api.call<Dispute>('POST', '/v1/disputes', {
      key: tenant.key,
      query: 'submit=true',
      json: createJson(id),
    });
    expect(response.status).toBe(201);
    expect(response.body).toMatchObject({ id, state: 'submitted', url: '/v1/disputes' });
  });

  it('POST /v1/disputes/:id?submit=true with a form body submits', async () => {
    const { dispute } = await submittableDispute(api, tenant);
    const response = await api.call<Dispute>('POST', `/v1/disputes/${dispute.id}`, {
      key: tenant.key,
      query: 'submit=true',
      form: 'fields[note]=via form',
    });
    expect(response.status).toBe(201);
    expect(response.body).toMatchObject({
      state: 'submitted',
      fields: { order_id: 'A-1001', note: 'via form' },
    });
  });

  it('a bad query parameter is refused like a bad body parameter', async () => {
    const { dispute } = await submittableDispute(api, tenant, {
      state: 'requires_review',
      due_by: daysFromNow(3),
    });
    const before = await getDispute(api, tenant.key, dispute.id);
    expectError(
      await api.call('POST', `/v1/disputes/${dispute.id}/submit`, { key: tenant.key, query: 'force=maybe' }),
      400,
      'invalid_request',
    );
    expect(await getDispute(api, tenant.key, dispute.id)).toEqual(before);
  });
});
