import { createHash } from 'node:crypto';
import { and, eq, inArray } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { disputes, documents, events, personalDataRequests, submissions } from '../../src/db/schema/index.js';
import { sweepDeadlines } from '../../src/features/disputes/deadline-sweep.js';
import type { CreatedOrganisation } from '../../src/features/organisations/organisations.js';
import {
  carryOutRemoval,
  requestRemoval,
  waitingRemovals,
} from '../../src/features/personal-data/removal.js';
import { SecretBox } from '../../src/secrets.js';
import { startTestApi, type TestApi } from '../helpers/api.js';
import { runCli } from '../helpers/cli.js';
import {
  acceptedSubmissions,
  createTestDispute,
  type Dispute,
  daysFromNow,
  type Json,
  submittableDispute,
} from '../helpers/disputes.js';
import { pageTexts } from '../helpers/pdf-text.js';
import { expectApiError } from '../helpers/security.js';
import { receivingEndpoint } from '../helpers/webhooks.js';

/**
 * Personal data requests (the original interface's POST /v1/personal-data/retrieve and /remove): the
 * answers, the refusals, tenant and mode isolation, the export the operator reads with the CLI, that a
 * removal (carried out by its job, which this file's workers run) leaves no trace of the person in any
 * column of any table nor in any response document, that it waits for a submission in flight, and that a
 * customer who only shares the name keeps their data.
 *
 * Every test has a person of its own, none of them among the mock processor's sample customers, so
 * what one test seeds is never another's person.
 */

let api: TestApi;
beforeAll(async () => {
  api = await startTestApi();
});
afterAll(async () => {
  await api.close();
});

interface Person {
  name: string;
  email: string;
  ip: string;
  street: string;
}

const person = (first: string, last: string, ip: string): Person => ({
  name: `${first} ${last}`,
  email: `${first}.${last}@example.com`.toLowerCase(),
  ip,
  street: `${ip.split('.').at(-1)} Kensington Square`,
});

type Mode = 'test' | 'live';
interface Tenant {
  org: string;
  key: string;
  livemode: boolean;
}

const tenantOf = (created: CreatedOrganisation, mode: Mode): Tenant => ({
  org: created.org,
  key: mode === 'test' ? created.test_key : created.live_key,
  livemode: mode === 'live',
});

const retrieve = (key: string | undefined, json: unknown) =>
  api.call('POST', '/v1/personal-data/retrieve', { key, json });
const remove = (key: string | undefined, json: unknown) =>
  api.call('POST', '/v1/personal-data/remove', { key, json });

async function requestRow(id: string) {
  const [row] = await api.db.db.select().from(personalDataRequests).where(eq(personalDataRequests.id, id));
  return row;
}

/** Waits, bounded, until the removal's job has carried it out. */
async function removalDone(id: string) {
  await expect
    .poll(async () => (await requestRow(id))?.completedAt ?? null, { timeout: 20_000, interval: 100 })
    .not.toBeNull();
  return requestRow(id);
}

/** Asks for a removal (200 at once) and waits until it is done. */
async function removeAndWait(key: string, json: unknown) {
  const response = await remove(key, json);
  expect(response.status, response.text).toBe(200);
  await removalDone(String(response.body.id));
  return response;
}

/** The operator CLI against this file's database, with the app's APP_SECRET (it opens what the app sealed). */
const cli = (...args: string[]) =>
  runCli(args, { DATABASE_URL: api.db.url, APP_SECRET: api.config.APP_SECRET ?? '' });

/** A dispute in the tenant: a mock one for test keys, a standalone one (POST /v1/disputes) for live keys. */
async function newDispute(tenant: Tenant, id: string): Promise<void> {
  const response = tenant.livemode
    ? await api.call('POST', '/v1/disputes', {
        key: tenant.key,
        json: {
          id,
          charge: `ch_${id}`,
          reason: 'fraudulent',
          charged_at: '2024-01-02T03:04:05Z',
          disputed_at: '2024-01-10T00:00:00Z',
          due_by: daysFromNow(10),
          currency: 'usd',
          amount: 4200,
        },
      })
    : await api.call('POST', '/v1/test/disputes', { key: tenant.key, json: { id } });
  expect(response.status, response.text).toBe(201);
}

async function writeDispute(tenant: Tenant, id: string, values: Partial<typeof disputes.$inferInsert>) {
  await api.db.db
    .update(disputes)
    .set(values)
    .where(and(eq(disputes.orgId, tenant.org), eq(disputes.livemode, tenant.livemode), eq(disputes.id, id)));
}

async function disputeRow(tenant: Tenant, id: string) {
  const [row] = await api.db.db
    .select()
    .from(disputes)
    .where(and(eq(disputes.orgId, tenant.org), eq(disputes.livemode, tenant.livemode), eq(disputes.id, id)));
  if (!row) throw new Error(`no dispute ${id}`);
  return row;
}

