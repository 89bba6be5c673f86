import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApi, type TestApi } from '../helpers/api.js';
import {
  acceptedSubmissions,
  createTemplate,
  createTestDispute,
  type Dispute,
  daysFromNow,
  expectError,
  getDispute,
  type Json,
  newTenant,
  orderTemplate,
  readStored,
  submittableDispute,
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

const put = (id: string, json: Json, headers?: Record<string, string>) =>
  api.call<Dispute>('PUT', `/v1/disputes/${id}`, { key: tenant.key, json, ...(headers && { headers }) });

const product = { name: 'Blue mug', quantity: 2, amount: 1500 };
const letter = {
  to: 'ada@example.com',
  from: 'support@shop.example',
  subject: 'Your order',
  body: 'Shipped.',
};
const payment = (n: number) => ({
  id: `ch_past_${n}`,
  amount: 1000 + n,
  currency: 'usd',
  charged_at: 1_600_000_000 + n,
});

describe('PUT /v1/disputes/:id: saving evidence', () => {
  it('answers 200 with the dispute, its evidence saved and its state unchanged', async () => {
    const template = await orderTemplate(api, tenant.key);
    const dispute = await createTestDispute(api, tenant.key);
    const response = await put(dispute.id, {
      template,
      fields: { order_id: 'A-1', note: 'first order' },
      products: [product],
      correspondence: [letter],
      past_payments: [payment(1)],
      reference_url: 'https://shop.example/orders/A-1',
      account_id: 'acct_direct_1',
    });
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({
      object: 'dispute',
      id: dispute.id,
      url: `/v1/disputes/${dispute.id}`,
      livemode: false,
      state: 'needs_response',
      template,
      fields: { order_id: 'A-1', note: 'first order' },
      missing_fields: {},
      products: [product],
      correspondence: [letter],
      past_payments: [payment(1)],
      reference_url: 'https://shop.example/orders/A-1',
      account_id: 'acct_direct_1',
      submitted_count: 0,
    });
    expect(await getDispute(api, tenant.key, dispute.id)).toEqual(response.body);
  });

  it('is also reachable as POST /v1/disputes/:id', async () => {
    const template = await orderTemplate(api, tenant.key);
    const dispute = await createTestDispute(api, tenant.key);
    const response = await api.call<Dispute>('POST', `/v1/disputes/${dispute.id}`, {
      key: tenant.key,
      json: { template, fields: { order_id: 'B-2' } },
    });
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({ state: 'needs_response', template, fields: { order_id: 'B-2' } });
  });

  it('merges fields: new keys add, sent keys replace, null or "" removes', async () => {
    const dispute = await createTestDispute(api, tenant.key);
    await put(dispute.id, { fields: { a: 'one', b: 'two', c: 'three' } });
    const merged = await put(dispute.id, { fields: { b: null, c: 'THREE', d: 'four' } });
    expect(merged.body.fields).toEqual({ a: 'one', c: 'THREE', d: 'four' });
    const emptied = await put(dispute.id, { fields: { a: '' } });
    expect(emptied.body.fields).toEqual({ c: 'THREE', d: 'four' });
    const untouched = await put(dispute.id, { reference_url: 'https://shop.example/x' });
    expect(untouched.body.fields).toEqual({ c: 'THREE', d: 'four' });
  });

  it('replaces arrays whole, and [] empties them', async () => {
    const dispute = await createTestDispute(api, tenant.key);
    await put(dispute.id, {
      products: [product, { ...product, name: 'Red mug' }],
      past_payments: [payment(1), payment(2)],
    });
    const replaced = await put(dispute.id, { products: [{ ...product, name: 'Green mug' }] });
    expect(replaced.body.products).toEqual([{ ...product, name: 'Green mug' }]);
    expect(replaced.body.past_payments).toEqual([payment(1), payment(2)]);
    const emptied = await put(dispute.id, { products: [], past_payments: [] });
    expect(emptied.body).toMatchObject({ products: [], past_payments: [] });
  });

  it('clears reference_url with null', async () => {
    const dispute = await createTestDispute(api, tenant.key);
    await put(dispute.id, { reference_url: 'http://shop.example/a' });
    expect((await put(dispute.id, { reference_url: null })).body.reference_url).toBeNull();
  });

  it('accepts every optional product, correspondence and past payment attribute', async () => {
    const dispute = await createTestDispute(api, tenant.key);
    const fullProduct = {
      ...product,
      quantity: '2 boxes',
      description: 'Ceramic',
      image: 'https://shop.example/mug.png',
      sku: 'MUG-1',
      url: 'https://shop.example/mug',
      shipping_carrier: 'UPS',
      shipping_tracking_number: '1Z999',
    };
    const fullLetter = { ...letter, sent: '2024-01-02', caption: 'Shipping notice' };
    const fullPayment = {
      ...payment(3),
      currency: 'USD',
      charged_at: '2023-01-02T00:00:00Z',
      device_id: 'dev_1',
      item_description: 'Mug',
      user_id: 'user_1',
      ip_address: '203.0.113.9',
      shipping_address: '1 Main St',
    };
    const response = await put(dispute.id, {
      products: [fullProduct],
      correspondence: [fullLetter],
      past_payments: [fullPayment],
    });
    expect(response.status).toBe(200);
    expect(response.body.products).toEqual([fullProduct]);
    expect(response.body.correspondence).toEqual([fullLetter]);
    expect(response.body.past_payments).toEqual([{ ...fullPayment, currency: 'usd' }]);
  });

  it('accepts 10 past payments', async () => {
    const dispute = await createTestDispute(api, tenant.key);
    const ten = Array.from({ length: 10 }, (_, n) => payment(n));
    const response = await put(dispute.id, { past_payments: ten });
    expect(response.status).toBe(200);
    expect(response.body.past_payments).toHaveLength(10);
  });

  it('validates fields of every template type, normalising numbers sent as text', async () => {
    const template = await createTemplate(api, tenant.key, [
      { key: 'shipped_on', type: 'date' },
      { key: 'items', type: 'number' },
      { key: 'refund', type: 'amount' },
      { key: 'tracking', type: 'url' },
      { key: 'contact', type: 'email' },
      { key: 'story', type: 'text' },
    ]);
    const dispute = await createTestDispute(api, tenant.key);
    const response = await put(dispute.id, {
      template,
      fields: {
        shipped_on: 1_700_000_000,
        items: '3',
        refund: 250,
        tracking: 'https://track.example/1',
        contact: 'buyer@example.com',
        story: 'They received it.',
      },
    });
    expect(response.status).toBe(200);
    expect(response.body.fields).toEqual({
      shipped_on: 1_700_000_000,
      items: 3,
      refund: 250,
      tracking: 'https://track.example/1',
      contact: 'buyer@example.com',
      story: 'They received it.',
    });
  });
});

describe('PUT /v1/disputes/:id: missing_fields', () => {
  it('lists each required field neither fields nor a same-named attribute provides, with its type', async () => {
    const template = await createTemplate(api, tenant.key, [
      { key: 'order_id', type: 'text', required: true },
      { key: 'shipped_on', type: 'date', required: true },
      { key: 'customer_email', type: 'email', required: true },
      { key: 'customer_purchase_ip', type: 'text', required: true },
      { key: 'amount', type: 'amount', required: true },
      { key: 'note', type: 'text' },
    ]);
    // A mock dispute knows its customer's email, purchase ip and amount.
    const dispute = await createTestDispute(api, tenant.key);
    const attached = await put(dispute.id, { template });
    expect(attached.body.missing_fields).toEqual({ order_id: 'text', shipped_on: 'date' });
    const partly = await put(dispute.id, { fields: { order_id: 'A-1' } });
    expect(partly.body.missing_fields).toEqual({ shipped_on: 'date' });
    const complete = await put(dispute.id, { fields: { shipped_on: '2024-01-02' } });
    expect(complete.body.missing_fields).toEqual({});
    const removed = await put(dispute.id, { fields: { order_id: '' } });
    expect(removed.body.missing_fields).toEqual({ order_id: 'text' });
  });

  it('counts a field as missing when the same-named attribute is null', async () => {
    const template = await createTemplate(api, tenant.key, [
      { key: 'customer_name', type: 'text', required: true },
      { key: 'customer_email', type: 'email', required: true },
      { key: 'charge', type: 'text', required: true },
    ]);
    const id = `dp_api_${Date.now()}`;
    const created = await api.call<Dispute>('POST', '/v1/disputes', {
      key: tenant.key,
      json: {
        id,
        charge: 'ch_api_1',
        reason: 'general',
        charged_at: '2024-01-01',
        disputed_at: '2024-02-01',
        due_by: daysFromNow(10),
        currency: 'usd',
        amount: 1000,
        template,
      },
    });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ customer_name: null, customer_email: null });
    expect(created.body.missing_fields).toEqual({ customer_name: 'text', customer_email: 'email' });
    const filled = await put(id, { fields: { customer_name: 'Ada', customer_email: 'ada@example.com' } });
    expect(filled.body.missing_fields).toEqual({});
  });

  it('is {} without a template', async () => {
    const dispute = await createTestDispute(api, tenant.key);
    expect(dispute.missing_fields).toEqual({});
  });
});

