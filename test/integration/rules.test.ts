import { and, asc, eq } from 'drizzle-orm';
import { drizzle } from 'drizzle-orm/postgres-js';
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as schema from '../../src/db/schema/index.js';
import { connectedAccounts, events } from '../../src/db/schema/index.js';
import { connectAccount } from '../../src/features/accounts/connected-accounts.js';
import { pollAccount } from '../../src/features/mirroring/poll.js';
import { updateOrganisationSettings } from '../../src/features/organisations/organisations.js';
import { setRules } from '../../src/features/rules/rules.js';
import { createQueueAccountScheduler } from '../../src/jobs/account-scheduler.js';
import { MockAdapter } from '../../src/processors/mock/adapter.js';
import { MockDisputeWorld } from '../../src/processors/mock/world.js';
import { createAdapterRegistry } from '../../src/processors/registry.js';
import { noAlertRefunds } from '../helpers/alert-refunds.js';
import { startTestApi, type TestApi } from '../helpers/api.js';
import {
  createTemplate,
  createTestDispute,
  type Dispute,
  getDispute,
  type Json,
  newTenant,
  orderTemplate,
  readStored,
  requiredParams,
  submittableDispute,
  type Tenant,
} from '../helpers/disputes.js';

/**
 * Workflow rules over HTTP and through the mirror (docs/api.md, "Versions" and "States and actions"): on arrival review and accept
 * rules set the state and template rules (or the organisation's default per reason) the template; from
 * 2020-02-28 accept rules also act on update, submit and queue; `force=true` bypasses review and accept.
 * Every case has an organisation of its own, so its rules meet only its disputes.
 */

let api: TestApi;
beforeAll(async () => {
  // No mirror worker: this file polls its accounts itself, against a processor world of its own.
  api = await startTestApi({ workers: ['submission'] });
});
afterAll(async () => {
  await api.close();
});

type RuleJson = Json & { action: 'review' | 'accept' | 'template' };
const reviewFraud: RuleJson = { name: 'Fraud review', when: { reason: 'fraudulent' }, action: 'review' };
const acceptFraud: RuleJson = { name: 'Accept fraud', when: { reason: 'fraudulent' }, action: 'accept' };

async function tenantWith(rules: RuleJson[]): Promise<Tenant> {
  const tenant = await newTenant(api);
  await applyRules(tenant, rules);
  return tenant;
}

async function applyRules(tenant: Tenant, rules: RuleJson[]) {
  await setRules(api.db.db, { org: tenant.org, mode: 'test', contents: JSON.stringify({ rules }) });
}

/**
 * The dispute events of an organisation (or of one dispute), as `type state`, in a stable order (events of
 * one transaction share their time), leaving out the response document's, which are not the rules' business.
 */
async function eventsOf(tenant: Tenant, id?: string): Promise<string[]> {
  const rows = await api.db.db
    .select({ type: events.type, data: events.data })
    .from(events)
    .where(eq(events.orgId, tenant.org));
  return rows
    .filter((row) => (id === undefined || row.data.id === id) && !row.type.startsWith('dispute.response'))
    .map((row) => `${row.type} ${row.data.state}`)
    .sort();
}

const versionHeader = (version?: string) => (version ? { headers: { 'Service-Version': version } } : {});