/** The person everywhere a dispute can hold them: customer attributes and every kind of evidence. */
function mentioning(who: Person, orderId = 'A-1001') {
  const [first, last] = who.name.split(' ');
  return {
    customerName: who.name,
    customerEmail: who.email,
    customerPurchaseIp: who.ip,
    addressZip: 'W8 5HN',
    fields: {
      order_id: orderId,
      note: `${who.name} called about the order`,
      contact: who.email.toUpperCase(),
    },
    products: [{ name: 'Telescope', quantity: 1, amount: 25_000, description: `Engraved for ${who.name}` }],
    correspondence: [
      {
        to: `${who.name} <${who.email}>`,
        from: 'support@shop.example',
        subject: `Your order, ${who.name}`,
        body: `Dear ${first}\n${last},\nwe wrote to ${who.email} about your telescope.`,
      },
    ],
    pastPayments: [
      {
        id: 'ch_past_1',
        amount: 4200,
        currency: 'usd',
        charged_at: 1_600_000_000,
        ip_address: who.ip,
        shipping_address: `${who.name}, ${who.street}`,
        item_description: `Star chart for ${who.email}`,
      },
    ],
    referenceUrl: `https://shop.example/orders?customer=${who.email}`,
  };
}

async function requestRows(tenant: Tenant) {
  return api.db.db
    .select()
    .from(personalDataRequests)
    .where(
      and(eq(personalDataRequests.orgId, tenant.org), eq(personalDataRequests.livemode, tenant.livemode)),
    );
}

describe('POST /v1/personal-data/retrieve and /remove: the answers', () => {
  it('retrieve answers 200 with the original body, and records the request with the person only hashed', async () => {
    const tenant = tenantOf(await api.createOrg(), 'test');
    const who = person('Hedy', 'Lamarr', '198.51.100.11');
    const response = await retrieve(tenant.key, {
      email: who.email,
      name: who.name,
      notification_email: 'privacy@shop.example',
    });
    expect(response.status).toBe(200);
    expect(String(response.headers['content-type'])).toMatch(/^application\/json; charset=utf-8$/i);
    expect(response.body).toEqual({
      object: 'personal_data_request',
      id: expect.stringMatching(/^pdr_[0-9a-z]{20}$/),
      success: { message: 'Data retrieval request submitted.' },
      livemode: false,
      url: '/v1/personal-data/retrieve',
    });
    const [row] = await requestRows(tenant);
    expect(row).toMatchObject({
      id: response.body.id,
      kind: 'retrieve',
      emailHash: expect.stringMatching(/^[0-9a-f]{64}$/),
      nameHash: expect.stringMatching(/^[0-9a-f]{64}$/),
      summary: { disputes: 0, submissions: 0, documents: 0, events: 0, files: 0 },
      completedAt: expect.any(Date),
    });
    expect(row?.notificationEmail).toMatch(/^v2\./);
    expect(row?.export).toMatch(/^v2\./);
    expect(JSON.stringify(row)).not.toMatch(/lamarr|privacy@shop/i);
  });

  it('remove answers 200 with the original body, with or without notification_email, in JSON or a form', async () => {
    const tenant = tenantOf(await api.createOrg(), 'live');
    const who = person('Emmy', 'Noether', '198.51.100.12');
    const expected = {
      object: 'personal_data_request',
      id: expect.stringMatching(/^pdr_[0-9a-z]{20}$/),
      success: { message: 'Data removal request submitted.' },
      livemode: true,
      url: '/v1/personal-data/remove',
    };
    const plain = await remove(tenant.key, { email: who.email, name: who.name });
    expect({ status: plain.status, body: plain.body }).toEqual({ status: 200, body: expected });
    const form = await api.call('POST', '/v1/personal-data/remove', {
      key: tenant.key,
      form: { email: who.email, name: who.name, notification_email: 'dpo@shop.example' },
    });
    expect({ status: form.status, body: form.body }).toEqual({ status: 200, body: expected });
    await removalDone(String(plain.body.id));
    await removalDone(String(form.body.id));
    const rows = await requestRows(tenant);
    expect(rows.map((row) => [row.kind, row.notificationEmail === null])).toEqual([
      ['remove', true],
      ['remove', false],
    ]);
    expect(rows.every((row) => row.export === null && row.subject === null)).toBe(true);
    expect(rows.map((row) => row.summary)).toEqual([
      { disputes: 0, submissions: 0, documents: 0, events: 0, files: 0, filenames: 0, exports: 0 },
      { disputes: 0, submissions: 0, documents: 0, events: 0, files: 0, filenames: 0, exports: 0 },
    ]);
  });

  it('treats the email case-insensitively and the name without regard to case and spacing', async () => {
    const tenant = tenantOf(await api.createOrg(), 'test');
    const dispute = await createTestDispute(api, tenant.key);
    await writeDispute(tenant, dispute.id, {
      customerName: 'sophie   GERMAIN',
      customerEmail: 'Sophie.Germain@Example.com',
    });
    await removeAndWait(tenant.key, { email: ' SOPHIE.germain@example.COM ', name: 'Sophie Germain' });
    expect(await disputeRow(tenant, dispute.id)).toMatchObject({ customerName: null, customerEmail: null });
  });
});