describe('PUT /v1/disputes/:id: queueing', () => {
  it('queue=true moves the dispute to queued, to be submitted at due_by minus the queue lead', async () => {
    const { dispute } = await submittableDispute(api, tenant);
    const response = await put(dispute.id, { queue: true });
    expect(response.status).toBe(200);
    expect(response.body.state).toBe('queued');
    expect(response.body).not.toHaveProperty('submit_at');
    const stored = await readStored(api, tenant, dispute.id);
    expect(stored.submitAt?.getTime()).toBe((stored.dueBy?.getTime() ?? 0) - 24 * 3_600_000);
    expect(acceptedSubmissions(api, dispute.id)).toHaveLength(0);
  });

  it('queue=true with an unsubmittable dispute is refused, keeping what was sent and the state', async () => {
    const template = await orderTemplate(api, tenant.key);
    const dispute = await createTestDispute(api, tenant.key, { due_by: daysFromNow(10) });
    await put(dispute.id, { template });
    expectError(await put(dispute.id, { queue: true, fields: { note: 'x' } }), 400, 'missing_fields');
    const after = await getDispute(api, tenant.key, dispute.id);
    expect(after).toMatchObject({ state: 'needs_response', fields: { note: 'x' } });
  });

  it('queue=true on a queued dispute that would become unsubmittable is refused and saves nothing', async () => {
    const { dispute } = await submittableDispute(api, tenant);
    await put(dispute.id, { queue: true });
    const before = await getDispute(api, tenant.key, dispute.id);
    const stricter = await createTemplate(api, tenant.key, [
      { key: 'shipped_on', type: 'date', required: true },
    ]);
    expectError(await put(dispute.id, { queue: true, template: stricter }), 400, 'missing_fields');
    expectError(
      await api.call('POST', `/v1/disputes/${dispute.id}/submit`, {
        key: tenant.key,
        json: { template: stricter },
      }),
      400,
      'missing_fields',
    );
    expect(await getDispute(api, tenant.key, dispute.id)).toEqual(before);
  });

  it('a queued dispute stays queued through an edit that keeps it submittable', async () => {
    const { dispute } = await submittableDispute(api, tenant);
    await put(dispute.id, { queue: true });
    const response = await put(dispute.id, { fields: { order_id: 'A-2', note: 'more' } });
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({ state: 'queued', fields: { order_id: 'A-2', note: 'more' } });
  });

  it('queue=false on a queued dispute returns it to needs_response', async () => {
    const { dispute } = await submittableDispute(api, tenant);
    await put(dispute.id, { queue: true });
    const response = await put(dispute.id, { queue: false });
    expect(response.status).toBe(200);
    expect(response.body.state).toBe('needs_response');
    expect((await readStored(api, tenant, dispute.id)).submitAt).toBeNull();
  });

  it('queue=false with an edit that would make it unsubmittable is allowed', async () => {
    const { dispute } = await submittableDispute(api, tenant);
    await put(dispute.id, { queue: true });
    const response = await put(dispute.id, { queue: false, fields: { order_id: null } });
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({ state: 'needs_response', missing_fields: { order_id: 'text' } });
  });

  const unsubmittable: [string, (template: string, other: string) => Json, string][] = [
    ['removing a required field', () => ({ fields: { order_id: null } }), 'missing_fields'],
    ['emptying a required field', () => ({ fields: { order_id: '' } }), 'missing_fields'],
    ['removing the template', () => ({ template: null }), 'missing_template'],
    ['switching to a template with an unfilled field', (_, other) => ({ template: other }), 'missing_fields'],
  ];
  it.each(unsubmittable)(
    'an edit to a queued dispute %s is refused and changes nothing',
    async (_, body, type) => {
      const { dispute, template } = await submittableDispute(api, tenant);
      const other = await createTemplate(api, tenant.key, [{ key: 'tracking', type: 'url', required: true }]);
      await put(dispute.id, { queue: true });
      const before = await getDispute(api, tenant.key, dispute.id);
      const storedBefore = await readStored(api, tenant, dispute.id);
      expectError(await put(dispute.id, body(template, other)), 400, type, {
        url: `/v1/disputes/${dispute.id}`,
      });
      expect(await getDispute(api, tenant.key, dispute.id)).toEqual(before);
      expect((await readStored(api, tenant, dispute.id)).submitAt).toEqual(storedBefore.submitAt);
    },
  );
});

