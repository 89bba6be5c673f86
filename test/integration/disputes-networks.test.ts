import { and, eq } from 'drizzle-orm';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { disputes } from '../../src/db/schema/index.js';
import { startTestApi, type TestApi } from '../helpers/api.js';
import {
  createTestDispute,
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
 * `network`, `network_reason_code` and `processor_status` over HTTP (docs/api.md, "The dispute object"):
 * in every version's dispute object, set by test disputes and by creates, refused whole when malformed,
 * and kept right by the list's object cache.
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

const facts = (dispute: Dispute) => ({
  network: dispute.network,
  network_reason_code: dispute.network_reason_code,
  processor_status: dispute.processor_status,
});

const storedCount = async () => api.db.db.$count(disputes, eq(disputes.orgId, tenant.org));

describe('POST /v1/test/disputes', () => {
  it('takes the three as given, and shows them on the dispute and its retrieve', async () => {
    const given = { network: 'amex', network_reason_code: 'F29', processor_status: 'Response Needed' };
    const created = await createTestDispute(api, tenant.key, { reason: 'fraudulent', ...given });
    expect(facts(created)).toEqual(given);
    expect(facts(await getDispute(api, tenant.key, created.id))).toEqual(given);
  });

  it('makes up a sample network and code for the reason when neither is given, and no status', async () => {
    const made = await createTestDispute(api, tenant.key, { reason: 'product_not_received' });
    expect([
      { network: 'visa', network_reason_code: '13.1', processor_status: null },
      { network: 'mastercard', network_reason_code: '4855', processor_status: null },
    ]).toContainEqual(facts(made));
    const unsampled = await createTestDispute(api, tenant.key, { reason: 'bank_cannot_process' });
    expect(facts(unsampled)).toEqual({ network: null, network_reason_code: null, processor_status: null });
  });

  it('leaves the other unknown when only one of network and code is given', async () => {
    expect(facts(await createTestDispute(api, tenant.key, { network: 'jcb' }))).toMatchObject({
      network: 'jcb',
      network_reason_code: null,
    });
    expect(facts(await createTestDispute(api, tenant.key, { network: null }))).toMatchObject({
      network: null,
      network_reason_code: null,
    });
    expect(facts(await createTestDispute(api, tenant.key, { network_reason_code: 'UA02' }))).toMatchObject({
      network: null,
      network_reason_code: 'UA02',
    });
  });

  it.each([
    ['network', 'maestro'],
    ['network', 'VISA'],
    ['network_reason_code', '10 4'],
    ['network_reason_code', ''],
    ['network_reason_code', 'A'.repeat(21)],
    ['network_reason_code', '.10'],
    ['processor_status', ''],
    ['processor_status', 'x'.repeat(101)],
    ['processor_status', 'nul\u0000'],
  ])('refuses %s %j with 400 invalid_request naming it, and makes nothing', async (parameter, value) => {
    const before = await storedCount();
    const response = await api.call('POST', '/v1/test/disputes', {
      key: tenant.key,
      json: { [parameter]: value },
    });
    expectError(response, 400, 'invalid_request');
    expect((response.body as { error: { message: string } }).error.message).toContain(parameter);
    expect(await storedCount()).toBe(before);
  });
});

describe('POST /v1/disputes', () => {
  const create = (json: Json) => api.call<Dispute>('POST', '/v1/disputes', { key: tenant.key, json });

  it('stores what the client knows of the network, and nothing when it says nothing', async () => {
    const given = { network: 'discover', network_reason_code: 'ua02', processor_status: 'open' };
    const response = await create(requiredParams(given));
    expect(response.status).toBe(201);
    expect(facts(response.body)).toEqual(given);
    const bare = await create(requiredParams());
    expect(facts(bare.body)).toEqual({ network: null, network_reason_code: null, processor_status: null });
  });

  it('any code and status: stored exactly as sent when well formed, else 400, never a 500', async () => {
    await fc.assert(
      fc.asyncProperty(fc.string({ maxLength: 30 }), fc.string({ maxLength: 120 }), async (code, status) => {
        const response = await create(
          requiredParams({ network_reason_code: code, processor_status: status }),
        );
        const wellFormed =
          /^[A-Za-z0-9][A-Za-z0-9.-]{0,19}$/.test(code) && status.length >= 1 && status.length <= 100;
        if (wellFormed && response.status === 201) {
          expect(facts(response.body)).toMatchObject({ network_reason_code: code, processor_status: status });
        } else {
          expectError(response, 400, 'invalid_request');
        }
      }),
      { numRuns: 40 },
    );
  });
});

describe('the dispute object', () => {
  it('shows the three in every version', async () => {
    const created = await createTestDispute(api, tenant.key, {
      network: 'visa',
      network_reason_code: '10.4',
      processor_status: 'needs_response',
    });
    for (const version of ['2016-03-05', '2017-10-30', '2020-02-28', '2021-09-15']) {
      const response = await api.call<Dispute>('GET', `/v1/disputes/${created.id}`, {
        key: tenant.key,
        headers: { 'Service-Version': version },
      });
      expect(facts(response.body)).toEqual({
        network: 'visa',
        network_reason_code: '10.4',
        processor_status: 'needs_response',
      });
    }
  });

  it("the list shows the processor's new word at once: a cached object is never stale", async () => {
    const owner = await newTenant(api);
    const created = await createTestDispute(api, owner.key, { processor_status: 'open' });
    const listed = async () => {
      const page = await api.call<{ data: Dispute[] }>('GET', '/v1/disputes', { key: owner.key });
      return page.body.data.find((dispute) => dispute.id === created.id)?.processor_status;
    };
    expect(await listed()).toBe('open');
    // As mirroring writes it: the row's version moves, and with it the cached object's stamp.
    await writeStored(api, owner, created.id, { processorStatus: 'disputed' });
    expect(await listed()).toBe('disputed');
    const [row] = await api.db.db
      .select({ version: disputes.version })
      .from(disputes)
      .where(and(eq(disputes.orgId, owner.org), eq(disputes.id, created.id)));
    expect(row?.version).toBe(2);
  });
});
