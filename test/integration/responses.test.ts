import { createHash } from 'node:crypto';
import { request } from 'node:https';
import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { disputes as disputesTable, documents, events, submissions } from '../../src/db/schema/index.js';
import { MockAdapter } from '../../src/processors/mock/adapter.js';
import type { SubmitEvidenceRequest } from '../../src/processors/types.js';
import { startTestApi, type TestApi } from '../helpers/api.js';
import {
  acceptedSubmissions,
  createTemplate,
  type Dispute,
  daysFromNow,
  expectError,
  newTenant,
  readStored,
  submittableDispute,
  type Tenant,
  uniqueId,
} from '../helpers/disputes.js';
import { receivingEndpoint } from '../helpers/webhooks.js';

/** The mock processor, with a moment during its call where a test can change the world. */
class InterruptibleMock extends MockAdapter {
  duringCall: ((request: SubmitEvidenceRequest) => Promise<void>) | undefined;

  override async submitEvidence(request: SubmitEvidenceRequest) {
    await this.duringCall?.(request);
    return super.submitEvidence(request);
  }
}

const mock = new InterruptibleMock();
let api: TestApi;
let tenant: Tenant;
beforeAll(async () => {
  api = await startTestApi({ env: { SUBMIT_WAIT_MS: '5000' }, mock });
  tenant = await newTenant(api);
});
afterAll(async () => {
  await api.close();
});

interface ResponseObject {
  object: string;
  dispute?: string;
  charge?: string | null;
  account_id?: string | null;
  dispute_id?: string;
  external_charge?: string | null;
  user_id?: string | null;
  evidence: Record<string, unknown>;
  response_url: string;
  livemode: boolean;
  url: string;
}

/** Where links point without PUBLIC_URL: the configured listener (PORT), not where the request went. */
const listener = () => `https://localhost:${api.config.PORT}`;

/**
 * GETs a link over HTTPS, as a browser would: no API key. The links name the configured listener (PORT);
 * this file's server listens on a port of its own, so the same path and query go to it.
 */
function download(link: string, method = 'GET') {
  const { pathname, search } = new URL(link);
  const url = `${api.origin}${pathname}${search}`;
  return new Promise<{ status: number; type: string | undefined; body: Buffer }>((resolve, reject) => {
    const req = request(url, { method, rejectUnauthorized: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () =>
        resolve({
          status: res.statusCode ?? 0,
          type: res.headers['content-type'],
          body: Buffer.concat(chunks),
        }),
      );
    });
    req.on('error', reject);
    req.end();
  });
}

const json = (body: Buffer) => JSON.parse(body.toString('utf8')) as Record<string, unknown>;

async function submitted(overrides: Record<string, unknown> = {}): Promise<Dispute> {
  const { dispute } = await submittableDispute(api, tenant, overrides);
  const response = await api.call<Dispute>('POST', `/v1/disputes/${dispute.id}/submit`, {
    key: tenant.key,
    json: { products: [{ name: 'Blue mug', quantity: 2, amount: 1500 }] },
  });
  expect(response.status, response.text).toBe(201);
  return response.body;
}

const getResponse = (id: string, headers?: Record<string, string>) =>
  api.call<ResponseObject>('GET', `/v1/disputes/${id}/response`, {
    key: tenant.key,
    ...(headers && { headers }),
  });

