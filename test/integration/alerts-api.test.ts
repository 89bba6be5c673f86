import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectedAccounts } from '../../src/db/schema/index.js';
import { pollAccount } from '../../src/features/mirroring/poll.js';
import type { CreatedOrganisation } from '../../src/features/organisations/organisations.js';
import type { NormalizedAlert } from '../../src/processors/alert-types.js';
import { startTestApi, type TestApi } from '../helpers/api.js';
import { type ErrorBody, expectError } from '../helpers/disputes.js';
import { receivingEndpoint } from '../helpers/webhooks.js';

/**
 * GET /v1/alerts and GET /v1/alerts/:id (docs/api.md, "Alerts"), the alert events' webhooks, and the link on
 * the dispute object, with alerts mirrored from the mock processor.
 */

let api: TestApi;
beforeAll(async () => {
  // The webhook worker only (the relay and deliveries): a mirror worker would poll the tenants' mock
  // accounts on its own schedule and could take their alerts before the test's own poll.
  api = await startTestApi({ workers: ['webhook'] });
});
afterAll(async () => {
  await api.close();
});

interface Tenant extends CreatedOrganisation {
  account: typeof connectedAccounts.$inferSelect;
}

async function newTenant(): Promise<Tenant> {
  const org = await api.createOrg();
  const [account] = await api.db.db
    .insert(connectedAccounts)
    .values({ orgId: org.org, livemode: false, id: 'default', processor: 'mock' })
    .returning();
  if (!account) throw new Error('no account');
  return { ...org, account };
}

/** Alerts the mock processor raises for the tenant's account, mirrored by a poll. */
async function mirrored(tenant: Tenant, alerts: Partial<NormalizedAlert>[]): Promise<NormalizedAlert[]> {
  const added = alerts.map((alert) => api.mock.alerts.account(tenant.account).add(alert));
  const result = await pollAccount(
    { ...api.engine, alertRefunds: api.deps.alertRefunds },
    tenant.account.uid,
  );
  expect(result).toMatchObject({ alerts: { outcome: 'polled', created: alerts.length } });
  return added;
}

const list = (tenant: { test_key: string }, query: Record<string, unknown> | string = {}) =>
  api.call<{ data: Record<string, unknown>[]; has_more: boolean }>('GET', '/v1/alerts', {
    key: tenant.test_key,
    query,
  });
const ids = (response: { body: { data: Record<string, unknown>[] } }) =>
  response.body.data.map((alert) => alert.id);

describe('GET /v1/alerts/:id', () => {
  it('answers the alert object', async () => {
    const tenant = await newTenant();
    const [alert] = await mirrored(tenant, [
      { amount: 4200, currency: 'eur', reportedAt: new Date('2026-11-20T10:00:00.123Z') },
    ]);
    const response = await api.call('GET', `/v1/alerts/${alert?.id}`, { key: tenant.test_key });
    expect(response.status, response.text).toBe(200);
    expect(response.body).toEqual({
      object: 'alert',
      id: alert?.id,
      processor: 'mock',
      account: 'default',
      charge: alert?.charge,
      amount: 4200,
      currency: 'eur',
      fraud_type: 'made_with_stolen_card',
      actionable: true,
      created: '2026-11-20T10:00:00',
      outcome: 'open',
      refund: null,
      refund_failure: null,
      dispute: null,
      livemode: false,
      url: `/v1/alerts/${alert?.id}`,
    });
  });

  it("answers 404 alert_not_found for an unknown id, another organisation's alert, and the other mode's", async () => {
    const ours = await newTenant();
    const theirs = await newTenant();
    const [alert] = await mirrored(theirs, [{}]);
    for (const [key, livemode, id] of [
      [ours.test_key, false, 'issfr_unknown'],
      [ours.test_key, false, alert?.id],
      [theirs.live_key, true, alert?.id],
    ] as const) {
      const response = await api.call<ErrorBody>('GET', `/v1/alerts/${id}`, { key });
      expectError(response, 404, 'alert_not_found', { url: `/v1/alerts/${id}`, livemode });
      expect(response.body.error.message).toBe(`No alert with id '${id}'.`);
    }
  });
});

