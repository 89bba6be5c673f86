import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { events } from '../../src/db/schema/index.js';
import { startTestApi, type TestApi } from '../helpers/api.js';
import {
  type Dispute,
  expectError,
  getDispute,
  type Json,
  newTenant,
  requiredParams,
  type Tenant,
  writeStored,
} from '../helpers/disputes.js';

/**
 * `compelling_evidence` on the dispute object over HTTP (docs/api.md, "Compelling evidence"): standalone
 * Visa fraud disputes with past payments; decided anew whenever the evidence changes, in every version,
 * in the list (its object cache) and in webhook payloads; and the past payment's `email`.
 */

let api: TestApi;
let tenant: Tenant;
beforeAll(async () => {
  api = await startTestApi({ workers: [] });
  tenant = await newTenant(api);
});
afterAll(async () => {
  await api.close();
});

/** 2024-01-02, the disputed payment; 150 and 200 days before it; and 30 days before it. */
const chargedAt = '2024-01-02T03:04:05Z';
const daysBefore = (days: number) => new Date(Date.parse(chargedAt) - days * 86_400_000).toISOString();
const earlier = (id: string, days: number, extra: Json = {}) => ({
  id,
  amount: 1500,
  currency: 'usd',
  charged_at: daysBefore(days),
  device_id: 'dev_42',
  email: 'ada@example.com',
  item_description: 'Gift card',
  ...extra,
});
const fields = {
  customer_device_id: 'dev_42',
  customer_email: 'ADA@example.com',
  product_description: 'Gift card',
  merchandise_or_services: 'merchandise',
};

const create = (json: Json) =>
  api.call<Dispute>('POST', '/v1/disputes', {
    key: tenant.key,
    json: requiredParams({ network: 'visa', reason: 'fraudulent', charged_at: chargedAt, ...json }),
  });
const update = (id: string, json: Json) =>
  api.call<Dispute>('POST', `/v1/disputes/${id}`, { key: tenant.key, json });

const qualified = {
  program: 'visa_ce3',
  status: 'qualified',
  required_actions: [],
  matched: ['device_id', 'customer_account_id'],
  prior_payments: ['ch_150', 'ch_200'],
  processor_status: null,
};

