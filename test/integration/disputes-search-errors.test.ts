import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApi, type TestApi } from '../helpers/api.js';
import {
  createTestDispute,
  type ErrorBody,
  emptyDisputeList,
  expectError,
  newTenant,
  type Tenant,
} from '../helpers/disputes.js';
import { operationsOf, readOpenApiDocument, resolve } from '../helpers/openapi.js';

/**
 * Bad values of the list's filters (docs/api.md, "Disputes"): 400 invalid_request naming the parameter,
 * with the message a client reads; parameters the list does not know stay ignored.
 */

let api: TestApi;
let tenant: Tenant;
beforeAll(async () => {
  api = await startTestApi({ workers: [] });
  tenant = await newTenant(api);
  await createTestDispute(api, tenant.key, { reason: 'fraudulent' });
});
afterAll(async () => {
  await api.close();
});

const list = (query: string) => api.call<ErrorBody>('GET', '/v1/disputes', { key: tenant.key, query });

async function expectRefused(query: string, message: string) {
  const response = await list(query);
  expectError(response, 400, 'invalid_request', { url: '/v1/disputes' });
  expect(response.body.error.message).toBe(message);
}

const range = (name: string) =>
  `Invalid ${name}: must be a range: ${name}[gte], ${name}[gt], ${name}[lte], ${name}[lt].`;
const badTime = (where: string) => `Invalid ${where}: must be an ISO 8601 timestamp or Unix seconds.`;
const repeated = (name: string) => `Invalid ${name}: must have at most 100 values.`;

