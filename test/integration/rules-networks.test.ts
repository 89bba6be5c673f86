import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectAccount } from '../../src/features/accounts/connected-accounts.js';
import { pollAccount } from '../../src/features/mirroring/poll.js';
import {
  getOrganisationSettings,
  updateOrganisationSettings,
} from '../../src/features/organisations/organisations.js';
import { setRules } from '../../src/features/rules/rules.js';
import { createQueueAccountScheduler } from '../../src/jobs/account-scheduler.js';
import { MockAdapter } from '../../src/processors/mock/adapter.js';
import { MockDisputeWorld } from '../../src/processors/mock/world.js';
import { createAdapterRegistry } from '../../src/processors/registry.js';
import { noAlertRefunds } from '../helpers/alert-refunds.js';
import { startTestApi, type TestApi } from '../helpers/api.js';
import {
  createTestDispute,
  type Dispute,
  getDispute,
  type Json,
  newTenant,
  orderTemplate,
  requiredParams,
  type Tenant,
} from '../helpers/disputes.js';

/**
 * Workflow rules on the card network, its code and the processor's status, and default templates per
 * network code (docs/api.md, "Workflow rules" and "Organisation settings"), over HTTP and through the
 * mirror. Every case has an organisation of its own.
 */

let api: TestApi;
beforeAll(async () => {
  api = await startTestApi({ workers: [] });
});
afterAll(async () => {
  await api.close();
});

async function tenantWith(rules: Json[]): Promise<Tenant> {
  const tenant = await newTenant(api);
  await setRules(api.db.db, { org: tenant.org, mode: 'test', contents: JSON.stringify({ rules }) });
  return tenant;
}

const defaults = (tenant: Tenant, keys: string[]) =>
  updateOrganisationSettings(api.db.db, tenant.org, { mode: 'test', defaultTemplates: keys });

describe('rules on the network', () => {
  it('review a new dispute by its network and code, any case, and leave the others', async () => {
    const tenant = await tenantWith([
      { when: { network: 'visa', network_reason_code: '10.4' }, action: 'review' },
      { when: { processor_status: 'NEEDS_RESPONSE' }, action: 'accept' },
    ]);
    const make = (json: Json) => createTestDispute(api, tenant.key, json);
    const visa = await make({ network: 'visa', network_reason_code: '10.4' });
    const mastercard = await make({ network: 'mastercard', network_reason_code: '10.4' });
    const stripeWord = await make({
      network: 'amex',
      network_reason_code: 'F29',
      processor_status: 'needs_response',
    });
    const noNetwork = await make({ network: null });
    expect([visa.state, mastercard.state, stripeWord.state, noNetwork.state]).toEqual([
      'requires_review',
      'needs_response',
      'accepted',
      'needs_response',
    ]);
  });

  it('accept rules on the processor status act on an update from 2020-02-28', async () => {
    const tenant = await newTenant(api);
    const created = await createTestDispute(api, tenant.key, {
      processor_status: 'WAITING_FOR_SELLER_RESPONSE',
    });
    await setRules(api.db.db, {
      org: tenant.org,
      mode: 'test',
      contents: JSON.stringify([
        { when: { processor_status: 'waiting_for_seller_response' }, action: 'accept' },
      ]),
    });
    const update = (version: string) =>
      api.call<Dispute>('PUT', `/v1/disputes/${created.id}`, {
        key: tenant.key,
        json: { fields: { note: version } },
        headers: { 'Service-Version': version },
      });
    expect((await update('2017-10-30')).body.state).toBe('needs_response');
    expect((await update('2020-02-28')).body.state).toBe('accepted');
  });
});