describe('PUT /v1/disputes/:id with submit=true', () => {
  it('submits like POST /submit: 201 submitted, one call to the processor', async () => {
    const { dispute } = await submittableDispute(api, tenant);
    const calls = api.mock.calls;
    const response = await put(dispute.id, { submit: true, fields: { note: 'sent with the update' } });
    expect(response.status).toBe(201);
    expect(response.body).toMatchObject({ state: 'submitted', submitted_count: 1 });
    expect(api.mock.calls - calls).toBe(1);
    const [sent] = acceptedSubmissions(api, dispute.id);
    expect(sent?.request.evidence.fields).toEqual({ order_id: 'A-1001', note: 'sent with the update' });
  });

  it('via POST too', async () => {
    const { dispute } = await submittableDispute(api, tenant);
    const response = await api.call<Dispute>('POST', `/v1/disputes/${dispute.id}`, {
      key: tenant.key,
      json: { submit: true },
    });
    expect(response.status).toBe(201);
    expect(response.body.state).toBe('submitted');
  });

  it('refuses an unsubmittable dispute with 400 missing_fields, keeping what was saved', async () => {
    const template = await orderTemplate(api, tenant.key);
    const dispute = await createTestDispute(api, tenant.key, { due_by: daysFromNow(10) });
    expectError(
      await put(dispute.id, { submit: true, template, fields: { note: 'kept' } }),
      400,
      'missing_fields',
    );
    expect(await getDispute(api, tenant.key, dispute.id)).toMatchObject({
      state: 'needs_response',
      template,
      fields: { note: 'kept' },
    });
  });
});

