import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApi, type TestApi } from '../helpers/api.js';
import { expectApiError } from '../helpers/security.js';

/** Templates CRUD (docs/api.md, "Templates and response documents"). */

let api: TestApi;
beforeAll(async () => {
  api = await startTestApi({ workers: [] });
});
afterAll(async () => {
  await api.close();
});

const timestamp = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}$/;

const fullTemplate = {
  id: 'tpl_fraud',
  name: 'Fraud',
  description: 'For fraudulent disputes',
  fields: [
    { key: 'order_id', type: 'text', required: true, description: 'The order number' },
    { key: 'shipped_at', type: 'date', required: false, description: null },
    { key: 'quantity', type: 'number', required: false, description: null },
    { key: 'total', type: 'amount', required: true, description: null },
    { key: 'tracking_url', type: 'url', required: false, description: null },
    { key: 'customer_email', type: 'email', required: false, description: null },
  ],
  reasons: ['fraudulent', 'unrecognized'],
  body: 'Order {{order_id}} for {{amount}}',
};

type Template = Record<string, unknown> & { id: string; created: string; updated: string };
type List = { object: string; data: Template[]; has_more: boolean; livemode: boolean; url: string };

async function createTemplate(key: string, body: Record<string, unknown>) {
  const response = await api.call<Template>('POST', '/v1/templates', { key, json: body });
  expect(response.status, response.text).toBe(201);
  return response.body;
}