describe('arrival through POST /v1/disputes', () => {
  interface CreateCase {
    name: string;
    rules: RuleJson[];
    /** Create parameters beyond the required ones; `submittable` adds a template and its field. */
    params?: Json;
    submittable?: boolean;
    version?: string;
    state: string;
    events: string[];
  }
  const cases: CreateCase[] = [
    {
      name: 'a review rule makes a new dispute requires_review',
      rules: [reviewFraud],
      state: 'requires_review',
      events: ['dispute.created requires_review'],
    },
    {
      name: 'an accept rule makes it accepted',
      rules: [acceptFraud],
      state: 'accepted',
      events: ['dispute.created accepted'],
    },
    {
      name: 'a rule that does not match leaves it needs_response',
      rules: [{ when: { reason: 'general' }, action: 'review' }],
      state: 'needs_response',
      events: ['dispute.created needs_response'],
    },
    {
      name: 'a dispute created warning_needs_response is moved too',
      rules: [reviewFraud],
      params: { state: 'warning_needs_response' },
      state: 'requires_review',
      events: ['dispute.created requires_review'],
    },
    {
      name: 'the first matching state rule decides',
      rules: [{ when: { amount: { min: 1000 } }, action: 'accept' }, reviewFraud],
      state: 'accepted',
      events: ['dispute.created accepted'],
    },
    {
      name: 'review + submit=true: created in requires_review, the submit held',
      rules: [reviewFraud],
      params: { submit: true },
      submittable: true,
      state: 'requires_review',
      events: ['dispute.created requires_review'],
    },
    {
      name: 'review + submit=true + force=true: rules bypassed, submitted',
      rules: [reviewFraud],
      params: { submit: true, force: true },
      submittable: true,
      state: 'submitted',
      events: ['dispute.created needs_response', 'dispute.submitted submitted'],
    },
    {
      name: 'review + queue=true: created in requires_review, not queued',
      rules: [reviewFraud],
      params: { queue: true },
      submittable: true,
      state: 'requires_review',
      events: ['dispute.created requires_review'],
    },
    {
      name: 'accept + submit=true on 2020-02-28: accepted, the submit held',
      rules: [acceptFraud],
      params: { submit: true },
      submittable: true,
      version: '2020-02-28',
      state: 'accepted',
      events: ['dispute.created accepted'],
    },
    {
      name: 'accept + submit=true before 2020-02-28: an accepted dispute submits normally',
      rules: [acceptFraud],
      params: { submit: true },
      submittable: true,
      version: '2017-10-30',
      state: 'submitted',
      events: ['dispute.created accepted', 'dispute.submitted submitted'],
    },
    {
      name: 'accept + queue=true on the latest version: accepted, not queued',
      rules: [acceptFraud],
      params: { queue: true },
      submittable: true,
      state: 'accepted',
      events: ['dispute.created accepted'],
    },
    {
      name: 'accept + queue=true + force=true: rules bypassed, queued',
      rules: [acceptFraud],
      params: { queue: true, force: true },
      submittable: true,
      state: 'queued',
      events: ['dispute.created needs_response', 'dispute.updated queued'],
    },
    {
      name: 'force=true alone bypasses the rules too',
      rules: [acceptFraud],
      params: { force: true },
      state: 'needs_response',
      events: ['dispute.created needs_response'],
    },
  ];

  it.each(cases)('$name', async (testCase) => {
    const tenant = await tenantWith(testCase.rules);
    const template = testCase.submittable ? await orderTemplate(api, tenant.key) : undefined;
    const body = requiredParams({
      ...(template && { template, fields: { order_id: 'A-1' } }),
      ...testCase.params,
    });
    const calls = api.mock.calls;
    const response = await api.call<Dispute>('POST', '/v1/disputes', {
      key: tenant.key,
      json: body,
      ...versionHeader(testCase.version),
    });
    expect({ status: response.status, state: response.body.state }, response.text).toEqual({
      status: 201,
      state: testCase.state,
    });
    expect((await getDispute(api, tenant.key, body.id as string)).state).toBe(testCase.state);
    expect(await eventsOf(tenant)).toEqual([...testCase.events].sort());
    // Standalone disputes never reach the mock processor; nothing else may either.
    expect(api.mock.calls).toBe(calls);
  });

  it('a template rule attaches its template to a dispute created without one, never over its own', async () => {
    const tenant = await newTenant(api);
    const ruled = await orderTemplate(api, tenant.key);
    const own = await orderTemplate(api, tenant.key);
    await applyRules(tenant, [
      { when: { reason: 'general' }, action: 'template', template: own },
      { when: { currency: 'USD' }, action: 'template', template: ruled },
    ]);
    const bare = await api.call<Dispute>('POST', '/v1/disputes', { key: tenant.key, json: requiredParams() });
    expect(bare.body).toMatchObject({ template: ruled, missing_fields: { order_id: 'text' } });
    const ownTemplate = await api.call<Dispute>('POST', '/v1/disputes', {
      key: tenant.key,
      json: requiredParams({ template: own }),
    });
    expect(ownTemplate.body.template).toBe(own);
  });
});

