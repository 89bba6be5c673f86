import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { renderPool } from '../../src/documents/render-pool.js';
import { buildEvidenceDocument } from '../../src/domain/evidence-document.js';
import { startTestApi, type TestApi } from '../helpers/api.js';
import {
  acceptedSubmissions,
  createTemplate,
  createTestDispute,
  type Dispute,
  daysFromNow,
  type ErrorBody,
  expectError,
  getDispute,
  type Json,
  newTenant,
  orderTemplate,
  readStored,
  submittableDispute,
  type Tenant,
  timestampPattern,
} from '../helpers/disputes.js';
import { fullSubmission } from '../helpers/evidence-documents.js';

let api: TestApi;
let tenant: Tenant;
beforeAll(async () => {
  // A wait shorter than the default keeps the 202 test (a processor that stays unavailable) quick, and
  // long enough that a loaded CI machine still answers the 201s in it (1.5 s left little margin).
  api = await startTestApi({ env: { SUBMIT_WAIT_MS: '5000' } });
  tenant = await newTenant(api);
  // Starting the process's first render thread (loading the PDF engine, from source in tests) is not what
  // a 201 here is about, and on a busy machine it can take the wait.
  await renderPool().render(buildEvidenceDocument(fullSubmission(1)), tenant.org);
});
afterAll(async () => {
  await api.close();
});

const submit = (id: string, json: Json = {}, headers?: Record<string, string>) =>
  api.call<Dispute>('POST', `/v1/disputes/${id}/submit`, {
    key: tenant.key,
    json,
    ...(headers && { headers }),
  });

const product = { name: 'Blue mug', quantity: 1, amount: 1500 };

/**
 * Nothing of this dispute was prepared or reached the processor. Per dispute, not by the mock's call
 * count: the background retries of an unavailable processor's test go on while later tests run.
 */
async function expectNothingSent(id: string): Promise<void> {
  expect(acceptedSubmissions(api, id)).toHaveLength(0);
  const prepared = await api.db.sql`select 1 from submissions s join disputes d on d.uid = s.dispute_uid
    where d.org_id = ${tenant.org} and d.id = ${id}`;
  expect(prepared).toHaveLength(0);
}

describe('POST /v1/disputes/:id/submit: success', () => {
  it('answers 201 submitted, and the processor receives the evidence exactly once', async () => {
    const { dispute, template } = await submittableDispute(api, tenant);
    const calls = api.mock.calls;
    const response = await submit(dispute.id, {
      fields: { note: 'with the submission' },
      products: [product],
      reference_url: 'https://shop.example/o/1',
    });
    expect(response.status).toBe(201);
    expect(response.body).toMatchObject({
      object: 'dispute',
      id: dispute.id,
      url: `/v1/disputes/${dispute.id}/submit`,
      livemode: false,
      state: 'submitted',
      submitted_count: 1,
      template,
      fields: { order_id: 'A-1001', note: 'with the submission' },
      products: [product],
    });
    expect(response.body.submitted_at).toMatch(timestampPattern);
    expect(api.mock.calls - calls).toBe(1);
    const sent = acceptedSubmissions(api, dispute.id);
    expect(sent).toHaveLength(1);
    expect(sent[0]?.request).toMatchObject({
      dispute: { id: dispute.id, charge: dispute.charge },
      evidence: {
        template,
        fields: { order_id: 'A-1001', note: 'with the submission' },
        products: [product],
        correspondence: [],
        pastPayments: [],
        referenceUrl: 'https://shop.example/o/1',
      },
    });
    expect(await getDispute(api, tenant.key, dispute.id)).toMatchObject({
      state: 'submitted',
      submitted_count: 1,
    });
  });

  it('counts a required field the dispute already knows (customer_email) as provided', async () => {
    const template = await createTemplate(api, tenant.key, [
      { key: 'customer_email', type: 'email', required: true },
      { key: 'customer_name', type: 'text', required: true },
    ]);
    const dispute = await createTestDispute(api, tenant.key, { due_by: daysFromNow(10) });
    const response = await submit(dispute.id, { template });
    expect(response.status).toBe(201);
    expect(response.body.state).toBe('submitted');
  });

  it('sets the account when given one', async () => {
    const { dispute } = await submittableDispute(api, tenant);
    const response = await submit(dispute.id, { account: 'acct_answering' });
    expect(response.status).toBe(201);
    expect(response.body.account).toBe('acct_answering');
  });

  it('with queue=true queues instead of submitting', async () => {
    const { dispute } = await submittableDispute(api, tenant);
    const calls = api.mock.calls;
    const response = await submit(dispute.id, { queue: true });
    // Queueing submits nothing yet: 200 (the contract names no status for it).
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({ state: 'queued', submitted_count: 0, submitted_at: null });
    expect(api.mock.calls).toBe(calls);
    const stored = await readStored(api, tenant, dispute.id);
    expect(stored.submitAt).not.toBeNull();
  });

  it('submits a queued dispute at once', async () => {
    const { dispute } = await submittableDispute(api, tenant);
    await submit(dispute.id, { queue: true });
    const response = await submit(dispute.id);
    expect(response.status).toBe(201);
    expect(response.body).toMatchObject({ state: 'submitted', submitted_count: 1 });
    expect((await readStored(api, tenant, dispute.id)).submitAt).toBeNull();
  });
});