describe('default templates per network code', () => {
  it("win over the reason's default when the network and code match, in that organisation only", async () => {
    const tenant = await newTenant(api);
    const other = await newTenant(api);
    const byCode = await orderTemplate(api, tenant.key);
    const byReason = await orderTemplate(api, tenant.key);
    await defaults(tenant, [`fraudulent=${byReason}`, `visa:10.4=${byCode}`]);

    const create = async (key: string, json: Json) =>
      (await api.call<Dispute>('POST', '/v1/disputes', { key, json: requiredParams(json) })).body;
    expect((await create(tenant.key, { network: 'visa', network_reason_code: '10.4' })).template).toBe(
      byCode,
    );
    // The same code of another network, or no network: the reason's default.
    expect((await create(tenant.key, { network: 'discover', network_reason_code: '10.4' })).template).toBe(
      byReason,
    );
    expect((await create(tenant.key, { network_reason_code: '10.4' })).template).toBe(byReason);
    // A template rule still comes first.
    await setRules(api.db.db, {
      org: tenant.org,
      mode: 'test',
      contents: JSON.stringify([{ when: { network: 'visa' }, action: 'template', template: byReason }]),
    });
    expect((await create(tenant.key, { network: 'visa', network_reason_code: '10.4' })).template).toBe(
      byReason,
    );
    // Another organisation's disputes never see these defaults.
    expect((await create(other.key, { network: 'visa', network_reason_code: '10.4' })).template).toBeNull();
  });

  it("give way to the reason's default when their template was deleted", async () => {
    const tenant = await newTenant(api);
    const doomed = await orderTemplate(api, tenant.key);
    const byReason = await orderTemplate(api, tenant.key);
    await defaults(tenant, [`amex:f29=${doomed}`, `fraudulent=${byReason}`]);
    expect((await getOrganisationSettings(api.db.db, tenant.org)).default_templates.test).toEqual({
      'amex:F29': doomed,
      fraudulent: byReason,
    });
    expect((await api.call('DELETE', `/v1/templates/${doomed}`, { key: tenant.key })).status).toBe(200);
    const created = await createTestDispute(api, tenant.key, {
      reason: 'fraudulent',
      network: 'amex',
      network_reason_code: 'F29',
    });
    expect(created.template).toBe(byReason);
  });

  it('attach to mirrored disputes by the code the processor reported', async () => {
    const tenant = await newTenant(api);
    const byCode = await orderTemplate(api, tenant.key);
    await defaults(tenant, [`mastercard:4837=${byCode}`]);
    const world = new MockDisputeWorld({ seed: 5, initialDisputes: 0, live: false });
    const adapters = createAdapterRegistry({ mock: new MockAdapter({ world }) });
    const { account } = await connectAccount(
      { db: api.db.db, adapters, scheduler: createQueueAccountScheduler(api.queues) },
      { org: tenant.org, mode: 'test', id: 'default', processor: 'mock' },
    );
    const processor = world.account(account);
    const coded = processor.add({ reason: 'fraudulent', network: 'mastercard', networkReasonCode: '4837' });
    const visa = processor.add({ reason: 'fraudulent', network: 'visa', networkReasonCode: '4837' });
    await pollAccount(
      { db: api.db.db, adapters, secrets: api.engine.secrets, alertRefunds: noAlertRefunds },
      account.uid,
    );
    expect((await getDispute(api, tenant.key, coded.id)).template).toBe(byCode);
    expect((await getDispute(api, tenant.key, visa.id)).template).toBeNull();
  });

  it('refuses a key it cannot read, or a mode past its bound, and changes nothing', async () => {
    const tenant = await newTenant(api);
    const template = await orderTemplate(api, tenant.key);
    const before = await getOrganisationSettings(api.db.db, tenant.org);
    await expect(defaults(tenant, [`maestro:4837=${template}`])).rejects.toThrow(
      '"maestro" is not a card network',
    );
    await expect(defaults(tenant, [`visa:10 4=${template}`])).rejects.toThrow(
      'must be a network reason code',
    );
    const tooMany = Array.from({ length: 201 }, (_, index) => `visa:${index}=${template}`);
    await expect(defaults(tenant, tooMany)).rejects.toThrow(
      'default templates: at most 200 network codes a mode (test mode would have 201)',
    );
    expect(await getOrganisationSettings(api.db.db, tenant.org)).toEqual(before);
  });
});