describe('default templates per reason', () => {
  it('attach to new disputes of that reason that no rule gave one, in that mode only', async () => {
    const tenant = await newTenant(api);
    const fraud = await createTemplate(api, tenant.key, [{ key: 'order_id', type: 'text', required: true }]);
    const fromRule = await orderTemplate(api, tenant.key);
    await updateOrganisationSettings(api.db.db, tenant.org, {
      mode: 'test',
      defaultTemplates: [`fraudulent=${fraud}`, `general=${fromRule}`],
    });
    await applyRules(tenant, [{ when: { reason: 'general' }, action: 'template', template: fromRule }]);

    const fraudulent = await api.call<Dispute>('POST', '/v1/disputes', {
      key: tenant.key,
      json: requiredParams(),
    });
    expect(fraudulent.body).toMatchObject({ template: fraud, missing_fields: { order_id: 'text' } });
    const duplicate = await api.call<Dispute>('POST', '/v1/disputes', {
      key: tenant.key,
      json: requiredParams({ reason: 'duplicate' }),
    });
    expect(duplicate.body.template).toBeNull();
    // Live mode has its own defaults: none here.
    const live = await api.call<Dispute>('POST', '/v1/disputes', {
      key: tenant.live_key,
      json: requiredParams(),
    });
    expect(live.body.template).toBeNull();

    // The event carries the template as attached, with what it misses.
    const [row] = await api.db.db
      .select({ data: events.data })
      .from(events)
      .where(and(eq(events.orgId, tenant.org), eq(events.type, 'dispute.created')))
      .orderBy(asc(events.createdAt))
      .limit(1);
    expect(row?.data).toMatchObject({ template: fraud, missing_fields: { order_id: 'text' } });
  });

  it('a default or rule naming a template deleted since is skipped: the dispute arrives without it', async () => {
    const tenant = await newTenant(api);
    const doomed = await orderTemplate(api, tenant.key);
    await updateOrganisationSettings(api.db.db, tenant.org, {
      mode: 'test',
      defaultTemplates: [`fraudulent=${doomed}`],
    });
    await applyRules(tenant, [{ when: {}, action: 'template', template: doomed }, reviewFraud]);
    expect((await api.call('DELETE', `/v1/templates/${doomed}`, { key: tenant.key })).status).toBe(200);

    const response = await api.call<Dispute>('POST', '/v1/disputes', {
      key: tenant.key,
      json: requiredParams(),
    });
    expect(response.status, response.text).toBe(201);
    expect(response.body).toMatchObject({ template: null, state: 'requires_review' });
  });
});