describe('POST /v1/disputes/:id/submit: refusals', () => {
  it('answers 400 missing_template without a template', async () => {
    const dispute = await createTestDispute(api, tenant.key, { due_by: daysFromNow(10) });
    const calls = api.mock.calls;
    expectError(await submit(dispute.id), 400, 'missing_template', {
      url: `/v1/disputes/${dispute.id}/submit`,
    });
    expect(await getDispute(api, tenant.key, dispute.id)).toMatchObject({ state: 'needs_response' });
    expect(api.mock.calls).toBe(calls);
  });

  it('answers 400 missing_fields naming the fields, and keeps the parameters it saved', async () => {
    const template = await createTemplate(api, tenant.key, [
      { key: 'order_id', type: 'text', required: true },
      { key: 'tracking', type: 'url', required: true },
    ]);
    const dispute = await createTestDispute(api, tenant.key, { due_by: daysFromNow(10) });
    const calls = api.mock.calls;
    const response = await submit(dispute.id, {
      template,
      fields: { order_id: 'A-7' },
      products: [product],
      reference_url: 'https://shop.example/o/7',
    });
    expectError(response, 400, 'missing_fields', { url: `/v1/disputes/${dispute.id}/submit` });
    expect((response.body as unknown as ErrorBody).error.message).toContain('tracking');
    expect(api.mock.calls).toBe(calls);
    expect(await getDispute(api, tenant.key, dispute.id)).toMatchObject({
      state: 'needs_response',
      template,
      fields: { order_id: 'A-7' },
      products: [product],
      reference_url: 'https://shop.example/o/7',
      missing_fields: { tracking: 'url' },
      submitted_count: 0,
    });
  });

  it('answers 400 dispute_overdue when due_by has passed, and keeps the parameters', async () => {
    const { dispute } = await submittableDispute(api, tenant, { due_by: daysFromNow(-1) });
    const calls = api.mock.calls;
    expectError(await submit(dispute.id, { fields: { note: 'late' } }), 400, 'dispute_overdue');
    expect(api.mock.calls).toBe(calls);
    expect(await getDispute(api, tenant.key, dispute.id)).toMatchObject({
      state: 'needs_response',
      fields: { order_id: 'A-1001', note: 'late' },
    });
  });

  it('answers 400 template_not_found when the named template has been deleted', async () => {
    const { dispute, template } = await submittableDispute(api, tenant);
    expect((await api.call('DELETE', `/v1/templates/${template}`, { key: tenant.key })).status).toBe(200);
    expectError(await submit(dispute.id), 400, 'template_not_found');
    expect((await getDispute(api, tenant.key, dispute.id)).state).toBe('needs_response');
  });

  it('answers 400 with invalid input and saves nothing', async () => {
    const { dispute } = await submittableDispute(api, tenant);
    const before = await getDispute(api, tenant.key, dispute.id);
    const response = await submit(dispute.id, {
      fields: { note: 'x' },
      products: [{ name: 'no amount', quantity: 1 }],
    });
    expectError(response, 400, 'invalid_products');
    expect(await getDispute(api, tenant.key, dispute.id)).toEqual(before);
  });

  it('answers 404 dispute_not_found for an unknown dispute', async () => {
    expectError(await submit('dp_nope'), 404, 'dispute_not_found', { url: '/v1/disputes/dp_nope/submit' });
  });
});

