import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { prepareQueuedDisputes } from '../../src/features/disputes/queued.js';
import { setRules } from '../../src/features/rules/rules.js';
import { SubmissionRunner } from '../../src/features/submissions/runner.js';
import { type ApiResponse, startTestApi, type TestApi } from '../helpers/api.js';
import {
  createTestDispute,
  type Dispute,
  daysFromNow,
  getDispute,
  newTenant,
  readStored,
  requiredParams,
  type Tenant,
  uniqueId,
  writeStored,
} from '../helpers/disputes.js';

/**
 * The size limits of the response document (docs/api.md, "The size of the response document"): an
 * oversized combination of a template and a dispute's evidence is refused when either is saved,
 * with 400 invalid_request naming the limit and its setting, and nothing changes. Small limits are
 * configured, as an operator would, so that small bodies cross them.
 */

let api: TestApi;
let tenant: Tenant;
beforeAll(async () => {
  api = await startTestApi({
    workers: [],
    // No waiting on a submit: no worker runs here; the tests run the submission runner themselves.
    env: { DOCUMENT_MAX_CHARACTERS: '20000', DOCUMENT_MAX_PAGES: '3', SUBMIT_WAIT_MS: '0' },
  });
  tenant = await newTenant(api);
});
afterAll(async () => {
  await api.close();
});

const charactersOver =
  /^The response document would be [\d,]+ characters, over the limit of 20,000 \(DOCUMENT_MAX_CHARACTERS\)\.$/;

/** The error body of docs/api.md, "Errors", exactly. */
function expectRefusal(response: ApiResponse<unknown>, url: string, message: string | RegExp): void {
  expect({ status: response.status, body: response.body }).toEqual({
    status: 400,
    body: {
      url,
      livemode: false,
      error: {
        status: 400,
        type: 'invalid_request',
        message: typeof message === 'string' ? message : expect.stringMatching(message),
      },
    },
  });
}

const fields = [
  { key: 'order_id', type: 'text', required: true },
  { key: 'note', type: 'text', required: false },
];
/** 50 lines each holding the note: 450 characters alone, 25,000 with a note of 500. */
const noteFifty = '{{note}}\n'.repeat(50);
const bigNote = 'n'.repeat(500);

async function newTemplate(body: string, owner = tenant): Promise<string> {
  const id = uniqueId('tpl');
  const response = await api.call('POST', '/v1/templates', {
    key: owner.key,
    json: { id, name: 'Letter', fields, body },
  });
  expect(response.status, response.text).toBe(201);
  return id;
}

/** A needs_response dispute naming `template`, with its required field and `note` filled. */
async function disputeWith(template: string, note: string): Promise<Dispute> {
  const created = await createTestDispute(api, tenant.key, {
    state: 'needs_response',
    due_by: daysFromNow(10),
  });
  await writeStored(api, tenant, created.id, { template, fields: { order_id: 'A-1', note } });
  return getDispute(api, tenant.key, created.id);
}

const templateOf = async (id: string) =>
  (await api.call('GET', `/v1/templates/${id}`, { key: tenant.key })).body as Record<string, unknown>;

describe('template saves', () => {
  it.each([
    // Its body and line break (25,001), the heading 'Big' underlined (7), the separators (5).
    [
      'character',
      'Big',
      'x'.repeat(25_000),
      'of 25,014 characters, over the limit of 20,000 (DOCUMENT_MAX_CHARACTERS)',
    ],
    // 401 lines of 12.5 pt under the title and the heading, and a tenth for page breaks.
    ['page', 'Long', 'x\n'.repeat(400), 'of about 9 pages, over the limit of 3 (DOCUMENT_MAX_PAGES)'],
  ])(
    'refuse a template whose own text is over the %s limit, and create nothing',
    async (_, name, body, size) => {
      const id = uniqueId('tpl');
      const response = await api.call('POST', '/v1/templates', { key: tenant.key, json: { id, name, body } });
      expectRefusal(response, '/v1/templates', `Template '${id}' alone makes a response document ${size}.`);
      expect((await api.call('GET', `/v1/templates/${id}`, { key: tenant.key })).status).toBe(404);
    },
  );

  it('refuse an update that grows a template over a limit, and leave the template as it was', async () => {
    const id = await newTemplate('Short.');
    const before = await templateOf(id);
    const response = await api.call('PUT', `/v1/templates/${id}`, {
      key: tenant.key,
      json: { name: 'Grown', body: 'x'.repeat(25_000) },
    });
    expectRefusal(
      response,
      `/v1/templates/${id}`,
      `Template '${id}' alone makes a response document of 25,018 characters, over the limit of 20,000 (DOCUMENT_MAX_CHARACTERS).`,
    );
    expect(await templateOf(id)).toEqual(before);
  });
});