describe('PUT /v1/disputes/:id: bad input changes nothing', () => {
  const cases: [string, Json, number, string][] = [
    ['an unknown template', { template: 'tpl_missing' }, 400, 'template_not_found'],
    ['a template id with bad characters', { template: 'tpl missing' }, 400, 'invalid_request'],
    ['a number field given text', { fields: { items: 'three' } }, 400, 'invalid_fields'],
    ['a number field given a fraction', { fields: { items: 1.5 } }, 400, 'invalid_fields'],
    ['an amount field given text', { fields: { refund: '2.50' } }, 400, 'invalid_fields'],
    ['a url field given a relative url', { fields: { tracking: '/track/1' } }, 400, 'invalid_fields'],
    [
      'a url field given an ftp url',
      { fields: { tracking: 'ftp://track.example/1' } },
      400,
      'invalid_fields',
    ],
    ['an email field given a non-address', { fields: { contact: 'not-an-email' } }, 400, 'invalid_fields'],
    ['a text field given a number', { fields: { story: 42 } }, 400, 'invalid_fields'],
    ['a date field given a fraction', { fields: { shipped_on: 1.5 } }, 400, 'invalid_fields'],
    ['a field value that is an object', { fields: { story: { nested: true } } }, 400, 'invalid_fields'],
    ['fields that are not a dictionary', { fields: 'story=1' }, 400, 'invalid_fields'],
    ['a product without name', { products: [{ quantity: 1, amount: 100 }] }, 400, 'invalid_products'],
    ['a product without amount', { products: [{ name: 'Mug', quantity: 1 }] }, 400, 'invalid_products'],
    ['a product with a negative amount', { products: [{ ...product, amount: -1 }] }, 400, 'invalid_products'],
    [
      'a product with a fractional amount',
      { products: [{ ...product, amount: 1.5 }] },
      400,
      'invalid_products',
    ],
    ['a product without quantity', { products: [{ name: 'Mug', amount: 100 }] }, 400, 'invalid_products'],
    [
      'a product with a relative image',
      { products: [{ ...product, image: 'mug.png' }] },
      400,
      'invalid_products',
    ],
    ['a product with a relative url', { products: [{ ...product, url: '/mug' }] }, 400, 'invalid_products'],
    ['products that are not an array', { products: { name: 'Mug' } }, 400, 'invalid_products'],
    [
      'correspondence without subject',
      { correspondence: [{ ...letter, subject: undefined }] },
      400,
      'invalid_correspondence',
    ],
    [
      'correspondence with a numeric body',
      { correspondence: [{ ...letter, body: 7 }] },
      400,
      'invalid_correspondence',
    ],
    ['correspondence that is not an array', { correspondence: 'hello' }, 400, 'invalid_correspondence'],
    [
      'a past payment without id',
      { past_payments: [{ ...payment(1), id: undefined }] },
      400,
      'invalid_past_payments',
    ],
    [
      'a past payment with a 2-letter currency',
      { past_payments: [{ ...payment(1), currency: 'us' }] },
      400,
      'invalid_past_payments',
    ],
    [
      'a past payment with a text amount',
      { past_payments: [{ ...payment(1), amount: 'ten' }] },
      400,
      'invalid_past_payments',
    ],
    [
      'a past payment without charged_at',
      { past_payments: [{ ...payment(1), charged_at: undefined }] },
      400,
      'invalid_past_payments',
    ],
    [
      '11 past payments',
      { past_payments: Array.from({ length: 11 }, (_, n) => payment(n)) },
      400,
      'invalid_past_payments',
    ],
    ['a relative reference_url', { reference_url: '/orders/1' }, 400, 'invalid_request'],
    ['an ftp reference_url', { reference_url: 'ftp://shop.example/orders/1' }, 400, 'invalid_request'],
    ['a javascript reference_url', { reference_url: 'javascript:alert(1)' }, 400, 'invalid_request'],
    ['a non-boolean queue', { queue: 'yes' }, 400, 'invalid_request'],
    ['a non-boolean submit', { submit: 1 }, 400, 'invalid_request'],
  ];

  let template: string;
  beforeAll(async () => {
    template = await createTemplate(api, tenant.key, [
      { key: 'items', type: 'number' },
      { key: 'refund', type: 'amount' },
      { key: 'tracking', type: 'url' },
      { key: 'contact', type: 'email' },
      { key: 'story', type: 'text' },
      { key: 'shipped_on', type: 'date' },
    ]);
  });

  it.each(cases)('%s: 400, and the dispute is as it was', async (_, body, status, type) => {
    const dispute = await createTestDispute(api, tenant.key);
    await put(dispute.id, { template, fields: { story: 'before' }, products: [product] });
    const before = await getDispute(api, tenant.key, dispute.id);
    // Valid evidence sent alongside must not be saved either.
    const response = await put(dispute.id, {
      correspondence: [letter],
      ...body,
      reference_url: body.reference_url ?? 'https://shop.example/new',
    });
    expectError(response, status, type, { url: `/v1/disputes/${dispute.id}` });
    expect(await getDispute(api, tenant.key, dispute.id)).toEqual(before);
  });

  it('names the field in an invalid_fields message', async () => {
    const dispute = await createTestDispute(api, tenant.key);
    const response = await put(dispute.id, { template, fields: { items: 'three' } });
    expectError(response, 400, 'invalid_fields');
    expect((response.body as unknown as { error: { message: string } }).error.message).toContain('items');
  });

  it('checks the stored fields against a newly named template', async () => {
    const dispute = await createTestDispute(api, tenant.key);
    await put(dispute.id, { fields: { items: 'many' } });
    const before = await getDispute(api, tenant.key, dispute.id);
    expectError(await put(dispute.id, { template }), 400, 'invalid_fields');
    expect(await getDispute(api, tenant.key, dispute.id)).toEqual(before);
  });

  it('answers 400 template_not_found (not 404) for an unknown template', async () => {
    const dispute = await createTestDispute(api, tenant.key);
    const response = await put(dispute.id, { template: 'tpl_nope' });
    expect(response.body).toEqual({
      url: `/v1/disputes/${dispute.id}`,
      livemode: false,
      error: { status: 400, message: expect.any(String), type: 'template_not_found' },
    });
  });

  it("refuses another organisation's template", async () => {
    const other = await newTenant(api);
    const theirs = await orderTemplate(api, other.key);
    const dispute = await createTestDispute(api, tenant.key);
    expectError(await put(dispute.id, { template: theirs }), 400, 'template_not_found');
  });

  it('answers 404 dispute_not_found for an unknown dispute', async () => {
    expectError(await put('dp_nope', { fields: { a: 'b' } }), 404, 'dispute_not_found', {
      url: '/v1/disputes/dp_nope',
    });
  });

  it('refuses malformed JSON with 400 invalid_request', async () => {
    const dispute = await createTestDispute(api, tenant.key);
    const response = await api.call('PUT', `/v1/disputes/${dispute.id}`, {
      key: tenant.key,
      raw: '{"fields": {',
      headers: { 'content-type': 'application/json' },
    });
    expectError(response, 400, 'invalid_request');
  });
});

describe('PUT /v1/disputes/:id: evidence size', () => {
  it('refuses an update that would grow the evidence past 512 KiB, keeping what was stored', async () => {
    const dispute = await createTestDispute(api, tenant.key);
    for (const key of ['a', 'b', 'c', 'd', 'e']) {
      expect((await put(dispute.id, { fields: { [key]: 'x'.repeat(10_000) } })).status).toBe(200);
    }
    const before = await getDispute(api, tenant.key, dispute.id);
    const products = Array.from({ length: 60 }, (_, index) => ({
      name: `item ${index}`,
      quantity: 1,
      amount: 100,
      description: 'y'.repeat(9_000),
    }));
    const response = await put(dispute.id, { products });
    expectError(response, 400, 'invalid_request');
    expect((response.body as unknown as { error: { message: string } }).error.message).toMatch(
      /^The dispute's evidence would take \d+ bytes; a dispute keeps at most 524288\.$/,
    );
    expect(await getDispute(api, tenant.key, dispute.id)).toEqual(before);
  });
});