describe('POST /v1/templates', () => {
  it('creates a template and answers 201 with object "template" and every attribute', async () => {
    const { test_key } = await api.createOrg();
    const response = await api.call('POST', '/v1/templates', { key: test_key, json: fullTemplate });
    expect(response.status).toBe(201);
    expect(String(response.headers['content-type'])).toBe('application/json; charset=utf-8');
    expect(response.body).toEqual({
      object: 'template',
      ...fullTemplate,
      created: expect.stringMatching(timestamp),
      updated: expect.stringMatching(timestamp),
      livemode: false,
      url: '/v1/templates',
    });
  });

  it('fills absent attributes with null, no fields, and field defaults (required false, description null)', async () => {
    const { test_key } = await api.createOrg();
    const created = await createTemplate(test_key, {
      id: 'tpl_min',
      fields: [{ key: 'order_id', type: 'text' }],
    });
    expect(created).toEqual({
      object: 'template',
      id: 'tpl_min',
      name: null,
      description: null,
      fields: [{ key: 'order_id', type: 'text', required: false, description: null }],
      reasons: null,
      body: null,
      created: expect.stringMatching(timestamp),
      updated: expect.stringMatching(timestamp),
      livemode: false,
      url: '/v1/templates',
    });
    const bare = await createTemplate(test_key, { id: 'tpl_bare' });
    expect(bare.fields).toEqual([]);
  });

  it('creates in live mode with livemode true, apart from test mode', async () => {
    const { test_key, live_key } = await api.createOrg();
    const created = await createTemplate(live_key, { id: 'tpl_live', name: 'Live' });
    expect(created.livemode).toBe(true);
    const fromTest = await api.call('GET', '/v1/templates/tpl_live', { key: test_key });
    expectApiError(fromTest, { status: 404, type: 'template_not_found', url: '/v1/templates/tpl_live' });
  });

  it('accepts every character of the id set (A-Z a-z 0-9 _ - . :) up to 255 characters', async () => {
    const { test_key } = await api.createOrg();
    for (const id of ['Az09_-.:x', 'a', 'x'.repeat(255)]) {
      const created = await createTemplate(test_key, { id });
      expect(created.id).toBe(id);
      const found = await api.call('GET', `/v1/templates/${id}`, { key: test_key });
      expect(found.status).toBe(200);
      expect(found.body).toMatchObject({ object: 'template', id, url: `/v1/templates/${id}` });
    }
  });

  it('refuses a duplicate id in the same organisation and mode with 400 invalid_request, leaving the first', async () => {
    const { test_key } = await api.createOrg();
    await createTemplate(test_key, { id: 'tpl_dup', name: 'First' });
    const again = await api.call('POST', '/v1/templates', {
      key: test_key,
      json: { id: 'tpl_dup', name: 'Second' },
    });
    expectApiError(again, { status: 400, type: 'invalid_request', url: '/v1/templates' });
    const found = await api.call('GET', '/v1/templates/tpl_dup', { key: test_key });
    expect(found.body.name).toBe('First');
  });

  const badCreates: [string, Record<string, unknown>][] = [
    ['a missing id', { name: 'No id' }],
    ['an empty id', { id: '' }],
    ['an id with a space', { id: 'has space' }],
    ['an id with a slash', { id: 'a/b' }],
    ['an id of 256 characters', { id: 'x'.repeat(256) }],
    ['a numeric id', { id: 42 }],
    ['a name that is a number', { id: 'tpl_x', name: 42 }],
    ['a name of 256 characters', { id: 'tpl_x', name: 'n'.repeat(256) }],
    ['a description that is an object', { id: 'tpl_x', description: { a: 1 } }],
    ['a body that is an array', { id: 'tpl_x', body: ['a'] }],
    ['a field of unknown type', { id: 'tpl_x', fields: [{ key: 'colour', type: 'colour' }] }],
    ['a field without a type', { id: 'tpl_x', fields: [{ key: 'colour' }] }],
    ['a field without a key', { id: 'tpl_x', fields: [{ type: 'text' }] }],
    ['a field key with a space', { id: 'tpl_x', fields: [{ key: 'order id', type: 'text' }] }],
    ['a field key of 101 characters', { id: 'tpl_x', fields: [{ key: 'k'.repeat(101), type: 'text' }] }],
    ['an empty field key', { id: 'tpl_x', fields: [{ key: '', type: 'text' }] }],
    [
      'duplicate field keys',
      {
        id: 'tpl_x',
        fields: [
          { key: 'order_id', type: 'text' },
          { key: 'order_id', type: 'number' },
        ],
      },
    ],
    [
      'required that is not a boolean',
      { id: 'tpl_x', fields: [{ key: 'a', type: 'text', required: 'yes' }] },
    ],
    ['fields that is an object', { id: 'tpl_x', fields: { key: 'a', type: 'text' } }],
    ['fields that is a number', { id: 'tpl_x', fields: 3 }],
    ['an unknown reason', { id: 'tpl_x', reasons: ['fraudulent', 'not_a_reason'] }],
    ['reasons that is one string', { id: 'tpl_x', reasons: 'fraudulent' }],
    ['reasons with a number', { id: 'tpl_x', reasons: [1] }],
  ];

  it.each(badCreates)('refuses %s with 400 invalid_request and creates nothing', async (_, body) => {
    const { test_key } = await api.createOrg();
    const response = await api.call('POST', '/v1/templates', { key: test_key, json: body });
    expectApiError(response, { status: 400, type: 'invalid_request', url: '/v1/templates' });
    const list = await api.call<List>('GET', '/v1/templates', { key: test_key });
    expect(list.body.data).toEqual([]);
  });

  it('accepts a form body with fields and reasons as one JSON-text value each', async () => {
    const { test_key } = await api.createOrg();
    const response = await api.call('POST', '/v1/templates', {
      key: test_key,
      form: {
        id: 'tpl_form',
        name: 'From a form',
        fields: JSON.stringify([{ key: 'order_id', type: 'text', required: true }]),
        reasons: JSON.stringify(['fraudulent']),
        body: 'Order {{order_id}}',
      },
    });
    expect(response.status, response.text).toBe(201);
    expect(response.body).toEqual({
      object: 'template',
      id: 'tpl_form',
      name: 'From a form',
      description: null,
      fields: [{ key: 'order_id', type: 'text', required: true, description: null }],
      reasons: ['fraudulent'],
      body: 'Order {{order_id}}',
      created: expect.stringMatching(timestamp),
      updated: expect.stringMatching(timestamp),
      livemode: false,
      url: '/v1/templates',
    });
  });

  it('refuses a form whose fields value is not JSON text of an array with 400 invalid_request', async () => {
    const { test_key } = await api.createOrg();
    for (const fields of ['not json', '{"key":"a","type":"text"}', '[{"key":"a","type":"colour"}]']) {
      const response = await api.call('POST', '/v1/templates', {
        key: test_key,
        form: { id: 'tpl_f', fields },
      });
      expectApiError(response, { status: 400, type: 'invalid_request', url: '/v1/templates' });
    }
  });
});