describe('dispute saves', () => {
  it('refuse an update whose evidence would make the document too big, and change nothing', async () => {
    const template = await newTemplate(noteFifty);
    const dispute = await disputeWith(template, 'short');
    const response = await api.call('PUT', `/v1/disputes/${dispute.id}`, {
      key: tenant.key,
      json: { fields: { note: bigNote } },
    });
    expectRefusal(response, `/v1/disputes/${dispute.id}`, charactersOver);
    expect(await getDispute(api, tenant.key, dispute.id)).toEqual(dispute);
  });

  it('refuse attaching a template that would make the document too big', async () => {
    const small = await newTemplate('{{note}}');
    const big = await newTemplate(noteFifty);
    const dispute = await disputeWith(small, bigNote);
    const response = await api.call('PUT', `/v1/disputes/${dispute.id}`, {
      key: tenant.key,
      json: { template: big },
    });
    expectRefusal(response, `/v1/disputes/${dispute.id}`, charactersOver);
    expect(await getDispute(api, tenant.key, dispute.id)).toEqual(dispute);
  });

  it('refuse a create whose document would be too big, creating nothing', async () => {
    const template = await newTemplate(noteFifty);
    const params = requiredParams({ template, fields: { order_id: 'A-1', note: bigNote } });
    const response = await api.call('POST', '/v1/disputes', { key: tenant.key, json: params });
    expectRefusal(response, '/v1/disputes', charactersOver);
    expect((await api.call('GET', `/v1/disputes/${String(params.id)}`, { key: tenant.key })).status).toBe(
      404,
    );
  });

  it('refuse a create and submit whose template a rule attaches, creating nothing', async () => {
    const own = await newTenant(api);
    const template = await newTemplate(noteFifty, own);
    const rules = [{ when: { reason: 'fraudulent' }, action: 'template', template }];
    await setRules(api.db.db, { org: own.org, mode: 'test', contents: JSON.stringify({ rules }) });
    const params = requiredParams({ fields: { order_id: 'A-1', note: bigNote }, submit: true });
    const response = await api.call('POST', '/v1/disputes', { key: own.key, json: params });
    expectRefusal(response, '/v1/disputes', charactersOver);
    expect((await api.call('GET', `/v1/disputes/${String(params.id)}`, { key: own.key })).status).toBe(404);
  });

  it.each([
    ['a submit', {}],
    ['a queue', { queue: true }],
  ])('refuse %s after the template grew, changing nothing and preparing nothing', async (_, json) => {
    const template = await newTemplate('{{note}}');
    const dispute = await disputeWith(template, bigNote);
    // Within the limit alone (450 characters), over it with this dispute's note.
    const grown = await api.call('PUT', `/v1/templates/${template}`, {
      key: tenant.key,
      json: { body: noteFifty },
    });
    expect(grown.status, grown.text).toBe(200);
    const response = await api.call('POST', `/v1/disputes/${dispute.id}/submit`, { key: tenant.key, json });
    expectRefusal(response, `/v1/disputes/${dispute.id}/submit`, charactersOver);
    expect(await getDispute(api, tenant.key, dispute.id)).toEqual(dispute);
    const prepared = await api.db.sql`select 1 from submissions s join disputes d on d.uid = s.dispute_uid
      where d.org_id = ${tenant.org} and d.id = ${dispute.id}`;
    expect(prepared).toHaveLength(0);
  });
});

describe('a queued dispute whose template grew after it was queued', () => {
  it('is refused when its moment comes, back in needs_response with the reason, and nothing rendered', async () => {
    const template = await newTemplate('{{note}}');
    const dispute = await disputeWith(template, bigNote);
    const queued = await api.call('POST', `/v1/disputes/${dispute.id}/submit`, {
      key: tenant.key,
      json: { queue: true },
    });
    expect(queued.status, queued.text).toBe(200);
    await api.call('PUT', `/v1/templates/${template}`, { key: tenant.key, json: { body: noteFifty } });
    await writeStored(api, tenant, dispute.id, { submitAt: new Date(Date.now() - 1000) });
    const { uid } = await readStored(api, tenant, dispute.id);

    // As the submission worker's submitQueued job calls it; its refusal is the job's permanent failure.
    const [outcome] = await prepareQueuedDisputes(
      {
        db: api.db.db,
        adapters: api.engine.adapters,
        leaseMs: 30_000,
        documentLimits: api.deps.documentLimits,
      },
      [uid],
    );
    expect(outcome).toEqual({ status: 'refused', message: expect.stringMatching(charactersOver) });
    expect((await getDispute(api, tenant.key, dispute.id)).state).toBe('needs_response');
    const prepared = await api.db.sql`select 1 from submissions where dispute_uid = ${uid}`;
    expect(prepared).toHaveLength(0);
  });
});

describe('a submission whose template grew after it was made', () => {
  it('is measured again before it renders, and fails for good without reaching the processor', async () => {
    const template = await newTemplate('{{note}}');
    const dispute = await disputeWith(template, bigNote);
    const submitted = await api.call('POST', `/v1/disputes/${dispute.id}/submit`, { key: tenant.key });
    expect(submitted.status, submitted.text).toBe(202);
    await api.call('PUT', `/v1/templates/${template}`, { key: tenant.key, json: { body: noteFifty } });
    const { uid } = await readStored(api, tenant, dispute.id);
    const [submission] = await api.db.sql<{ id: string }[]>`
      select id from submissions where dispute_uid = ${uid}`;
    const calls = api.mock.calls;

    // As the submission worker's job runs it (and an operator's retry would, days later).
    const runner = new SubmissionRunner({
      ...api.engine,
      leaseMs: 30_000,
      documentLimits: api.deps.documentLimits,
    });
    const outcome = await runner.run(submission?.id ?? '', { failedTries: 0, final: false });
    expect(outcome).toEqual({
      status: 'failed',
      message: expect.stringMatching(/^Not sent: The response document would be [\d,]+ characters/),
      reason: expect.stringMatching(/^mock \(permanent\): Not sent: The response document would be /),
    });
    expect(api.mock.calls).toBe(calls);
    const [row] = await api.db.sql<{ status: string; document_id: string | null }[]>`
      select status, document_id from submissions where id = ${submission?.id ?? ''}`;
    expect(row).toEqual({ status: 'failed', document_id: null });
  });
});