describe('POST /v1/disputes/:id/submit: the processor', () => {
  it('answers 502 processor_error when the processor refuses; state goes back, evidence stays', async () => {
    const { dispute } = await submittableDispute(api, tenant, { charge: `ch_mock_refuse_${Date.now()}` });
    const calls = api.mock.calls;
    const response = await submit(dispute.id, { fields: { note: 'refused evidence' } });
    expectError(response, 502, 'processor_error', { url: `/v1/disputes/${dispute.id}/submit` });
    expect((response.body as unknown as ErrorBody).error.message).toContain('charge is marked to refuse');
    expect(api.mock.calls - calls).toBe(1);
    expect(await getDispute(api, tenant.key, dispute.id)).toMatchObject({
      state: 'needs_response',
      submitted_count: 0,
      submitted_at: null,
      fields: { order_id: 'A-1001', note: 'refused evidence' },
    });
  });

  it('returns a refused queued dispute to queued', async () => {
    const { dispute } = await submittableDispute(api, tenant, { charge: `ch_mock_refuse_${Date.now()}` });
    await submit(dispute.id, { queue: true });
    expectError(await submit(dispute.id), 502, 'processor_error');
    expect((await getDispute(api, tenant.key, dispute.id)).state).toBe('queued');
  });

  it('answers 202 compiling_evidence while an unavailable processor is retried in the background', async () => {
    const { dispute } = await submittableDispute(api, tenant, {
      charge: `ch_mock_unavailable_${Date.now()}`,
    });
    const response = await submit(dispute.id);
    expect(response.status).toBe(202);
    expect(response.body).toMatchObject({ id: dispute.id, state: 'compiling_evidence', submitted_count: 0 });
    expect((await getDispute(api, tenant.key, dispute.id)).state).toBe('compiling_evidence');
  });
});

