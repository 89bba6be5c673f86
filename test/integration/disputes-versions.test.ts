import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApi, type TestApi } from '../helpers/api.js';
import {
  createTestDispute,
  type Dispute,
  daysFromNow,
  type ErrorBody,
  expectError,
  getDispute,
  type Json,
  newTenant,
  setDefaultVersion,
  submittableDispute,
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

const versioned = (version: string, alias = false): Record<string, string> => ({
  [alias ? 'Chargehound-Version' : 'Service-Version']: version,
});

function createParams(overrides: Json = {}): Json {
  return {
    id: uniqueId('dp_v'),
    charge: 'ch_v_1',
    reason: 'general',
    charged_at: '2024-01-01T00:00:00Z',
    disputed_at: '2024-02-01T00:00:00Z',
    due_by: daysFromNow(10),
    currency: 'usd',
    amount: 1000,
    ...overrides,
  };
}

describe('choosing the version', () => {
  it('uses the organisation default, 2021-09-15 for a new organisation, and says so in Service-Version', async () => {
    const response = await api.call('GET', '/v1/disputes', { key: tenant.key });
    expect(response.status).toBe(200);
    expect(response.headers['service-version']).toBe('2021-09-15');
  });

  it.each(['2016-03-05', '2017-10-30', '2020-02-28', '2021-09-15'])(
    'accepts Service-Version %s and echoes it',
    async (version) => {
      const response = await api.call('GET', '/v1/disputes', {
        key: tenant.key,
        headers: versioned(version),
      });
      expect(response.status).toBe(200);
      expect(response.headers['service-version']).toBe(version);
    },
  );

  it.each(['2016-03-05', '2020-02-28'])('accepts the alias Chargehound-Version %s', async (version) => {
    const response = await api.call('GET', '/v1/disputes', {
      key: tenant.key,
      headers: versioned(version, true),
    });
    expect(response.status).toBe(200);
    expect(response.headers['service-version']).toBe(version);
  });

  it('prefers Service-Version when both headers are sent', async () => {
    const response = await api.call('GET', '/v1/disputes', {
      key: tenant.key,
      headers: { 'Service-Version': '2017-10-30', 'Chargehound-Version': '2020-02-28' },
    });
    expect(response.headers['service-version']).toBe('2017-10-30');
  });

  it.each([
    ['Service-Version', '2019-01-01'],
    ['Service-Version', '2021-09-16'],
    ['Service-Version', '2020-2-28'],
    ['Service-Version', '20200228'],
    ['Service-Version', 'latest'],
    ['Chargehound-Version', '2018-01-01'],
    ['Chargehound-Version', 'v2'],
  ])('refuses %s: %s with 400 invalid_request', async (header, version) => {
    const response = await api.call('GET', '/v1/disputes', {
      key: tenant.key,
      headers: { [header]: version },
    });
    expectError(response, 400, 'invalid_request', { url: '/v1/disputes' });
  });

  it('refuses an unknown version before doing anything', async () => {
    const dispute = await createTestDispute(api, tenant.key);
    const response = await api.call('PUT', `/v1/disputes/${dispute.id}`, {
      key: tenant.key,
      headers: versioned('2099-01-01'),
      json: { fields: { note: 'not saved' } },
    });
    expectError(response, 400, 'invalid_request', { url: `/v1/disputes/${dispute.id}` });
    expect((await getDispute(api, tenant.key, dispute.id)).fields).toEqual({});
  });

  it("follows an organisation's configured older default without a header", async () => {
    const old = await newTenant(api);
    await setDefaultVersion(api, old, '2017-10-30');
    const response = await api.call('GET', '/v1/disputes', { key: old.key });
    expect(response.headers['service-version']).toBe('2017-10-30');
    // Before 2020-02-28 an accepted dispute submits normally.
    const { dispute } = await submittableDispute(api, old, { state: 'accepted' });
    const submitted = await api.call<Dispute>('POST', `/v1/disputes/${dispute.id}/submit`, { key: old.key });
    expect(submitted.status).toBe(201);
    expect(submitted.body.state).toBe('submitted');
    // A header overrides the default.
    const held = await submittableDispute(api, old, { state: 'accepted' });
    const response2 = await api.call<Dispute>('POST', `/v1/disputes/${held.dispute.id}/submit`, {
      key: old.key,
      headers: versioned('2021-09-15'),
    });
    expect(response2.status).toBe(202);
    expect(response2.body.state).toBe('accepted');
  });

  it('applies the gate through the alias too', async () => {
    const { dispute } = await submittableDispute(api, tenant, { state: 'accepted' });
    const response = await api.call<Dispute>('POST', `/v1/disputes/${dispute.id}/submit`, {
      key: tenant.key,
      headers: versioned('2017-10-30', true),
    });
    expect(response.status).toBe(201);
  });
});

describe('the dispute object across versions', () => {
  it('is the same on 2016-03-05 as on the latest version, without the legacy reference names', async () => {
    const dispute = await createTestDispute(api, tenant.key, { account: 'acct_same' });
    const answers = await Promise.all(
      ['2016-03-05', '2021-09-15'].map((version) =>
        api.call<Dispute>('GET', `/v1/disputes/${dispute.id}`, {
          key: tenant.key,
          headers: versioned(version),
        }),
      ),
    );
    const [legacy, latest] = answers.map((answer) => {
      expect(answer.status, answer.text).toBe(200);
      return answer.body;
    });
    expect(legacy).toEqual(latest);
    expect(latest).toMatchObject({ id: dispute.id, charge: dispute.charge, account_id: null });
    for (const name of ['dispute_id', 'external_charge', 'user_id', 'dispute'])
      expect(latest).not.toHaveProperty(name);
  });
});

describe('the 2017-10-30 renames on update and submit', () => {
  const legacy = { customer_name: 'Ada Lovelace', customer_email: 'ada@example.com', user_id: 'acct_legacy' };

  it.each(['2016-03-05'])(
    'before 2017-10-30 (%s) update stores customer_name and customer_email in fields and user_id as account_id',
    async (version) => {
      const dispute = await createTestDispute(api, tenant.key);
      const response = await api.call<Dispute>('PUT', `/v1/disputes/${dispute.id}`, {
        key: tenant.key,
        headers: versioned(version),
        json: { ...legacy, fields: { order_id: 'A-1' } },
      });
      expect(response.status).toBe(200);
      expect(response.body.fields).toEqual({
        order_id: 'A-1',
        customer_name: 'Ada Lovelace',
        customer_email: 'ada@example.com',
      });
      expect(response.body.account_id).toBe('acct_legacy');
      // The dispute's own customer attributes are the processor's, not these.
      expect(response.body.customer_name).toBe(dispute.customer_name);
    },
  );

  it('before 2017-10-30 the current name wins over the legacy one', async () => {
    const dispute = await createTestDispute(api, tenant.key);
    const response = await api.call<Dispute>('PUT', `/v1/disputes/${dispute.id}`, {
      key: tenant.key,
      headers: versioned('2016-03-05'),
      json: {
        user_id: 'acct_legacy',
        account_id: 'acct_current',
        customer_name: 'Top',
        fields: { customer_name: 'In fields' },
      },
    });
    expect(response.status).toBe(200);
    expect(response.body.account_id).toBe('acct_current');
    expect(response.body.fields).toEqual({ customer_name: 'In fields' });
  });

  it('before 2017-10-30 submit takes the legacy names too', async () => {
    const { dispute } = await submittableDispute(api, tenant);
    const response = await api.call<Dispute>('POST', `/v1/disputes/${dispute.id}/submit`, {
      key: tenant.key,
      headers: versioned('2016-03-05'),
      json: legacy,
    });
    expect(response.status).toBe(201);
    expect(response.body).toMatchObject({
      state: 'submitted',
      account_id: 'acct_legacy',
      fields: { order_id: 'A-1001', customer_name: 'Ada Lovelace', customer_email: 'ada@example.com' },
    });
  });

  it('before 2017-10-30 a legacy customer_email is validated as the template field it fills', async () => {
    const dispute = await createTestDispute(api, tenant.key);
    const template = (
      await api.call('POST', '/v1/templates', {
        key: tenant.key,
        json: { id: uniqueId('tpl'), fields: [{ key: 'customer_email', type: 'email', required: false }] },
      })
    ).body.id as string;
    const response = await api.call('PUT', `/v1/disputes/${dispute.id}`, {
      key: tenant.key,
      headers: versioned('2016-03-05'),
      json: { template, customer_email: 'not-an-address' },
    });
    expectError(response, 400, 'invalid_fields');
  });

  it.each(['2017-10-30', '2020-02-28', '2021-09-15'])(
    'from 2017-10-30 (%s) update ignores the legacy names',
    async (version) => {
      const dispute = await createTestDispute(api, tenant.key);
      const response = await api.call<Dispute>('PUT', `/v1/disputes/${dispute.id}`, {
        key: tenant.key,
        headers: versioned(version),
        json: { ...legacy, fields: { order_id: 'A-1' } },
      });
      expect(response.status).toBe(200);
      expect(response.body.fields).toEqual({ order_id: 'A-1' });
      expect(response.body.account_id).toBeNull();
      expect(response.body.customer_name).toBe(dispute.customer_name);
      expect(response.body.customer_email).toBe(dispute.customer_email);
    },
  );

  it('from 2017-10-30 submit ignores the legacy names', async () => {
    const { dispute } = await submittableDispute(api, tenant);
    const response = await api.call<Dispute>('POST', `/v1/disputes/${dispute.id}/submit`, {
      key: tenant.key,
      headers: versioned('2017-10-30'),
      json: legacy,
    });
    expect(response.status).toBe(201);
    expect(response.body).toMatchObject({ account_id: null, fields: { order_id: 'A-1001' } });
    expect(Object.keys(response.body.fields)).toEqual(['order_id']);
  });
});

describe('the 2017-10-30 renames on create', () => {
  const legacyCreate = (id: string) => ({
    external_identifier: id,
    external_charge: 'ch_legacy',
    external_customer: 'cus_legacy',
    user_id: 'acct_legacy',
  });

  it('before 2017-10-30 create takes external_identifier, external_charge, external_customer, user_id', async () => {
    const id = uniqueId('dp_legacy');
    const { id: _id, charge: _charge, ...rest } = createParams();
    const response = await api.call<Dispute>('POST', '/v1/disputes', {
      key: tenant.key,
      headers: versioned('2016-03-05'),
      json: { ...rest, ...legacyCreate(id) },
    });
    expect(response.status).toBe(201);
    expect(response.body).toMatchObject({
      id,
      charge: 'ch_legacy',
      customer: 'cus_legacy',
      account_id: 'acct_legacy',
    });
    expect((await getDispute(api, tenant.key, id)).id).toBe(id);
  });

  it.each(['2017-10-30', '2021-09-15'])('from 2017-10-30 (%s) create ignores them', async (version) => {
    const params = createParams();
    const response = await api.call<Dispute>('POST', '/v1/disputes', {
      key: tenant.key,
      headers: versioned(version),
      json: { ...params, ...legacyCreate(uniqueId('dp_ignored')) },
    });
    expect(response.status).toBe(201);
    expect(response.body).toMatchObject({
      id: params.id,
      charge: 'ch_v_1',
      customer: null,
      account_id: null,
    });
  });

  it('from 2017-10-30 external_identifier does not stand in for a missing id', async () => {
    const { id: _id, ...rest } = createParams();
    const response = await api.call('POST', '/v1/disputes', {
      key: tenant.key,
      headers: versioned('2017-10-30'),
      json: { ...rest, external_identifier: uniqueId('dp_x') },
    });
    expectError(response, 400, 'invalid_request', { url: '/v1/disputes' });
    expect((response.body as unknown as ErrorBody).error.message).toMatch(/\bid\b/);
  });
});