describe('GET /v1/templates', () => {
  it('lists newest first with paging by limit, starting_after and ending_before', async () => {
    const { test_key } = await api.createOrg();
    for (const id of ['t_1', 't_2', 't_3', 't_4', 't_5']) await createTemplate(test_key, { id });

    const all = await api.call<List>('GET', '/v1/templates', { key: test_key });
    expect(all.status).toBe(200);
    expect(all.body).toMatchObject({
      object: 'list',
      has_more: false,
      livemode: false,
      url: '/v1/templates',
    });
    expect(all.body.data.map((t) => t.id)).toEqual(['t_5', 't_4', 't_3', 't_2', 't_1']);
    expect(all.body.data[0]).toMatchObject({ object: 'template', url: '/v1/templates/t_5', livemode: false });

    const first = await api.call<List>('GET', '/v1/templates', { key: test_key, query: { limit: 2 } });
    expect(first.body.data.map((t) => t.id)).toEqual(['t_5', 't_4']);
    expect(first.body.has_more).toBe(true);
    expect(first.body.url).toBe('/v1/templates');

    const second = await api.call<List>('GET', '/v1/templates', {
      key: test_key,
      query: { limit: 2, starting_after: 't_4' },
    });
    expect(second.body.data.map((t) => t.id)).toEqual(['t_3', 't_2']);
    expect(second.body.has_more).toBe(true);

    const last = await api.call<List>('GET', '/v1/templates', {
      key: test_key,
      query: { limit: 2, starting_after: 't_2' },
    });
    expect(last.body.data.map((t) => t.id)).toEqual(['t_1']);
    expect(last.body.has_more).toBe(false);

    const back = await api.call<List>('GET', '/v1/templates', {
      key: test_key,
      query: { limit: 2, ending_before: 't_2' },
    });
    expect(back.body.data.map((t) => t.id)).toEqual(['t_4', 't_3']);
    expect(back.body.has_more).toBe(true);

    const top = await api.call<List>('GET', '/v1/templates', {
      key: test_key,
      query: { limit: 2, ending_before: 't_4' },
    });
    expect(top.body.data.map((t) => t.id)).toEqual(['t_5']);
    expect(top.body.has_more).toBe(false);
  });

  it('defaults to 20 per page and allows 100', async () => {
    const { test_key } = await api.createOrg();
    for (let index = 0; index < 21; index++) await createTemplate(test_key, { id: `t_${index}` });
    const page = await api.call<List>('GET', '/v1/templates', { key: test_key });
    expect(page.body.data).toHaveLength(20);
    expect(page.body.has_more).toBe(true);
    const big = await api.call<List>('GET', '/v1/templates', { key: test_key, query: { limit: 100 } });
    expect(big.body.data).toHaveLength(21);
    expect(big.body.has_more).toBe(false);
  });

  it.each([
    ['limit=0', 'limit=0'],
    ['limit=101', 'limit=101'],
    ['limit=-1', 'limit=-1'],
    ['limit=abc', 'limit=abc'],
    ['limit=1.5', 'limit=1.5'],
    ['both cursors', 'starting_after=t_1&ending_before=t_1'],
    ['an unknown cursor', 'starting_after=nope'],
    ['a cursor that cannot be an id', 'ending_before=%27%20or%201%3D1--'],
  ])('refuses %s with 400 invalid_request', async (_, query) => {
    const { test_key } = await api.createOrg();
    await createTemplate(test_key, { id: 't_1' });
    const response = await api.call('GET', '/v1/templates', { key: test_key, query });
    expectApiError(response, { status: 400, type: 'invalid_request', url: '/v1/templates' });
  });
});