describe('compelling_evidence on the dispute object', () => {
  it('is qualified for two prior payments 120 to 365 days old whose device and login match', async () => {
    const response = await create({
      fields,
      past_payments: [earlier('ch_150', 150), earlier('ch_200', 200), earlier('ch_30', 30)],
    });
    expect(response.status).toBe(201);
    expect(response.body.compelling_evidence).toEqual(qualified);
    expect((await getDispute(api, tenant.key, response.body.id)).compelling_evidence).toEqual(qualified);
  });

  it('requires action when the prior payments are 30 and 40 days old', async () => {
    const response = await create({ fields, past_payments: [earlier('ch_30', 30), earlier('ch_40', 40)] });
    expect(response.body.compelling_evidence).toEqual({
      program: 'visa_ce3',
      status: 'requires_action',
      required_actions: ['missing_prior_undisputed_transactions'],
      matched: [],
      prior_payments: [],
      processor_status: null,
    });
  });

  it('is not_qualified when the elements given differ: neither the device nor the IP can match', async () => {
    const response = await create({
      fields: { ...fields, customer_device_id: 'dev_other' },
      past_payments: [
        earlier('ch_150', 150, { ip_address: '198.51.100.1' }),
        earlier('ch_200', 200, { ip_address: '198.51.100.2' }),
      ],
    });
    expect(response.body.compelling_evidence).toEqual({
      program: 'visa_ce3',
      status: 'not_qualified',
      required_actions: [],
      matched: ['customer_account_id'],
      prior_payments: ['ch_150', 'ch_200'],
      processor_status: null,
    });
  });

  it.each([
    ['another network', { network: 'mastercard' }],
    ['no network', { network: null }],
    ['another reason', { reason: 'product_not_received' }],
    ['another Visa code', { network_reason_code: '13.1' }],
  ])('is null for %s', async (_, change) => {
    const response = await create({
      fields,
      past_payments: [earlier('ch_150', 150), earlier('ch_200', 200)],
      ...change,
    });
    expect(response.status).toBe(201);
    expect(response.body.compelling_evidence).toBeNull();
  });

  it('follows every evidence update, in the answer, the retrieve and the list', async () => {
    const created = await create({ past_payments: [earlier('ch_150', 150), earlier('ch_200', 200)] });
    expect(created.body.compelling_evidence).toMatchObject({
      status: 'requires_action',
      required_actions: ['missing_customer_identifiers'],
    });
    const listed = async () => {
      const page = await api.call<{ data: Dispute[] }>('GET', '/v1/disputes', { key: tenant.key });
      return page.body.data.find((dispute) => dispute.id === created.body.id)?.compelling_evidence;
    };
    expect(await listed()).toMatchObject({ status: 'requires_action' });
    const updated = await update(created.body.id, { fields });
    expect(updated.status).toBe(200);
    expect(updated.body.compelling_evidence).toEqual(qualified);
    expect(await listed()).toEqual(qualified);
    const fewer = await update(created.body.id, { past_payments: [earlier('ch_150', 150)] });
    expect(fewer.body.compelling_evidence).toMatchObject({
      status: 'requires_action',
      required_actions: ['missing_prior_undisputed_transactions'],
    });
    expect(await listed()).toMatchObject({ status: 'requires_action' });
  });

  it("shows the processor's verdict beside this service's", async () => {
    const created = await create({ fields, past_payments: [earlier('ch_150', 150), earlier('ch_200', 200)] });
    await writeStored(api, tenant, created.body.id, { compellingEvidenceProcessorStatus: 'qualified' });
    const shown = await getDispute(api, tenant.key, created.body.id);
    expect(shown.compelling_evidence).toEqual({ ...qualified, processor_status: 'qualified' });
  });

  it('is the same in every version', async () => {
    const created = await create({ fields, past_payments: [earlier('ch_150', 150), earlier('ch_200', 200)] });
    for (const version of ['2016-03-05', '2017-10-30', '2020-02-28', '2021-09-15']) {
      const response = await api.call<Dispute>('GET', `/v1/disputes/${created.body.id}`, {
        key: tenant.key,
        headers: { 'Service-Version': version },
      });
      expect(response.body.compelling_evidence).toEqual(qualified);
    }
  });

  it('is carried by the webhook payload', async () => {
    const created = await create({ fields, past_payments: [earlier('ch_150', 150), earlier('ch_200', 200)] });
    const [event] = await api.db.db
      .select({ data: events.data })
      .from(events)
      .where(and(eq(events.orgId, tenant.org), eq(events.type, 'dispute.created')))
      .then((rows) => rows.filter((row) => row.data.id === created.body.id));
    expect(event?.data.compelling_evidence).toEqual(qualified);
  });
});

describe("a past payment's email", () => {
  it('is taken and returned in every version', async () => {
    for (const version of ['2016-03-05', '2017-10-30', '2020-02-28', '2021-09-15']) {
      const response = await api.call<Dispute>('POST', '/v1/disputes', {
        key: tenant.key,
        headers: { 'Service-Version': version },
        json: requiredParams({ past_payments: [earlier('ch_1', 150, { email: 'grace@example.com' })] }),
      });
      expect(response.status).toBe(201);
      expect(response.body.past_payments).toEqual([earlier('ch_1', 150, { email: 'grace@example.com' })]);
      const updated = await api.call<Dispute>('POST', `/v1/disputes/${response.body.id}`, {
        key: tenant.key,
        headers: { 'Service-Version': version },
        json: { past_payments: [earlier('ch_2', 160, { email: 'ada@example.org' })] },
      });
      expect(updated.body.past_payments).toEqual([earlier('ch_2', 160, { email: 'ada@example.org' })]);
    }
  });

  it.each([
    ['too long', `${'a'.repeat(320)}@x.io`],
    ['not a string', 42],
  ])('refuses an email %s with 400 invalid_past_payments, changing nothing', async (_, email) => {
    const created = await create({ past_payments: [earlier('ch_1', 150)] });
    const response = await update(created.body.id, { past_payments: [earlier('ch_1', 150, { email })] });
    expectError(response, 400, 'invalid_past_payments');
    expect((await getDispute(api, tenant.key, created.body.id)).past_payments).toEqual([
      earlier('ch_1', 150),
    ]);
  });
});