describe('POST /v1/personal-data/*: refusals', () => {
  const good = {
    email: 'mary.anning@example.com',
    name: 'Mary Anning',
    notification_email: 'dpo@shop.example',
  };
  const cases: [string, CallShape][] = [
    ['missing email', { json: { ...good, email: undefined } }],
    ['an email that is not an address', { json: { ...good, email: 'mary.anning' } }],
    ['an empty email', { json: { ...good, email: '' } }],
    ['missing name', { json: { ...good, name: undefined } }],
    ['an empty name', { json: { ...good, name: '' } }],
    ['a name of spaces', { json: { ...good, name: '   ' } }],
    ['a name without letters or digits', { json: { ...good, name: '--' } }],
    ['a name of one letter', { json: { ...good, name: 'M' } }],
    ['a name of one letter and digits', { json: { ...good, name: 'M. 1' } }],
    ['a number for the name', { json: { ...good, name: 42 } }],
    ['an array for the email', { json: { ...good, email: [good.email] } }],
    ['an object for the name', { json: { ...good, name: { first: 'Mary' } } }],
    ['a bad notification_email', { json: { ...good, notification_email: 'nobody' } }],
    [
      'malformed JSON',
      { raw: '{"email": "mary.anning@example.com", ', headers: { 'content-type': 'application/json' } },
    ],
    ['a JSON array body', { raw: '[]', headers: { 'content-type': 'application/json' } }],
    ['an unsupported content type', { raw: 'email=x', headers: { 'content-type': 'text/plain' } }],
  ];
  type CallShape = { json?: unknown; raw?: string; headers?: Record<string, string> };

  for (const path of ['/v1/personal-data/retrieve', '/v1/personal-data/remove']) {
    it.each(cases)(
      `${path} refuses %s with 400 invalid_request and records nothing`,
      async (_label, shape) => {
        const tenant = tenantOf(await api.createOrg(), 'test');
        const response = await api.call('POST', path, { key: tenant.key, ...shape });
        expectApiError(response, { status: 400, type: 'invalid_request', url: path });
        expect(response.text).not.toContain('mary.anning');
        expect(await requestRows(tenant)).toEqual([]);
      },
    );
  }

  it('retrieve requires notification_email', async () => {
    const tenant = tenantOf(await api.createOrg(), 'test');
    const response = await retrieve(tenant.key, { email: good.email, name: good.name });
    expectApiError(response, { status: 400, type: 'invalid_request', url: '/v1/personal-data/retrieve' });
    expect((response.body as { error: { message: string } }).error.message).toBe(
      'Missing required parameter: notification_email.',
    );
    expect(await requestRows(tenant)).toEqual([]);
  });

  it('refuses a missing key with 401 and another method with 405', async () => {
    expectApiError(await retrieve(undefined, good), {
      status: 401,
      type: 'authentication',
      url: '/v1/personal-data/retrieve',
    });
    const tenant = tenantOf(await api.createOrg(), 'test');
    const get = await api.call('GET', '/v1/personal-data/remove', { key: tenant.key });
    expectApiError(get, { status: 405, type: 'method_not_allowed', url: '/v1/personal-data/remove' });
  });
});

