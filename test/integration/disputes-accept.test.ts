import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApi, type TestApi } from '../helpers/api.js';
import {
  createTestDispute,
  type Dispute,
  expectError,
  getDispute,
  newTenant,
  readStored,
  submittableDispute,
  type Tenant,
  writeStored,
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

const accept = (id: string, key = tenant.key) =>
  api.call<Dispute>('POST', `/v1/disputes/${id}/accept`, { key });

describe('POST /v1/disputes/:id/accept', () => {
  it.each(['needs_response', 'warning_needs_response', 'requires_review'])(
    'moves a %s dispute to accepted with 200',
    async (state) => {
      const dispute = await createTestDispute(api, tenant.key, { state });
      const calls = api.mock.calls;
      const response = await accept(dispute.id);
      expect(response.status).toBe(200);
      expect(response.body).toMatchObject({
        object: 'dispute',
        id: dispute.id,
        url: `/v1/disputes/${dispute.id}/accept`,
        livemode: false,
        state: 'accepted',
        submitted_count: 0,
      });
      // Accepting is bookkeeping: nothing goes to the processor.
      expect(api.mock.calls).toBe(calls);
      expect((await getDispute(api, tenant.key, dispute.id)).state).toBe('accepted');
    },
  );

  it('answers 200 and changes nothing on an accepted dispute', async () => {
    const dispute = await createTestDispute(api, tenant.key, { state: 'accepted' });
    const before = await getDispute(api, tenant.key, dispute.id);
    const response = await accept(dispute.id);
    expect(response.status).toBe(200);
    expect({ ...response.body, url: before.url }).toEqual(before);
    expect(await getDispute(api, tenant.key, dispute.id)).toEqual(before);
  });

  it('accepts twice in a row: the second is 200 and unchanged', async () => {
    const dispute = await createTestDispute(api, tenant.key);
    const first = await accept(dispute.id);
    const second = await accept(dispute.id);
    expect(second.status).toBe(200);
    expect(second.body).toEqual(first.body);
  });

  it('moves a queued dispute to accepted and drops its pending submission', async () => {
    const { dispute } = await submittableDispute(api, tenant);
    const queued = await api.call<Dispute>('POST', `/v1/disputes/${dispute.id}/submit`, {
      key: tenant.key,
      json: { queue: true },
    });
    expect(queued.body.state).toBe('queued');
    expect((await readStored(api, tenant, dispute.id)).submitAt).not.toBeNull();
    const response = await accept(dispute.id);
    expect(response.status).toBe(200);
    expect(response.body.state).toBe('accepted');
    expect((await readStored(api, tenant, dispute.id)).submitAt).toBeNull();
  });

  it('keeps the evidence of an accepted dispute', async () => {
    const { dispute, template } = await submittableDispute(api, tenant);
    const response = await accept(dispute.id);
    expect(response.body).toMatchObject({ state: 'accepted', template, fields: { order_id: 'A-1001' } });
  });

  it('accepts a dispute whose stored evidence is over the size cap: the cap guards changes to evidence only', async () => {
    const dispute = await createTestDispute(api, tenant.key);
    await writeStored(api, tenant, dispute.id, { fields: { note: 'x'.repeat(600_000) } });
    const response = await accept(dispute.id);
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({ state: 'accepted' });
  });

  it('ignores a body: accept takes no parameters', async () => {
    const dispute = await createTestDispute(api, tenant.key);
    const response = await api.call<Dispute>('POST', `/v1/disputes/${dispute.id}/accept`, {
      key: tenant.key,
      json: { fields: { note: 'ignored' } },
    });
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({ state: 'accepted', fields: {} });
  });

  it.each([
    ['compiling_evidence', 'dispute_uneditable'],
    ['submitted', 'dispute_submitted'],
    ['won', 'dispute_closed'],
    ['charge_refunded', 'dispute_uneditable'],
  ])('refuses a %s dispute with 400 %s and changes nothing', async (state, type) => {
    const dispute = await createTestDispute(api, tenant.key, { state });
    const before = await getDispute(api, tenant.key, dispute.id);
    expectError(await accept(dispute.id), 400, type, { url: `/v1/disputes/${dispute.id}/accept` });
    expect(await getDispute(api, tenant.key, dispute.id)).toEqual(before);
  });

  it('answers 404 dispute_not_found for an unknown dispute', async () => {
    expectError(await accept('dp_nope'), 404, 'dispute_not_found', { url: '/v1/disputes/dp_nope/accept' });
  });

  it("answers 404 for another organisation's dispute and leaves it alone", async () => {
    const other = await newTenant(api);
    const theirs = await createTestDispute(api, other.key);
    expectError(await accept(theirs.id), 404, 'dispute_not_found');
    expect((await getDispute(api, other.key, theirs.id)).state).toBe('needs_response');
  });
});