describe('arrival through the mirror', () => {
  const world = new MockDisputeWorld({ seed: 11, initialDisputes: 0, live: false });
  const adapters = createAdapterRegistry({ mock: new MockAdapter({ world }) });

  async function connectedTenant(rules: RuleJson[]) {
    const tenant = await tenantWith(rules);
    const { account } = await connectAccount(
      { db: api.db.db, adapters, scheduler: createQueueAccountScheduler(api.queues) },
      { org: tenant.org, mode: 'test', id: 'default', processor: 'mock' },
    );
    const poll = () =>
      pollAccount(
        { db: api.db.db, adapters, secrets: api.engine.secrets, alertRefunds: noAlertRefunds },
        account.uid,
      );
    return { tenant, processor: world.account(account), poll };
  }

  it('applies review and accept rules to disputes arriving open, not to those arriving decided', async () => {
    const { tenant, processor, poll } = await connectedTenant([
      { when: { reason: 'fraudulent', amount: { min: 10_000 } }, action: 'review' },
      { when: { reason: 'fraudulent' }, action: 'accept' },
    ]);
    const big = processor.add({ state: 'needs_response', reason: 'fraudulent', amount: 20_000 });
    const small = processor.add({ state: 'warning_needs_response', reason: 'fraudulent', amount: 500 });
    const other = processor.add({ state: 'needs_response', reason: 'general', amount: 500 });
    const lost = processor.add({ state: 'lost', reason: 'fraudulent', amount: 500, closedAt: new Date() });
    const reviewing = processor.add({ state: 'under_review', reason: 'fraudulent', amount: 500 });

    expect(await poll()).toMatchObject({ outcome: 'polled', created: 5 });

    const expected: [string, string][] = [
      [big.id, 'requires_review'],
      [small.id, 'accepted'],
      [other.id, 'needs_response'],
      [lost.id, 'lost'],
      [reviewing.id, 'under_review'],
    ];
    for (const [id, state] of expected) {
      expect((await getDispute(api, tenant.key, id)).state, id).toBe(state);
      expect(await eventsOf(tenant, id), id).toEqual([`dispute.created ${state}`]);
    }

    // Later polls mirror processor changes and keep the rules' states (service-local), as for any dispute.
    processor.change(big.id, { amount: 30_000 });
    expect(await poll()).toMatchObject({ created: 0, updated: 1 });
    expect((await getDispute(api, tenant.key, big.id)).state).toBe('requires_review');
  });

  it('attaches a template rule before the default for the reason, and leaves the fields alone', async () => {
    const { tenant, processor, poll } = await connectedTenant([]);
    const ruled = await orderTemplate(api, tenant.key);
    const fallback = await orderTemplate(api, tenant.key);
    await applyRules(tenant, [{ when: { currency: 'eur' }, action: 'template', template: ruled }]);
    await updateOrganisationSettings(api.db.db, tenant.org, {
      mode: 'test',
      defaultTemplates: [`general=${fallback}`],
    });
    const euro = processor.add({ state: 'needs_response', reason: 'general', currency: 'eur' });
    const dollar = processor.add({ state: 'needs_response', reason: 'general', currency: 'usd' });
    const fraud = processor.add({ state: 'needs_response', reason: 'fraudulent', currency: 'usd' });
    await poll();

    expect((await getDispute(api, tenant.key, euro.id)).template).toBe(ruled);
    expect((await getDispute(api, tenant.key, dollar.id)).template).toBe(fallback);
    expect((await getDispute(api, tenant.key, fraud.id)).template).toBeNull();
    expect((await readStored(api, tenant, dollar.id)).fields).toEqual({});
  });

  it('costs a page of 100 the same statements as a page of 10: rules are loaded once per page', async () => {
    const statements: string[] = [];
    const sql = postgres(api.db.url, {
      max: 1,
      onnotice: () => {},
      debug: (_, query) => statements.push(query),
    });
    const counting = drizzle(sql, { schema, casing: 'snake_case' });
    try {
      const { tenant, processor } = await connectedTenant([reviewFraud]);
      const template = await orderTemplate(api, tenant.key);
      await applyRules(tenant, [reviewFraud, { when: { currency: 'usd' }, action: 'template', template }]);
      const { account } = await connectAccount(
        { db: api.db.db, adapters, scheduler: createQueueAccountScheduler(api.queues) },
        { org: tenant.org, mode: 'test', id: 'second', processor: 'mock' },
      );
      const second = world.account(account);
      const perPage = async (uid: string, count: number, add: () => void) => {
        for (let i = 0; i < count; i++) add();
        statements.length = 0;
        await pollAccount(
          { db: counting, adapters, secrets: api.engine.secrets, alertRefunds: noAlertRefunds },
          uid,
          { pageSize: count },
        );
        return statements.length;
      };
      const [first] = await api.db.db
        .select({ uid: connectedAccounts.uid })
        .from(connectedAccounts)
        .where(and(eq(connectedAccounts.orgId, tenant.org), eq(connectedAccounts.id, 'default')));
      const fraud = { state: 'needs_response', reason: 'fraudulent', currency: 'usd' } as const;
      // A first poll prepares the connection's statements; the pages compared come after it.
      await perPage(first?.uid ?? '', 10, () => processor.add(fraud));
      const small = await perPage(first?.uid ?? '', 10, () => processor.add(fraud));
      const large = await perPage(account.uid, 100, () => second.add(fraud));
      expect(large).toBe(small);
      const listed = await api.call<{ data: Dispute[] }>('GET', '/v1/disputes', {
        key: tenant.key,
        query: { limit: 100, account: 'second' },
      });
      expect(new Set(listed.body.data.map((dispute) => `${dispute.state} ${dispute.template}`))).toEqual(
        new Set([`requires_review ${template}`]),
      );
    } finally {
      await sql.end();
    }
  });

  it('rules set after a dispute arrived leave it alone when it is mirrored again', async () => {
    const { tenant, processor, poll } = await connectedTenant([]);
    const early = processor.add({ state: 'needs_response', reason: 'fraudulent' });
    await poll();
    await applyRules(tenant, [reviewFraud]);
    processor.change(early.id, { fee: 999 });
    await poll();
    expect((await getDispute(api, tenant.key, early.id)).state).toBe('needs_response');
  });
});