describe('isolation: the key decides the organisation and the mode', () => {
  it("touches only the key's organisation and mode; the others' disputes, events and exports stay", async () => {
    const who = person('Ada', 'Yonath', '198.51.100.21');
    const orgA = await api.createOrg('Org A');
    const orgB = await api.createOrg('Org B');
    const target = tenantOf(orgA, 'test');
    const others = [tenantOf(orgA, 'live'), tenantOf(orgB, 'test')];
    const id = `dp_shared_${orgA.org}`;
    for (const tenant of [target, ...others]) {
      await newDispute(tenant, id);
      await writeDispute(tenant, id, mentioning(who));
      const asked = await retrieve(tenant.key, { ...who, notification_email: 'dpo@shop.example' });
      expect(asked.status).toBe(200);
    }
    const otherOrgs = [orgA.org, orgB.org];
    const snapshot = async () => {
      const rows = await api.db.db.select().from(disputes).where(inArray(disputes.orgId, otherOrgs));
      const eventRows = await api.db.db.select().from(events).where(inArray(events.orgId, otherOrgs));
      const requests = await api.db.db
        .select()
        .from(personalDataRequests)
        .where(inArray(personalDataRequests.orgId, otherOrgs));
      const outside = (row: { orgId: string; livemode: boolean }) =>
        !(row.orgId === target.org && row.livemode === target.livemode);
      return {
        disputes: rows.filter(outside),
        events: eventRows.filter(outside),
        requests: requests.filter(outside),
      };
    };
    const before = await snapshot();
    expect(before.disputes).toHaveLength(2);

    await removeAndWait(target.key, { email: who.email, name: who.name });
    expect(await snapshot()).toEqual(before);
    expect(await disputeRow(target, id)).toMatchObject({ customerEmail: null, customerName: null });
    for (const tenant of others) {
      expect(await disputeRow(tenant, id)).toMatchObject({
        customerEmail: who.email,
        customerName: who.name,
      });
    }
    const [targetRetrieve] = (await requestRows(target)).filter((row) => row.kind === 'retrieve');
    expect(targetRetrieve?.export).toBeNull();
  });

  it("retrieve exports only the key's organisation and mode", async () => {
    const who = person('Lise', 'Meitner', '198.51.100.22');
    const org = await api.createOrg();
    const test = tenantOf(org, 'test');
    const live = tenantOf(org, 'live');
    await newDispute(test, 'dp_meitner_test');
    await newDispute(live, 'dp_meitner_live');
    await writeDispute(test, 'dp_meitner_test', { customerEmail: who.email });
    await writeDispute(live, 'dp_meitner_live', { customerEmail: who.email });
    const response = await retrieve(live.key, { ...who, notification_email: 'dpo@shop.example' });
    expect(response.status).toBe(200);
    const { stdout, code, stderr } = await cli('privacy', 'export', '--request', String(response.body.id));
    expect({ code, stderr }).toEqual({ code: 0, stderr: '' });
    const exported = JSON.parse(stdout) as { livemode: boolean; disputes: Dispute[] };
    expect(exported.livemode).toBe(true);
    expect(exported.disputes.map((dispute) => dispute.id)).toEqual(['dp_meitner_live']);
  });
});

describe('npm run cli -- privacy', () => {
  it('list shows the requests with their notification address; export prints the export of a retrieve', async () => {
    const who = person('Chien-Shiung', 'Wu', '198.51.100.31');
    const org = await api.createOrg();
    const tenant = tenantOf(org, 'test');
    const dispute = await createTestDispute(api, tenant.key);
    await writeDispute(tenant, dispute.id, mentioning(who));
    const other = await createTestDispute(api, tenant.key);
    await writeDispute(tenant, other.id, {
      customerName: 'Rosalind Franklin',
      customerEmail: 'rf@example.org',
    });
    const asked = await retrieve(tenant.key, { ...who, notification_email: 'dpo@shop.example' });
    expect(asked.status).toBe(200);

    const listed = await cli('privacy', 'list', '--org', org.org, '--mode', 'test', '--json');
    expect(listed.code, listed.stderr).toBe(0);
    expect(JSON.parse(listed.stdout)).toEqual([
      {
        id: asked.body.id,
        org: org.org,
        mode: 'test',
        kind: 'retrieve',
        notification_email: 'dpo@shop.example',
        export: 'available',
        summary: { disputes: 1, submissions: 0, documents: 0, events: 1, files: 0 },
        created: expect.any(String),
        completed: expect.any(String),
        failure: null,
      },
    ]);
    const human = await cli('privacy', 'list', '--org', org.org);
    expect(human.stdout).toContain(`${String(asked.body.id)}  test  retrieve`);
    expect(
      JSON.parse((await cli('privacy', 'list', '--org', org.org, '--mode', 'live', '--json')).stdout),
    ).toEqual([]);

    const { stdout, code } = await cli('privacy', 'export', '--request', String(asked.body.id));
    expect(code).toBe(0);
    const exported = JSON.parse(stdout) as Json & { disputes: Dispute[]; events: Json[] };
    expect(exported).toMatchObject({
      object: 'personal_data_export',
      request: asked.body.id,
      livemode: false,
      notification_email: 'dpo@shop.example',
      submissions: [],
      documents: [],
    });
    expect(exported.disputes).toHaveLength(1);
    expect(exported.disputes[0]).toMatchObject({
      object: 'dispute',
      id: dispute.id,
      customer_email: who.email,
      customer_name: who.name,
      fields: mentioning(who).fields,
    });
    // The event of its creation (POST /v1/test/disputes): the dispute is the person's.
    expect(exported.events.map((event) => event.type)).toEqual(['dispute.created']);
    expect(stdout).not.toContain('Rosalind');
  });

  it('export refuses an unknown request, a removal, and an export deleted by a removal', async () => {
    const who = person('Dorothy', 'Hodgkin', '198.51.100.32');
    const tenant = tenantOf(await api.createOrg(), 'test');
    const asked = await retrieve(tenant.key, { ...who, notification_email: 'dpo@shop.example' });
    const removed = await removeAndWait(tenant.key, { email: who.email.toUpperCase(), name: who.name });
    const unknown = await cli('privacy', 'export', '--request', 'pdr_unknown');
    expect(unknown).toMatchObject({ code: 1, stderr: 'error: no personal data request pdr_unknown\n' });
    const removal = await cli('privacy', 'export', '--request', String(removed.body.id));
    expect(removal.stderr).toContain('is a remove request');
    const deleted = await cli('privacy', 'export', '--request', String(asked.body.id));
    expect(deleted.stderr).toContain('was deleted');
  });
});