describe('GET /v1/templates/:id', () => {
  it('retrieves a template with its own url', async () => {
    const { test_key } = await api.createOrg();
    const created = await createTemplate(test_key, fullTemplate);
    const response = await api.call('GET', '/v1/templates/tpl_fraud', { key: test_key });
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ ...created, url: '/v1/templates/tpl_fraud' });
  });

  it.each(['tpl_unknown', 'has%20space', 'x'.repeat(300), '%27%20or%201%3D1--'])(
    'answers an unknown id (%s) with 404 template_not_found',
    async (id) => {
      const { test_key } = await api.createOrg();
      for (const method of ['GET', 'PUT', 'DELETE']) {
        const response = await api.call(method, `/v1/templates/${id}`, {
          key: test_key,
          ...(method === 'PUT' && { json: { name: 'x' } }),
        });
        expectApiError(response, { status: 404, type: 'template_not_found', url: `/v1/templates/${id}` });
      }
    },
  );
});

describe('PUT /v1/templates/:id', () => {
  it('changes only the attributes sent', async () => {
    const { org, test_key } = await api.createOrg();
    const created = await createTemplate(test_key, fullTemplate);
    const stamps = () =>
      api.db.sql<{ created_at: Date; updated_at: Date }[]>`
        select created_at, updated_at from templates where id = 'tpl_fraud' and org_id = ${org}`;
    const [before] = await stamps();
    const response = await api.call<Template>('PUT', '/v1/templates/tpl_fraud', {
      key: test_key,
      json: { name: 'Renamed' },
    });
    expect(response.status).toBe(200);
    expect(response.body).toEqual({
      ...created,
      name: 'Renamed',
      updated: expect.stringMatching(timestamp),
      url: '/v1/templates/tpl_fraud',
    });
    expect(response.body.created).toBe(created.created);
    const [after] = await stamps();
    expect(after?.created_at).toEqual(before?.created_at);
    expect(after && before && after.updated_at > before.updated_at).toBe(true);

    const retrieved = await api.call('GET', '/v1/templates/tpl_fraud', { key: test_key });
    expect(retrieved.body).toEqual(response.body);
  });

  it('replaces fields and reasons whole, and clears attributes sent as null', async () => {
    const { test_key } = await api.createOrg();
    const created = await createTemplate(test_key, fullTemplate);
    const response = await api.call('PUT', '/v1/templates/tpl_fraud', {
      key: test_key,
      json: {
        fields: [{ key: 'note', type: 'text', required: true }],
        reasons: null,
        description: null,
      },
    });
    expect(response.status).toBe(200);
    expect(response.body).toEqual({
      ...created,
      fields: [{ key: 'note', type: 'text', required: true, description: null }],
      reasons: null,
      description: null,
      updated: expect.stringMatching(timestamp),
      url: '/v1/templates/tpl_fraud',
    });
  });

  it('does not rename a template when the body carries an id', async () => {
    const { test_key } = await api.createOrg();
    await createTemplate(test_key, { id: 'tpl_keep' });
    const response = await api.call('PUT', '/v1/templates/tpl_keep', {
      key: test_key,
      json: { id: 'tpl_other', name: 'Kept' },
    });
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({ id: 'tpl_keep', name: 'Kept' });
    const other = await api.call('GET', '/v1/templates/tpl_other', { key: test_key });
    expectApiError(other, { status: 404, type: 'template_not_found', url: '/v1/templates/tpl_other' });
  });

  it('accepts a form body', async () => {
    const { test_key } = await api.createOrg();
    await createTemplate(test_key, fullTemplate);
    const response = await api.call('PUT', '/v1/templates/tpl_fraud', {
      key: test_key,
      form: { body: 'New body', reasons: '["general"]' },
    });
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({ body: 'New body', reasons: ['general'], name: 'Fraud' });
  });

  it.each([
    ['an unknown field type', { fields: [{ key: 'a', type: 'colour' }] }],
    [
      'duplicate field keys',
      {
        fields: [
          { key: 'a', type: 'text' },
          { key: 'a', type: 'text' },
        ],
      },
    ],
    ['a bad field key', { fields: [{ key: 'a b', type: 'text' }] }],
    ['an unknown reason', { reasons: ['nope'] }],
    ['a name that is a number', { name: 5 }],
  ])('refuses %s with 400 invalid_request and changes nothing', async (_, body) => {
    const { test_key } = await api.createOrg();
    const created = await createTemplate(test_key, fullTemplate);
    const response = await api.call('PUT', '/v1/templates/tpl_fraud', { key: test_key, json: body });
    expectApiError(response, { status: 400, type: 'invalid_request', url: '/v1/templates/tpl_fraud' });
    const retrieved = await api.call('GET', '/v1/templates/tpl_fraud', { key: test_key });
    expect(retrieved.body).toEqual({ ...created, url: '/v1/templates/tpl_fraud' });
  });
});