describe('POST /v1/disputes/:id/submit: held disputes', () => {
  it('requires_review: 202 and unchanged state without force', async () => {
    const { dispute } = await submittableDispute(api, tenant, { state: 'requires_review' });
    const response = await submit(dispute.id);
    expect(response.status).toBe(202);
    expect(response.body).toMatchObject({ state: 'requires_review', submitted_count: 0 });
    await expectNothingSent(dispute.id);
  });

  it('requires_review: 201 submitted with force=true', async () => {
    const { dispute } = await submittableDispute(api, tenant, { state: 'requires_review' });
    const response = await submit(dispute.id, { force: true });
    expect(response.status).toBe(201);
    expect(response.body).toMatchObject({ state: 'submitted', submitted_count: 1 });
    expect(acceptedSubmissions(api, dispute.id)).toHaveLength(1);
  });

  it('requires_review with queue=true: 202 without force, queued with force', async () => {
    const { dispute } = await submittableDispute(api, tenant, { state: 'requires_review' });
    const held = await submit(dispute.id, { queue: true });
    expect(held.status).toBe(202);
    expect(held.body.state).toBe('requires_review');
    const queued = await submit(dispute.id, { queue: true, force: true });
    expect(queued.status).toBe(200);
    expect(queued.body.state).toBe('queued');
  });

  for (const version of ['2020-02-28', '2021-09-15']) {
    it(`accepted with Service-Version ${version}: 202 and stays accepted without force`, async () => {
      const { dispute } = await submittableDispute(api, tenant, { state: 'accepted' });
      const response = await submit(dispute.id, {}, { 'Service-Version': version });
      expect(response.status).toBe(202);
      expect(response.body).toMatchObject({ state: 'accepted', submitted_count: 0 });
      await expectNothingSent(dispute.id);
    });

    it(`accepted with Service-Version ${version}: 201 with force=true`, async () => {
      const { dispute } = await submittableDispute(api, tenant, { state: 'accepted' });
      const response = await submit(dispute.id, { force: true }, { 'Service-Version': version });
      expect(response.status).toBe(201);
      expect(response.body).toMatchObject({ state: 'submitted', submitted_count: 1 });
    });
  }

  for (const version of ['2016-03-05', '2017-10-30']) {
    it(`accepted with Service-Version ${version}: submits normally (201)`, async () => {
      const { dispute } = await submittableDispute(api, tenant, { state: 'accepted' });
      const response = await submit(dispute.id, {}, { 'Service-Version': version });
      expect(response.status).toBe(201);
      expect(response.body).toMatchObject({ state: 'submitted', submitted_count: 1 });
      expect(acceptedSubmissions(api, dispute.id)).toHaveLength(1);
    });
  }

  it('accepted without a header follows the organisation default (2021-09-15): 202', async () => {
    const { dispute } = await submittableDispute(api, tenant, { state: 'accepted' });
    const response = await submit(dispute.id);
    expect(response.status).toBe(202);
    expect(response.body.state).toBe('accepted');
  });

  it('a held submit still saves the parameters sent with it', async () => {
    const { dispute } = await submittableDispute(api, tenant, { state: 'requires_review' });
    const response = await submit(dispute.id, { fields: { note: 'for the reviewer' } });
    expect(response.status).toBe(202);
    expect(response.body.fields).toEqual({ order_id: 'A-1001', note: 'for the reviewer' });
  });

  it('a second submit is refused with 400 dispute_submitted', async () => {
    const template = await orderTemplate(api, tenant.key);
    const dispute = await createTestDispute(api, tenant.key, { due_by: daysFromNow(5) });
    expect((await submit(dispute.id, { template, fields: { order_id: 'Z' } })).status).toBe(201);
    expectError(await submit(dispute.id), 400, 'dispute_submitted');
    // The first submission only: one attempt, sent once.
    expect(acceptedSubmissions(api, dispute.id)).toHaveLength(1);
    const attempts = await api.db.sql`select 1 from submissions s join disputes d on d.uid = s.dispute_uid
      where d.org_id = ${tenant.org} and d.id = ${dispute.id}`;
    expect(attempts).toHaveLength(1);
  });
});

describe('POST /v1/disputes/:id/submit with queue=true', () => {
  it('keeps the parameters it was sent when the queueing is then refused, as a submit does', async () => {
    const template = await orderTemplate(api, tenant.key);
    const dispute = await createTestDispute(api, tenant.key, { due_by: daysFromNow(10) });
    expectError(
      await submit(dispute.id, { queue: true, template, products: [product] }),
      400,
      'missing_fields',
    );
    expect(await getDispute(api, tenant.key, dispute.id)).toMatchObject({
      state: 'needs_response',
      template,
      products: [product],
    });
  });
});

describe('POST /v1/disputes/:id/submit with account', () => {
  it('names the connected account of a dispute that has none', async () => {
    const { dispute } = await submittableDispute(api, tenant);
    const response = await submit(dispute.id, { account: 'acct_b' });
    expect(response.status).toBe(201);
    expect(response.body.account).toBe('acct_b');
  });

  it('refuses another account than the one a dispute belongs to, changing nothing', async () => {
    const { dispute } = await submittableDispute(api, tenant, { account: 'acct_a' });
    const response = await submit(dispute.id, { account: 'acct_b', products: [product] });
    expectError(response, 400, 'invalid_request');
    expect((response.body as unknown as ErrorBody).error.message).toBe(
      `Dispute '${dispute.id}' belongs to account 'acct_a'.`,
    );
    expect(await getDispute(api, tenant.key, dispute.id)).toEqual(dispute);
    // Nothing of this dispute reached the processor (other tests' submissions may still be finishing).
    expect(acceptedSubmissions(api, dispute.id)).toHaveLength(0);
    expect(
      await api.db.sql`select 1 from submissions s join disputes d on d.uid = s.dispute_uid
      where d.id = ${dispute.id}`,
    ).toHaveLength(0);
  });
});