describe('POST /v1/personal-data/remove: no trace left', () => {
  const who = person('Mary', 'Somerville', '198.51.100.77');
  /** What must not be found anywhere: the email, the name, its surname alone, the IP and the street. */
  const traces = [who.email, who.name, 'somerville', who.ip, who.street];

  /** Every text, varchar and JSON column of every table, searched case-insensitively. */
  async function findTraces(): Promise<string[]> {
    const columns = await api.db.sql<{ table: string; column: string }[]>`
      select table_name as table, column_name as column from information_schema.columns
      where table_schema = 'public' and data_type in ('text', 'character varying', 'character', 'jsonb', 'json')
      order by table_name, column_name`;
    expect(columns.map(({ table }) => table)).toEqual(
      expect.arrayContaining(['disputes', 'submissions', 'events', 'documents', 'personal_data_requests']),
    );
    const patterns = traces.map((trace) => `%${trace.replace(/[\\%_]/g, '\\$&')}%`);
    const found: string[] = [];
    for (const { table, column } of columns) {
      const [row] = await api.db.sql<{ n: number }[]>`
        select count(*)::int as n from ${api.db.sql(table)}
        where ${api.db.sql(column)}::text ilike any(${patterns}::text[])`;
      if (row && row.n > 0) found.push(`${table}.${column}`);
    }
    return found;
  }

  it('redacts the person from disputes, submissions, events and exports, keeping amounts, ids and states', async () => {
    const created = await api.createOrg();
    const tenant = tenantOf(created, 'test');
    const { receiver } = await receivingEndpoint(api, tenant.key);

    // Submitted: a submission with its evidence snapshot, a dispute.submitted event and its webhook.
    const { dispute: first } = await submittableDispute(api, { ...created, key: tenant.key });
    await writeDispute(tenant, first.id, mentioning(who));
    const submitted = await api.call<Dispute>('POST', `/v1/disputes/${first.id}/submit`, { key: tenant.key });
    expect(submitted.status, submitted.text).toBe(201);
    // The person only as the customer's email, in other letters: an accepted dispute with its event.
    const second = await createTestDispute(api, tenant.key);
    await writeDispute(tenant, second.id, { customerEmail: 'Mary.Somerville@Example.COM' });
    expect((await api.call('POST', `/v1/disputes/${second.id}/accept`, { key: tenant.key })).status).toBe(
      200,
    );
    // Someone else: not touched at all.
    const bystander = await createTestDispute(api, tenant.key);
    await writeDispute(tenant, bystander.id, {
      customerName: 'Caroline Herschel',
      customerEmail: 'ch@example.org',
    });
    const eventCount = await eventsOf(tenant);
    await receiver.waitFor(eventCount);

    const ids = [first.id, second.id];
    const before = await Promise.all(ids.map((id) => disputeRow(tenant, id)));
    const bystanderBefore = await disputeRow(tenant, bystander.id);
    const submissionsBefore = await submissionsOf(before.map((row) => row.uid));
    expect(submissionsBefore).toHaveLength(1);
    // The dispute objects, cached by this process's list: they must not outlive the removal.
    const listed = await api.call('GET', '/v1/disputes', { key: tenant.key });
    expect(listed.text).toContain(who.email);

    const asked = await retrieve(tenant.key, { ...who, notification_email: who.email });
    expect(asked.status).toBe(200);
    const exported = JSON.parse(
      (await cli('privacy', 'export', '--request', String(asked.body.id))).stdout,
    ) as Json & { disputes: Dispute[]; submissions: Json[]; events: Json[] };
    expect(exported.disputes.map((dispute) => dispute.id).sort()).toEqual([...ids].sort());
    expect(exported.submissions.map((submission) => submission.id)).toEqual(
      submissionsBefore.map((s) => s.id),
    );
    expect(exported.events.length).toBeGreaterThanOrEqual(3);
    expect(await findTraces()).toEqual(
      expect.arrayContaining(['disputes.customer_name', 'submissions.evidence', 'events.data']),
    );
    // The response document names the customer: what pdf.js reads of it shows the person before.
    const documentsOf = () =>
      api.db.db
        .select({ id: documents.id, pdf: documents.pdf })
        .from(documents)
        .where(
          inArray(
            documents.disputeUid,
            before.map((row) => row.uid),
          ),
        );
    const pdfsBefore = await documentsOf();
    expect(pdfsBefore.length).toBeGreaterThanOrEqual(1);
    for (const { pdf } of pdfsBefore) expect((await pageTexts(pdf)).join(' ')).toContain('Somerville');

    const removed = await removeAndWait(tenant.key, {
      email: who.email,
      name: who.name,
      notification_email: who.email,
    });

    expect(await findTraces()).toEqual([]);
    const pdfsAfter = await documentsOf();
    expect(pdfsAfter.map(({ id }) => id).sort()).toEqual(pdfsBefore.map(({ id }) => id).sort());
    for (const { id, pdf } of pdfsAfter) {
      const text = (await pageTexts(pdf)).join(' ').toLowerCase();
      for (const trace of traces)
        expect(text, `${id} still shows ${trace}`).not.toContain(trace.toLowerCase());
      expect(text).toContain('[redacted]');
    }

    // Amounts, ids, states and timestamps are kept; only the person is gone, and cached objects follow.
    const after = await Promise.all(ids.map((id) => disputeRow(tenant, id)));
    for (const [index, row] of after.entries()) {
      const was = before[index];
      if (!was) throw new Error('no row before');
      expect(row).toMatchObject({
        uid: was.uid,
        id: was.id,
        state: was.state,
        amount: was.amount,
        currency: was.currency,
        fee: was.fee,
        reversalAmount: was.reversalAmount,
        charge: was.charge,
        customer: was.customer,
        submittedCount: was.submittedCount,
        template: was.template,
        createdAt: was.createdAt,
        updatedAt: was.updatedAt,
        submittedAt: was.submittedAt,
        dueBy: was.dueBy,
        customerName: null,
        customerEmail: null,
        customerPurchaseIp: null,
        addressZip: null,
      });
      expect(row.version).toBeGreaterThan(was.version);
    }
    const [firstAfter] = after;
    expect(firstAfter?.fields).toEqual({
      order_id: 'A-1001',
      note: '[redacted] called about the order',
      contact: '[redacted]',
    });
    expect(firstAfter?.products).toEqual([
      { name: 'Telescope', quantity: 1, amount: 25_000, description: 'Engraved for [redacted]' },
    ]);
    expect(firstAfter?.correspondence).toEqual([
      {
        to: '[redacted]',
        from: 'support@shop.example',
        subject: 'Your order, [redacted]',
        body: 'Dear [redacted],\nwe wrote to [redacted] about your telescope.',
      },
    ]);
    expect(firstAfter?.pastPayments).toEqual([
      {
        id: 'ch_past_1',
        amount: 4200,
        currency: 'usd',
        charged_at: 1_600_000_000,
        ip_address: '[redacted]',
        shipping_address: '[redacted]',
        item_description: 'Star chart for [redacted]',
      },
    ]);
    expect(await disputeRow(tenant, bystander.id)).toEqual(bystanderBefore);
    const submissionsAfter = await submissionsOf(before.map((row) => row.uid));
    // The response documents were rendered again from the redacted data: the hashes follow.
    const unchanged = ({ evidence: _e, documentSha256: _h, ...rest }: (typeof submissionsAfter)[number]) =>
      rest;
    expect(submissionsAfter.map(unchanged)).toEqual(submissionsBefore.map(unchanged));
    for (const submission of submissionsAfter.filter((row) => row.documentId !== null)) {
      const [document] = await api.db.db
        .select({ sha256: documents.sha256, pdf: documents.pdf })
        .from(documents)
        .where(eq(documents.id, String(submission.documentId)));
      expect(document?.sha256).toBe(submission.documentSha256);
      expect(document?.sha256).not.toBe(
        submissionsBefore.find((row) => row.id === submission.id)?.documentSha256,
      );
      expect(
        createHash('sha256')
          .update(document?.pdf ?? Buffer.alloc(0))
          .digest('hex'),
      ).toBe(document?.sha256);
    }
    expect(await eventsOf(tenant)).toBe(eventCount);
    const relisted = await api.call<{ data: Dispute[] }>('GET', '/v1/disputes', { key: tenant.key });
    expect(relisted.text).not.toMatch(/somerville/i);
    expect(relisted.body.data.find((dispute) => dispute.id === first.id)).toMatchObject({
      customer_email: null,
      amount: first.amount,
      state: 'submitted',
    });

    // The earlier export is gone; the removal is recorded with what it changed.
    expect((await cli('privacy', 'export', '--request', String(asked.body.id))).stderr).toContain(
      'was deleted',
    );
    const [record] = (await requestRows(tenant)).filter((row) => row.id === removed.body.id);
    // Each response document of the submission names the customer, so each was rendered again.
    expect(record?.summary).toMatchObject({
      disputes: 2,
      submissions: 1,
      documents: pdfsBefore.length,
      exports: 1,
    });
    expect(record?.summary?.events).toBeGreaterThanOrEqual(3);
    expect(record?.subject).toBeNull();
    // The earlier request's notification address is cleared; the removal keeps its own, to be confirmed to.
    expect((await requestRow(String(asked.body.id)))?.notificationEmail).toBeNull();
    const requests = await cli('privacy', 'list', '--org', tenant.org, '--mode', 'test', '--json');
    expect(
      (JSON.parse(requests.stdout) as Json[]).map((request) => [request.kind, request.notification_email]),
    ).toEqual([
      ['remove', who.email],
      ['retrieve', null],
    ]);

    // A second removal finds nothing left to change.
    const again = await removeAndWait(tenant.key, { email: who.email, name: who.name });
    const [repeat] = (await requestRows(tenant)).filter((row) => row.id === again.body.id);
    expect(repeat?.summary).toEqual({
      disputes: 0,
      submissions: 0,
      documents: 0,
      events: 0,
      files: 0,
      filenames: 0,
      exports: 0,
    });
    await receiver.close();
  });
});