describe('DELETE /v1/templates/:id', () => {
  it('deletes a template: 200 with deleted true, then it is not found', async () => {
    const { test_key } = await api.createOrg();
    await createTemplate(test_key, { id: 'tpl_gone' });
    await createTemplate(test_key, { id: 'tpl_stays' });
    const response = await api.call('DELETE', '/v1/templates/tpl_gone', { key: test_key });
    expect(response.status).toBe(200);
    expect(response.body).toEqual({
      object: 'template',
      id: 'tpl_gone',
      deleted: true,
      livemode: false,
      url: '/v1/templates/tpl_gone',
    });
    for (const method of ['GET', 'DELETE']) {
      const again = await api.call(method, '/v1/templates/tpl_gone', { key: test_key });
      expectApiError(again, { status: 404, type: 'template_not_found', url: '/v1/templates/tpl_gone' });
    }
    const list = await api.call<List>('GET', '/v1/templates', { key: test_key });
    expect(list.body.data.map((t) => t.id)).toEqual(['tpl_stays']);
  });

  it('frees the id for a new template', async () => {
    const { test_key } = await api.createOrg();
    await createTemplate(test_key, { id: 'tpl_again', name: 'Old' });
    await api.call('DELETE', '/v1/templates/tpl_again', { key: test_key });
    const created = await createTemplate(test_key, { id: 'tpl_again', name: 'New' });
    expect(created.name).toBe('New');
  });
});

describe('templates named by disputes', () => {
  it('answers 400 template_not_found when a dispute names an unknown template', async () => {
    const { test_key } = await api.createOrg();
    const dispute = await api.call<{ id: string }>('POST', '/v1/test/disputes', { key: test_key });
    expect(dispute.status).toBe(201);
    const url = `/v1/disputes/${dispute.body.id}`;
    const response = await api.call('PUT', url, { key: test_key, json: { template: 'tpl_missing' } });
    expectApiError(response, { status: 400, type: 'template_not_found', url });
  });

  it("validates a dispute's fields by the template's field types, naming the field", async () => {
    const { test_key } = await api.createOrg();
    await createTemplate(test_key, fullTemplate);
    const dispute = await api.call<{ id: string }>('POST', '/v1/test/disputes', { key: test_key });
    const url = `/v1/disputes/${dispute.body.id}`;
    const response = await api.call<{ error: { message: string } }>('PUT', url, {
      key: test_key,
      json: { template: 'tpl_fraud', fields: { quantity: 'many' } },
    });
    expectApiError(response, { status: 400, type: 'invalid_fields', url });
    expect(response.body.error.message).toContain('quantity');
  });
});