describe('update, submit and queue against accept rules (from 2020-02-28)', () => {
  type Action = 'update' | 'submit' | 'queue' | 'update+submit';
  interface ChangeCase {
    state: 'needs_response' | 'queued' | 'requires_review' | 'warning_needs_response';
    action: Action;
    version: string;
    force?: boolean;
    status: number;
    after: string;
    /** The event this request adds, if any. */
    event?: string;
  }
  const latest = '2021-09-15';
  const cases: ChangeCase[] = [
    // Before the gate rules never act on an existing dispute.
    {
      state: 'needs_response',
      action: 'update',
      version: '2017-10-30',
      status: 200,
      after: 'needs_response',
    },
    {
      state: 'needs_response',
      action: 'submit',
      version: '2017-10-30',
      status: 201,
      after: 'submitted',
      event: 'dispute.submitted submitted',
    },
    {
      state: 'needs_response',
      action: 'queue',
      version: '2017-10-30',
      status: 200,
      after: 'queued',
      event: 'dispute.updated queued',
    },
    {
      state: 'requires_review',
      action: 'submit',
      version: '2016-03-05',
      status: 202,
      after: 'requires_review',
    },
    // From it a matching accept rule accepts first.
    {
      state: 'needs_response',
      action: 'update',
      version: '2020-02-28',
      status: 200,
      after: 'accepted',
      event: 'dispute.updated accepted',
    },
    {
      state: 'needs_response',
      action: 'submit',
      version: '2020-02-28',
      status: 202,
      after: 'accepted',
      event: 'dispute.updated accepted',
    },
    {
      state: 'needs_response',
      action: 'queue',
      version: latest,
      status: 202,
      after: 'accepted',
      event: 'dispute.updated accepted',
    },
    {
      state: 'needs_response',
      action: 'update+submit',
      version: latest,
      status: 202,
      after: 'accepted',
      event: 'dispute.updated accepted',
    },
    {
      state: 'warning_needs_response',
      action: 'update',
      version: latest,
      status: 200,
      after: 'accepted',
      event: 'dispute.updated accepted',
    },
    {
      state: 'queued',
      action: 'update',
      version: latest,
      status: 200,
      after: 'accepted',
      event: 'dispute.updated accepted',
    },
    {
      state: 'queued',
      action: 'submit',
      version: latest,
      status: 202,
      after: 'accepted',
      event: 'dispute.updated accepted',
    },
    {
      state: 'requires_review',
      action: 'submit',
      version: latest,
      status: 202,
      after: 'accepted',
      event: 'dispute.updated accepted',
    },
    {
      state: 'requires_review',
      action: 'update',
      version: '2020-02-28',
      status: 200,
      after: 'accepted',
      event: 'dispute.updated accepted',
    },
    // force=true bypasses the rules: the state table alone answers.
    {
      state: 'needs_response',
      action: 'update',
      version: latest,
      force: true,
      status: 200,
      after: 'needs_response',
    },
    {
      state: 'needs_response',
      action: 'submit',
      version: latest,
      force: true,
      status: 201,
      after: 'submitted',
      event: 'dispute.submitted submitted',
    },
    {
      state: 'needs_response',
      action: 'queue',
      version: latest,
      force: true,
      status: 200,
      after: 'queued',
      event: 'dispute.updated queued',
    },
    {
      state: 'queued',
      action: 'submit',
      version: latest,
      force: true,
      status: 201,
      after: 'submitted',
      event: 'dispute.submitted submitted',
    },
    {
      state: 'requires_review',
      action: 'submit',
      version: latest,
      force: true,
      status: 201,
      after: 'submitted',
      event: 'dispute.submitted submitted',
    },
  ];

  function send(id: string, key: string, action: Action, version: string, force?: boolean) {
    const extra = { fields: { note: 'edited' }, ...(force && { force: true }) };
    const options = { key, ...versionHeader(version) };
    switch (action) {
      case 'update':
        return api.call<Dispute>('PUT', `/v1/disputes/${id}`, { ...options, json: extra });
      case 'update+submit':
        return api.call<Dispute>('PUT', `/v1/disputes/${id}`, {
          ...options,
          json: { ...extra, submit: true },
        });
      case 'submit':
        return api.call<Dispute>('POST', `/v1/disputes/${id}/submit`, { ...options, json: extra });
      case 'queue':
        return api.call<Dispute>('POST', `/v1/disputes/${id}/submit`, {
          ...options,
          json: { ...extra, queue: true },
        });
    }
  }

  it.each(cases)('$state: $action on $version (force $force) answers $status, $after', async (testCase) => {
    const tenant = await newTenant(api);
    // Made before the rules, so it arrives as asked; the rules then meet it on this request.
    const { dispute } = await submittableDispute(api, tenant, {
      state: testCase.state,
      reason: 'fraudulent',
    });
    await applyRules(tenant, [acceptFraud]);
    const before = await eventsOf(tenant, dispute.id);
    const calls = api.mock.calls;

    const response = await send(dispute.id, tenant.key, testCase.action, testCase.version, testCase.force);
    const after = await eventsOf(tenant, dispute.id);

    expect({ status: response.status, state: response.body.state }, response.text).toEqual({
      status: testCase.status,
      state: testCase.after,
    });
    const stored = await readStored(api, tenant, dispute.id);
    expect(stored.state).toBe(testCase.after);
    // The client's parameters are saved whatever the rules did.
    expect(stored.fields).toMatchObject({ note: 'edited' });
    expect(api.mock.calls - calls).toBe(testCase.after === 'submitted' ? 1 : 0);
    expect(after).toEqual([...before, ...(testCase.event ? [testCase.event] : [])].sort());
    if (testCase.after === 'accepted') expect(stored.submitAt).toBeNull();
  });

  it('an accepted queued dispute loses its pending submission job', async () => {
    const tenant = await newTenant(api);
    const { dispute } = await submittableDispute(api, tenant, { state: 'queued', reason: 'fraudulent' });
    const queue = await api.call('POST', `/v1/disputes/${dispute.id}/submit`, {
      key: tenant.key,
      json: { queue: true },
    });
    expect(queue.status, queue.text).toBe(200);
    const { uid } = await readStored(api, tenant, dispute.id);
    const jobs = async () =>
      (await api.queues.byName.submission.getJobs(['delayed', 'waiting'])).filter((job) =>
        job.id?.startsWith(`queued-${uid}`),
      );
    expect(await jobs()).toHaveLength(1);
    await applyRules(tenant, [acceptFraud]);
    const response = await api.call<Dispute>('PUT', `/v1/disputes/${dispute.id}`, {
      key: tenant.key,
      json: { fields: { note: 'x' } },
    });
    expect(response.body.state).toBe('accepted');
    expect(await jobs()).toEqual([]);
  });

  it('review rules never act on an update or submit, and one placed first keeps a later accept rule out', async () => {
    const tenant = await newTenant(api);
    const { dispute: first } = await submittableDispute(api, tenant, { reason: 'fraudulent', amount: 5000 });
    const { dispute: second } = await submittableDispute(api, tenant, { reason: 'fraudulent', amount: 100 });
    await applyRules(tenant, [
      { when: { reason: 'fraudulent', amount: { min: 1000 } }, action: 'review' },
      acceptFraud,
    ]);
    const update = (id: string) =>
      api.call<Dispute>('PUT', `/v1/disputes/${id}`, { key: tenant.key, json: { fields: { note: 'n' } } });
    expect((await update(first.id)).body.state).toBe('needs_response');
    expect((await update(second.id)).body.state).toBe('accepted');
  });

  it('rules see the dispute as the request leaves it: a customer_email field can make an accept rule match', async () => {
    const tenant = await newTenant(api);
    const created = await api.call<Dispute>('POST', '/v1/disputes', {
      key: tenant.key,
      json: requiredParams({ reason: 'general' }),
    });
    await applyRules(tenant, [{ when: { customer_email_domain: 'friendly.example' }, action: 'accept' }]);
    const untouched = await api.call<Dispute>('PUT', `/v1/disputes/${created.body.id}`, {
      key: tenant.key,
      json: { fields: { customer_email: 'someone@other.example' } },
    });
    expect(untouched.body.state).toBe('needs_response');
    const matched = await api.call<Dispute>('PUT', `/v1/disputes/${created.body.id}`, {
      key: tenant.key,
      json: { fields: { customer_email: 'Someone@Friendly.Example' } },
    });
    expect(matched.body.state).toBe('accepted');
  });

  it('an accepted dispute is not accepted again: no event, the state table answers', async () => {
    const tenant = await newTenant(api);
    const accepted = await createTestDispute(api, tenant.key, { state: 'accepted', reason: 'fraudulent' });
    await applyRules(tenant, [acceptFraud]);
    const before = await eventsOf(tenant, accepted.id);
    const response = await api.call<Dispute>('POST', `/v1/disputes/${accepted.id}/submit`, {
      key: tenant.key,
      json: {},
    });
    expect({ status: response.status, state: response.body.state }).toEqual({
      status: 202,
      state: 'accepted',
    });
    expect(await eventsOf(tenant, accepted.id)).toEqual(before);
  });
});

describe('test disputes (POST /v1/test/disputes)', () => {
  it('arrive through the same rules as mirrored ones', async () => {
    const tenant = await tenantWith([reviewFraud]);
    const dispute = await createTestDispute(api, tenant.key, { reason: 'fraudulent' });
    expect(dispute.state).toBe('requires_review');
    expect(await eventsOf(tenant, dispute.id)).toEqual(['dispute.created requires_review']);
  });
});