describe('GET /v1/alerts', () => {
  it('pages newest first in both directions, only the tenant’s own alerts', async () => {
    const tenant = await newTenant();
    const other = await newTenant();
    await mirrored(other, [{}]);
    // One poll per alert: each row is recorded in its own transaction, so `created` orders them.
    const added: string[] = [];
    for (let i = 0; i < 5; i++) added.push(...(await mirrored(tenant, [{}])).map((alert) => alert.id));
    const newest = [...added].reverse();

    const first = await list(tenant, { limit: 2 });
    expect(first.status, first.text).toBe(200);
    expect(first.body).toMatchObject({ object: 'list', has_more: true, livemode: false, url: '/v1/alerts' });
    expect(ids(first)).toEqual(newest.slice(0, 2));
    const second = await list(tenant, { limit: 2, starting_after: newest[1] });
    expect(ids(second)).toEqual(newest.slice(2, 4));
    const last = await list(tenant, { limit: 2, starting_after: newest[3] });
    expect({ ids: ids(last), more: last.body.has_more }).toEqual({ ids: newest.slice(4), more: false });
    const back = await list(tenant, { limit: 2, ending_before: newest[4] });
    expect({ ids: ids(back), more: back.body.has_more }).toEqual({ ids: newest.slice(2, 4), more: true });
    // The live key sees none of the test-mode alerts.
    const live = await api.call<{ data: unknown[] }>('GET', '/v1/alerts', { key: tenant.live_key });
    expect(live.body.data).toEqual([]);
  });

  it('filters by charge, processor and outcome, each any of several values', async () => {
    const tenant = await newTenant();
    const [open, ignored, third] = await mirrored(tenant, [{}, { actionable: false }, {}]);
    expect(ids(await list(tenant, { outcome: 'ignored' }))).toEqual([ignored?.id]);
    expect(ids(await list(tenant, `charge=${open?.charge}&charge=${third?.charge}`)).sort()).toEqual(
      [open?.id, third?.id].sort(),
    );
    expect(ids(await list(tenant, 'outcome[]=open&outcome[]=ignored&processor=mock'))).toHaveLength(3);
    expect(ids(await list(tenant, { processor: 'stripe' }))).toEqual([]);
  });

  it.each([
    [
      'outcome=won',
      'Invalid outcome: Invalid option: expected one of "open"|"refunded"|"refund_failed"|"ignored"|"disputed".',
    ],
    ['processor=visa', /^Invalid processor: Invalid option: expected one of "stripe"/],
    [`charge=${'x'.repeat(256)}`, 'Invalid charge: must be at most 255 characters.'],
    ['limit=0', 'Invalid limit: must be 1 to 100.'],
    ['starting_after=issfr_nowhere', "No object with id 'issfr_nowhere' to page from."],
  ])('refuses %s with 400 invalid_request naming the parameter', async (query, message) => {
    const tenant = await newTenant();
    const response = await api.call<ErrorBody>('GET', '/v1/alerts', { key: tenant.test_key, query });
    expectError(response, 400, 'invalid_request', { url: '/v1/alerts' });
    expect(response.body.error.message).toMatch(message);
  });

  it("refuses another tenant's alert as a cursor", async () => {
    const ours = await newTenant();
    const theirs = await newTenant();
    const [alert] = await mirrored(theirs, [{}]);
    const response = await api.call<ErrorBody>('GET', '/v1/alerts', {
      key: ours.test_key,
      query: { starting_after: alert?.id },
    });
    expectError(response, 400, 'invalid_request', { url: '/v1/alerts' });
  });
});

describe('alerts on disputes and in webhooks', () => {
  it('the dispute object names its alert and resolution', async () => {
    const tenant = await newTenant();
    const [alert] = await mirrored(tenant, [{}]);
    const dispute = api.mock.world
      .account(tenant.account)
      .add({ charge: alert?.charge ?? null, state: 'needs_response' });
    await pollAccount({ ...api.engine, alertRefunds: api.deps.alertRefunds }, tenant.account.uid);
    const response = await api.call('GET', `/v1/disputes/${dispute.id}`, { key: tenant.test_key });
    expect(response.body).toMatchObject({ id: dispute.id, alert: alert?.id, resolution: null });
    const linked = await api.call('GET', `/v1/alerts/${alert?.id}`, { key: tenant.test_key });
    expect(linked.body).toMatchObject({ dispute: dispute.id, outcome: 'disputed' });
  });

  it('delivers alert.created to subscribed endpoints, naming the alert in every version', async () => {
    const tenant = await newTenant();
    const latest = await receivingEndpoint(api, tenant.test_key, { events: ['alert.created'] });
    const old = await receivingEndpoint(api, tenant.test_key, {
      api_version: '2016-03-05',
      events: ['alert.created'],
    });
    const disputesOnly = await receivingEndpoint(api, tenant.test_key, { events: ['dispute.updated'] });
    const [alert] = await mirrored(tenant, [{}]);

    const [received] = await latest.receiver.waitFor(1);
    expect(received?.verified).toBe(true);
    expect(received?.payload).toEqual({
      id: expect.stringMatching(/^wh_/),
      type: 'alert.created',
      object: 'webhook',
      livemode: false,
      alert: alert?.id,
      dispute: null,
      charge: alert?.charge,
      account_id: null,
    });
    const [legacy] = await old.receiver.waitFor(1);
    expect(legacy?.payload).toMatchObject({
      type: 'alert.created',
      alert: alert?.id,
      dispute: null,
      dispute_id: null,
      charge: alert?.charge,
      external_charge: alert?.charge,
    });
    expect(disputesOnly.receiver.received).toEqual([]);

    const events = await api.call<{ data: Record<string, unknown>[] }>('GET', '/v1/events', {
      key: tenant.test_key,
      query: { type: 'alert.created' },
    });
    expect(events.body.data).toMatchObject([{ type: 'alert.created', alert: alert?.id, dispute: null }]);
  });
});