describe('GET /v1/disputes/:id/response', () => {
  it('answers the evidence sent and a signed link that serves the PDF the processor received', async () => {
    const dispute = await submitted();
    const response = await getResponse(dispute.id);
    expect(response.status, response.text).toBe(200);
    expect(response.body).toEqual({
      object: 'response',
      dispute: dispute.id,
      charge: dispute.charge,
      account_id: null,
      evidence: expect.objectContaining({ order_id: 'A-1001' }),
      response_url: expect.stringMatching(
        new RegExp(`^${listener()}/v1/documents/doc_[0-9a-z]{20}\\?expires=\\d+&signature=`),
      ),
      files: [],
      livemode: false,
      url: `/v1/disputes/${dispute.id}/response`,
    });

    const pdf = await download(response.body.response_url);
    expect(pdf.status).toBe(200);
    expect(pdf.type).toBe('application/pdf');
    expect(pdf.body.subarray(0, 5).toString()).toBe('%PDF-');
    const [sent] = acceptedSubmissions(api, dispute.id);
    expect(sent?.request.response.document.pdf.equals(pdf.body)).toBe(true);
    expect(sent?.request.response.evidence).toEqual(response.body.evidence);

    const stored = await readStored(api, tenant, dispute.id);
    const [submission] = await api.db.db
      .select()
      .from(submissions)
      .where(eq(submissions.disputeUid, stored.uid));
    expect(submission?.documentSha256).toBe(createHash('sha256').update(pdf.body).digest('hex'));
  });

  it('stores the PDF as sent, out of line and never compressed: PDFs and images are compressed already', async () => {
    const dispute = await submitted();
    const stored = await readStored(api, tenant, dispute.id);
    const [document] = await api.db.sql<{ bytes: number; stored: number }[]>`
      select octet_length(pdf) as bytes, pg_column_size(pdf) as stored from documents
      where dispute_uid = ${stored.uid}`;
    expect(document?.stored).toBe(document?.bytes);
    // EXTERNAL: Postgres does not spend a pglz attempt on each value before storing it as it is.
    const storage = await api.db.sql<{ column: string; storage: string }[]>`
      select attrelid::regclass || '.' || attname as column, attstorage as storage from pg_attribute
      where (attrelid, attname) in (('documents'::regclass, 'pdf'), ('file_contents'::regclass, 'content'))
      order by 1`;
    expect(storage).toEqual([
      { column: 'documents.pdf', storage: 'e' },
      { column: 'file_contents.content', storage: 'e' },
    ]);
  });

  it('builds response_url from the configured listener, whatever Host header the request carries', async () => {
    const dispute = await submitted();
    const response = await getResponse(dispute.id, { host: 'attacker.example' });
    expect(response.status, response.text).toBe(200);
    expect(new URL(response.body.response_url).origin).toBe(listener());
  });

  it('names the references both as versions before 2017-10-30 did and as today', async () => {
    const dispute = await submitted();
    const response = await getResponse(dispute.id, { 'Service-Version': '2016-03-05' });
    expect(response.status).toBe(200);
    expect(response.body).toEqual({
      object: 'response',
      dispute_id: dispute.id,
      external_charge: dispute.charge,
      user_id: null,
      dispute: dispute.id,
      charge: dispute.charge,
      account_id: null,
      evidence: expect.objectContaining({ order_id: 'A-1001' }),
      response_url: expect.stringMatching(/\/v1\/documents\/doc_[0-9a-z]{20}\?expires=\d+&signature=/),
      files: [],
      livemode: false,
      url: `/v1/disputes/${dispute.id}/response`,
    });
  });

  it('answers 404 response_not_found before the dispute has been submitted', async () => {
    const { dispute } = await submittableDispute(api, tenant);
    expectError(await getResponse(dispute.id), 404, 'response_not_found', {
      url: `/v1/disputes/${dispute.id}/response`,
    });
  });

  it('answers 404 dispute_not_found for an unknown dispute and for another tenant’s', async () => {
    expectError(await getResponse('dp_nobody'), 404, 'dispute_not_found');
    const dispute = await submitted();
    const other = await newTenant(api);
    const response = await api.call('GET', `/v1/disputes/${dispute.id}/response`, { key: other.key });
    expectError(response, 404, 'dispute_not_found');
  });

  it('serves a standalone dispute’s response once it is submitted (source api)', async () => {
    const template = await createTemplate(api, tenant.key, [
      { key: 'order_id', type: 'text', required: true },
    ]);
    const id = uniqueId('dp_api');
    const created = await api.call<Dispute>('POST', '/v1/disputes', {
      key: tenant.key,
      json: {
        id,
        charge: 'ch_standalone',
        reason: 'fraudulent',
        charged_at: daysFromNow(-20),
        disputed_at: daysFromNow(-2),
        due_by: daysFromNow(10),
        currency: 'usd',
        amount: 4999,
        template,
        fields: { order_id: 'S-1' },
        submit: true,
      },
    });
    expect(created.status, created.text).toBe(201);
    expect(created.body.state).toBe('submitted');
    const response = await getResponse(id);
    expect(response.status).toBe(200);
    expect(response.body.evidence).toMatchObject({ order_id: 'S-1' });
    expect((await download(response.body.response_url)).status).toBe(200);
  });
});

describe('signed document links', () => {
  let link: URL;
  beforeAll(async () => {
    const dispute = await submitted();
    link = new URL((await getResponse(dispute.id)).body.response_url);
  });

  const variant = (change: (url: URL) => void) => {
    const url = new URL(link);
    change(url);
    return url.toString();
  };

  it.each([
    [
      'another signature',
      (url: URL) => url.searchParams.set('signature', `x${url.searchParams.get('signature')?.slice(1)}`),
    ],
    [
      'a later expiry',
      (url: URL) => url.searchParams.set('expires', String(Number(url.searchParams.get('expires')) + 3600)),
    ],
    [
      'another document',
      (url: URL) => (url.pathname = url.pathname.replace(/doc_[0-9a-z]{20}/, 'doc_aaaaaaaaaaaaaaaaaaaa')),
    ],
    ['no signature', (url: URL) => url.searchParams.delete('signature')],
    ['no expiry', (url: URL) => url.searchParams.delete('expires')],
  ])('refuses a link with %s: 403 invalid_link', async (_name, change) => {
    const url = variant(change);
    const answer = await download(url);
    expect(answer.status).toBe(403);
    expect(answer.type).toMatch(/^application\/json/);
    expect(json(answer.body)).toEqual({
      url: new URL(url).pathname,
      livemode: false,
      error: { status: 403, type: 'invalid_link', message: 'This document link is not valid.' },
    });
  });

  it('refuses an expired link: 403 invalid_link', async () => {
    const id = link.pathname.split('/').at(-1) ?? '';
    const old = api.deps.links.url(id, new Date(Date.now() - 2 * 3600_000));
    const answer = await download(old);
    expect(answer.status).toBe(403);
    expect(json(answer.body)).toMatchObject({
      error: { status: 403, type: 'invalid_link', message: 'This document link has expired.' },
    });
  });

  it('answers 405 to other methods and 403 insecure_connection over plain HTTP', async () => {
    const post = await download(link.toString(), 'POST');
    expect(post.status).toBe(405);
    expect(json(post.body)).toMatchObject({ error: { type: 'method_not_allowed' } });
    const plain = await api.callPlain('GET', `${link.pathname}${link.search}`);
    expect(plain.status).toBe(403);
    expect(plain.body).toMatchObject({ error: { type: 'insecure_connection' } });
  });
});