describe('GET /v1/disputes: bad filter values', () => {
  it.each([
    [
      'kind=nope',
      'Invalid kind: Invalid option: expected one of "chargeback"|"pre_arbitration"|"retrieval".',
    ],
    [
      'network=VISA',
      'Invalid network: Invalid option: expected one of "visa"|"mastercard"|"amex"|"discover"|"jcb"|"unionpay"|"diners".',
    ],
    [
      'kind=chargeback&kind=bogus',
      'Invalid kind: Invalid option: expected one of "chargeback"|"pre_arbitration"|"retrieval" (value 2).',
    ],
    ['include[]=everything', 'Invalid include: Invalid input: expected "total_count" (value 1).'],
    ['currency=usdx', 'Invalid currency: must be a 3-letter currency code.'],
    ['currency=usd&currency=1', 'Invalid currency.1: must be a 3-letter currency code.'],
    [`charge=${'x'.repeat(256)}`, 'Invalid charge: must be at most 255 characters.'],
    ['customer=a%00b', 'Invalid customer: must not contain NUL characters or unpaired surrogates.'],
    ['account[x]=1', 'Invalid account: Invalid input: expected string, received object.'],
    ['has_evidence=yes', 'Invalid has_evidence: must be true or false.'],
    ['has_evidence=true&has_evidence=false', 'Invalid has_evidence: must be true or false.'],
  ])('%s', async (query, message) => {
    await expectRefused(query, message);
  });

  it.each(['reason=bogus', 'reason=FRAUDULENT', 'processor=', 'state=won&state=bogus', 'reason[a][b]=x'])(
    'refuses a value outside the vocabulary: %s',
    async (query) => {
      const name = query.split(/[=[]/)[0] as string;
      const response = await list(query);
      expectError(response, 400, 'invalid_request', { url: '/v1/disputes' });
      expect(response.body.error.message).toMatch(
        new RegExp(`^Invalid ${name}: Invalid option: expected one of "`),
      );
    },
  );

  it.each([
    ['amount[gte]=abc', 'Invalid amount.gte: must be an integer.'],
    ['amount[lt]=1.5', 'Invalid amount.lt: must be an integer.'],
    ['amount[lte]=', 'Invalid amount.lte: must be an integer.'],
    ['amount=5', range('amount')],
    ['amount[eq]=5', range('amount')],
    ['amount[gte]=1&amount[gte]=2', 'Invalid amount.gte: must be an integer.'],
    ['created[gte]=2021-02-31', badTime('created.gte')],
    ['created[lt]=yesterday', badTime('created.lt')],
    ['created[gte]=1&created[gte]=2', badTime('created.gte')],
    ['created=1700000000', range('created')],
    ['due_by[before]=1700000000', range('due_by')],
    ['due_by[lte]=-1', badTime('due_by.lte')],
    ['disputed_at[gt]=', badTime('disputed_at.gt')],
    [`disputed_at[lte]=${'1'.repeat(41)}`, badTime('disputed_at.lte')],
  ])('refuses a bad range %s', async (query, message) => {
    await expectRefused(query, message);
  });
});

describe('GET /v1/disputes: at most 100 values a filter', () => {
  const times = (count: number, pair: string) => Array.from({ length: count }, () => pair).join('&');

  it('takes 100 values of a filter', async () => {
    const response = await list(times(100, 'reason=fraudulent'));
    expect(response.status).toBe(200);
  });

  it.each([
    ['reason=fraudulent', 'reason'],
    ['state[]=won', 'state'],
    ['customer_email%5B%5D=a%40example.com', 'customer_email'],
  ])('refuses 101 of %s, naming the parameter', async (pair, name) => {
    await expectRefused(times(101, pair), repeated(name));
  });

  it('refuses 101 values in a JSON array as well', async () => {
    const response = await api.call<ErrorBody>('GET', '/v1/disputes', {
      key: tenant.key,
      json: { charge: Array.from({ length: 101 }, (_, index) => `ch_${index}`) },
    });
    expectError(response, 400, 'invalid_request', { url: '/v1/disputes' });
    expect(response.body.error.message).toBe(repeated('charge'));
  });

  it('a query string too deep or too long otherwise is refused as before', async () => {
    await expectRefused(
      'a[b][c][d][e]=1',
      'The query string is nested too deeply or has too many parameters.',
    );
  });
});

describe('GET /v1/disputes: what is not an error', () => {
  it('ignores parameters it does not know', async () => {
    const response = await api.call<{ data: unknown[] }>('GET', '/v1/disputes', {
      key: tenant.key,
      query: 'reason=fraudulent&order_by=amount&amount_gte=5&search=anything',
    });
    expect(response.status).toBe(200);
    expect(response.body.data).toHaveLength(1);
  });

  it.each([
    'amount[gte]=10&amount[lte]=5',
    'created[gt]=2026-01-02&created[lt]=2026-01-01',
    'amount[gt]=5&amount[lt]=6',
  ])('answers an empty range with an empty list: %s', async (query) => {
    const response = await api.call('GET', '/v1/disputes', { key: tenant.key, query });
    expect(response.status).toBe(200);
    expect(response.body).toEqual(emptyDisputeList);
  });
});

describe('GET /v1/disputes in the OpenAPI document', () => {
  it('lists every filter and include, the ranges as deepObject, and the counts on the list', async () => {
    const doc = await readOpenApiDocument(api);
    const operation = operationsOf(doc).find((each) => each.operationId === 'listDisputes');
    const query = new Map(operation?.query.map((parameter) => [parameter.name, parameter]));
    const ranges = ['amount', 'created', 'due_by', 'disputed_at'];
    expect([...query.keys()].sort()).toEqual(
      [
        ...['limit', 'starting_after', 'ending_before', 'include', 'has_evidence', ...ranges],
        ...['state', 'account', 'reason', 'processor', 'kind', 'network', 'charge', 'customer'],
        ...['customer_email', 'currency'],
      ].sort(),
    );
    for (const name of ranges) {
      expect(query.get(name), name).toMatchObject({ style: 'deepObject', explode: true });
      expect(Object.keys(query.get(name)?.schema?.properties ?? {}), name).toEqual([
        'gte',
        'gt',
        'lte',
        'lt',
      ]);
    }
    const list = resolve(doc, { $ref: '#/components/schemas/DisputeList' });
    expect(Object.keys(list.properties ?? {})).toEqual(
      expect.arrayContaining(['total_count', 'count_by_state']),
    );
    expect(list.required).not.toContain('total_count');
  });
});