describe('POST /v1/personal-data/remove: whom, and when', () => {
  it('waits for a submission in flight: the processor gets it unredacted once, then every record is redacted', async () => {
    const who = person('Grace', 'Hopper', '198.51.100.41');
    const created = await api.createOrg();
    const tenant = tenantOf(created, 'test');
    // The mock processor answers 503 for this charge: the submission's job retries about every second.
    const { dispute } = await submittableDispute(
      api,
      { ...created, key: tenant.key },
      { charge: `ch_mock_unavailable_${Date.now()}` },
    );
    await writeDispute(tenant, dispute.id, mentioning(who));
    const { uid } = await disputeRow(tenant, dispute.id);
    const submitting = api.call('POST', `/v1/disputes/${dispute.id}/submit`, { key: tenant.key });
    await expect
      .poll(async () => (await submissionsOf([uid])).map((row) => [row.status, row.documentId !== null]), {
        timeout: 10_000,
      })
      .toEqual([['pending', true]]);
    const [inFlight] = await submissionsOf([uid]);

    const removed = await remove(tenant.key, { email: who.email, name: who.name });
    expect(removed.status).toBe(200);
    const requestId = String(removed.body.id);
    // Answered at once; the removal waits, changing nothing, and its job says why.
    const job = () => api.queues.byName.deadline.getJob(`removal-${requestId}`);
    await expect.poll(async () => (await job())?.attemptsMade ?? 0, { timeout: 10_000 }).toBeGreaterThan(0);
    expect((await job())?.failedReason).toBe(`waiting for submission ${inFlight?.id} to finish`);
    expect(await requestRow(requestId)).toMatchObject({
      completedAt: null,
      subject: expect.stringMatching(/^v2\./),
    });
    expect(await disputeRow(tenant, dispute.id)).toMatchObject({ customerEmail: who.email });
    expect((await submissionsOf([uid]))[0]?.evidence).toEqual(inFlight?.evidence);

    // The processor recovers: the same attempt goes out with its stored document, then the removal runs.
    await writeDispute(tenant, dispute.id, { charge: `ch_recovered_${Date.now()}` });
    expect((await submitting).status).toBe(201);
    const done = await removalDone(requestId);
    expect(done).toMatchObject({ subject: null, summary: { disputes: 1, submissions: 1, documents: 1 } });

    const accepted = acceptedSubmissions(api, dispute.id);
    expect(accepted.map((recorded) => recorded.request.idempotencyKey)).toEqual([inFlight?.id]);
    const [sent] = accepted;
    expect(JSON.stringify(sent?.request.evidence)).toContain(who.email);
    expect((await pageTexts(sent?.request.response.document.pdf ?? Buffer.alloc(0))).join(' ')).toContain(
      who.name,
    );

    const [finished] = await submissionsOf([uid]);
    expect(finished).toMatchObject({ id: inFlight?.id, status: 'succeeded' });
    expect(JSON.stringify(finished?.evidence)).not.toMatch(/hopper/i);
    expect(finished?.documentSha256).not.toBe(sent?.request.response.document.sha256);
    const [document] = await api.db.db.select().from(documents).where(eq(documents.disputeUid, uid));
    expect(document?.sha256).toBe(finished?.documentSha256);
    expect(JSON.stringify([document?.input, document?.evidence])).not.toMatch(/hopper/i);
    expect((await pageTexts(document?.pdf ?? Buffer.alloc(0))).join(' ')).not.toMatch(/hopper/i);
    const eventRows = await api.db.db.select().from(events).where(eq(events.disputeUid, uid));
    expect(eventRows.map((event) => event.type)).toEqual(
      expect.arrayContaining(['dispute.submitted', 'dispute.response.generated']),
    );
    expect(JSON.stringify(eventRows.map((event) => event.data))).not.toMatch(/hopper|198\.51\.100\.41/i);
    expect(await disputeRow(tenant, dispute.id)).toMatchObject({
      state: 'submitted',
      customerName: null,
      customerEmail: null,
    });
  });

  it("clears only the person's customer attributes: a customer who shares the name keeps theirs", async () => {
    const who = person('Ada', 'Byron', '198.51.100.51');
    const tenant = tenantOf(await api.createOrg(), 'test');
    const theirs = await createTestDispute(api, tenant.key);
    await writeDispute(tenant, theirs.id, {
      customerName: who.name,
      customerEmail: who.email,
      customerPurchaseIp: who.ip,
      addressZip: 'W8 5HN',
    });
    const namesake = await createTestDispute(api, tenant.key);
    const namesakeCustomer = {
      customerName: who.name,
      customerEmail: 'a.byron@elsewhere.example',
      customerPurchaseIp: '198.51.100.52',
      addressZip: 'EH1 1YZ',
    };
    await writeDispute(tenant, namesake.id, {
      ...namesakeCustomer,
      fields: { note: `Not to be confused with ${who.email}.` },
    });
    // No customer email: the name decides.
    const unnamed = await createTestDispute(api, tenant.key);
    await writeDispute(tenant, unnamed.id, {
      customerName: who.name.toUpperCase(),
      customerEmail: null,
      customerPurchaseIp: '198.51.100.53',
    });

    const removed = await removeAndWait(tenant.key, { email: who.email, name: who.name });

    expect(await disputeRow(tenant, theirs.id)).toMatchObject({
      customerName: null,
      customerEmail: null,
      customerPurchaseIp: null,
      addressZip: null,
    });
    expect(await disputeRow(tenant, unnamed.id)).toMatchObject({
      customerName: null,
      customerPurchaseIp: null,
    });
    expect(await disputeRow(tenant, namesake.id)).toMatchObject({
      ...namesakeCustomer,
      fields: { note: 'Not to be confused with [redacted].' },
    });
    expect((await requestRow(String(removed.body.id)))?.summary).toMatchObject({ disputes: 3 });
  });

  it('a removal whose job never reached Redis is enqueued by the deadline sweep once a minute old', async () => {
    const who = person('Katherine', 'Johnson', '198.51.100.61');
    const tenant = tenantOf(await api.createOrg(), 'test');
    const dispute = await createTestDispute(api, tenant.key);
    await writeDispute(tenant, dispute.id, { customerEmail: who.email });
    const lost = { dispatch: async () => {} };
    const request = await requestRemoval(
      { db: api.db.db, secrets: api.deps.secrets, removals: lost, now: () => new Date(Date.now() - 120_000) },
      { orgId: tenant.org, livemode: false },
      { email: who.email, name: who.name },
    );
    expect(await requestRow(request.id)).toMatchObject({ completedAt: null });

    const report = await sweepDeadlines({
      db: api.db.db,
      submitter: api.deps.submitter,
      removals: api.deps.removals,
      dueSoonMs: 0,
      lookaheadMs: 0,
      unattendedAfterMs: 60_000,
    });
    expect(report.removals).toBe(1);
    expect(await removalDone(request.id)).toMatchObject({ summary: { disputes: 1 } });
    expect(await disputeRow(tenant, dispute.id)).toMatchObject({ customerEmail: null });
  });

  it('a removal that can never run (sealed under another APP_SECRET) is recorded failed and left to on-call', async () => {
    const who = person('Mary', 'Jackson', '198.51.100.62');
    const tenant = tenantOf(await api.createOrg(), 'test');
    const dispute = await createTestDispute(api, tenant.key);
    await writeDispute(tenant, dispute.id, { customerEmail: who.email });
    const request = await requestRemoval(
      {
        db: api.db.db,
        secrets: new SecretBox('another-app-secret-of-at-least-32-characters'),
        removals: { dispatch: async () => {} },
        now: () => new Date(Date.now() - 120_000),
      },
      { orgId: tenant.org, livemode: false },
      { email: who.email, name: who.name },
    );
    const outcome = await carryOutRemoval({ db: api.db.db, secrets: api.deps.secrets }, request.id);
    expect(outcome).toEqual({
      status: 'failed',
      reason: `the subject of removal ${request.id} cannot be opened: this process has a different APP_SECRET`,
    });
    expect(await requestRow(request.id)).toMatchObject({
      completedAt: null,
      failure: `the subject of removal ${request.id} cannot be opened: this process has a different APP_SECRET`,
    });
    // The sweep leaves it alone: running it again cannot help until someone sets the right APP_SECRET.
    expect(await waitingRemovals(api.db.db, 60_000)).not.toContain(request.id);
    expect(await disputeRow(tenant, dispute.id)).toMatchObject({ customerEmail: who.email });
  });
});

async function eventsOf(tenant: Tenant): Promise<number> {
  const rows = await api.db.db
    .select({ id: events.id })
    .from(events)
    .where(and(eq(events.orgId, tenant.org), eq(events.livemode, tenant.livemode)));
  return rows.length;
}

async function submissionsOf(disputeUids: string[]) {
  return api.db.db
    .select()
    .from(submissions)
    .where(inArray(submissions.disputeUid, disputeUids))
    .orderBy(submissions.createdAt);
}