describe('the response package and its webhook', () => {
  it.each([
    ['2021-09-15', (dispute: Dispute) => ({ dispute: dispute.id, charge: dispute.charge, account_id: null })],
    [
      '2016-03-05',
      (dispute: Dispute) => ({
        dispute_id: dispute.id,
        external_charge: dispute.charge,
        user_id: null,
        dispute: dispute.id,
        charge: dispute.charge,
        account_id: null,
      }),
    ],
  ])(
    'sends dispute.response.generated to an endpoint on %s with the evidence and a working response_url',
    async (version, references) => {
      const other = await newTenant(api);
      const endpoint = await receivingEndpoint(api, other.key, {
        events: ['dispute.response.generated'],
        api_version: version,
      });
      const { dispute } = await submittableDispute(api, other);
      const response = await api.call('POST', `/v1/disputes/${dispute.id}/submit`, { key: other.key });
      expect(response.status, response.text).toBe(201);
      const [hook] = await endpoint.receiver.waitFor(1);
      expect(hook?.verified).toBe(true);
      expect(hook?.payload).toEqual({
        id: expect.stringMatching(/^wh_/),
        type: 'dispute.response.generated',
        object: 'webhook',
        livemode: false,
        ...references(dispute),
        evidence: expect.objectContaining({ order_id: 'A-1001' }),
        response_url: expect.stringMatching(/\/v1\/documents\/doc_/),
        files: [],
      });
      // With PUBLIC_URL unset, webhook links point at the configured listener too.
      const link = new URL(String(hook?.payload.response_url));
      expect(link.origin).toBe(listener());
      const pdf = await download(link.toString());
      expect(pdf.status).toBe(200);
      expect(pdf.body.subarray(0, 5).toString()).toBe('%PDF-');
      await endpoint.receiver.close();
    },
  );

  it('records dispute.response.generated once for a success after retries, and never for a refusal', async () => {
    const flaky = await submitted({ charge: `ch_mock_flaky_${uniqueId('c')}` });
    expect(await responseEvents(flaky.id)).toBe(1);
    const { dispute: refused } = await submittableDispute(api, tenant, {
      charge: `ch_mock_refuse_${uniqueId('c')}`,
    });
    const answer = await api.call('POST', `/v1/disputes/${refused.id}/submit`, { key: tenant.key });
    expectError(answer, 502, 'processor_error');
    expect(await responseEvents(refused.id)).toBe(0);
    // The refused attempt's package is still the dispute's latest response: what was sent, and refused.
    expect((await getResponse(refused.id)).status).toBe(200);
  });

  it('records dispute.response.generated for a success on a dispute the processor decided meanwhile', async () => {
    const { dispute } = await submittableDispute(api, tenant);
    // The mirror learns the outcome while the evidence is on its way: the dispute is won.
    mock.duringCall = async (call) => {
      if (call.dispute.id !== dispute.id) return;
      await api.db.db.update(disputesTable).set({ state: 'won' }).where(eq(disputesTable.id, dispute.id));
    };
    try {
      const answer = await api.call('POST', `/v1/disputes/${dispute.id}/submit`, { key: tenant.key });
      expect(answer.status, answer.text).toBe(201);
    } finally {
      mock.duringCall = undefined;
    }
    expect((await readStored(api, tenant, dispute.id)).state).toBe('won');
    expect(await responseEvents(dispute.id)).toBe(1);
    expect((await getResponse(dispute.id)).status).toBe(200);
  });

  it('sends the stored document again when a retry follows an outage, and keeps one document', async () => {
    const dispute = await submitted({ charge: `ch_mock_flaky_${uniqueId('c')}` });
    const stored = await readStored(api, tenant, dispute.id);
    const rows = await api.db.db.select().from(documents).where(eq(documents.disputeUid, stored.uid));
    expect(rows).toHaveLength(1);
    const [sent] = acceptedSubmissions(api, dispute.id);
    expect(sent?.request.response.document.sha256).toBe(rows[0]?.sha256);
    expect(sent?.request.response.document.id).toBe(rows[0]?.id);
  });
});

async function responseEvents(disputeId: string): Promise<number> {
  const stored = await readStored(api, tenant, disputeId);
  const rows = await api.db.db
    .select({ id: events.id })
    .from(events)
    .where(and(eq(events.disputeUid, stored.uid), eq(events.type, 'dispute.response.generated')));
  return rows.length;
}
