import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { PaypalAdapter } from '../../../src/processors/paypal/adapter.js';
import {
  type NormalizedDispute,
  type ProcessorConnection,
  ProcessorError,
  PushRejectedError,
} from '../../../src/processors/types.js';
import { multipartParts } from '../../fakes/harness.js';
import {
  type PaypalFake,
  type PaypalFakeDispute,
  type RecordedCall,
  startPaypalFake,
} from '../../fakes/paypal.js';
import { adapterContract, contractSubmission } from '../../helpers/adapter-contract.js';
import { attached, contractFiles, samplePdf, samplePng } from '../../helpers/evidence-files.js';
import { paypalCredentials, processorSpecs } from '../../helpers/processor-specs.js';

const credentials = paypalCredentials;

adapterContract(processorSpecs.paypal);

describe('PayPal specifics', () => {
  let fake: PaypalFake;
  let adapter: PaypalAdapter;
  const account = { uid: '00000000-0000-4000-8000-0000000000aa', id: 'default', livemode: false };

  const connectionWith = (overrides: Partial<ProcessorConnection> = {}): ProcessorConnection => ({
    account,
    credentials: JSON.stringify(credentials),
    baseUrl: fake.server.url,
    readOnly: false,
    ...overrides,
  });
  const callsTo = (path: string | RegExp, method?: string) =>
    fake.calls.filter(
      (call) =>
        (typeof path === 'string' ? call.path === path : path.test(call.path)) &&
        (!method || call.method === method),
    );

  beforeEach(async () => {
    fake = await startPaypalFake();
    adapter = new PaypalAdapter();
  });
  afterEach(async () => {
    vi.useRealTimers();
    await fake.close();
  });

  async function sweep(cursor: string | null, limit = 100) {
    const seen: NormalizedDispute[] = [];
    let at = cursor;
    for (let pages = 0; pages < 100; pages++) {
      const page = await adapter.listDisputes({ connection: connectionWith(), cursor: at, limit });
      seen.push(...page.disputes);
      at = page.nextCursor;
      if (!page.hasMore) return { seen, cursor: at };
    }
    throw new Error('the sweep did not end');
  }

  async function submission(id: string, key: string, evidence?: Record<string, string>) {
    const dispute = await adapter.getDispute({ connection: connectionWith(), id });
    const request = contractSubmission(dispute as NormalizedDispute, connectionWith(), key);
    if (evidence) request.response.evidence = evidence;
    return request;
  }

  describe('OAuth tokens', () => {
    it('asks for a token with the client credentials as HTTP Basic, once for many calls', async () => {
      const [id] = fake.addDisputes(3) as [string];
      await adapter.listDisputes({ connection: connectionWith(), cursor: null, limit: 50 });
      await adapter.getDispute({ connection: connectionWith(), id });
      expect(fake.tokensIssued()).toBe(1);
      const [tokenCall] = callsTo('/v1/oauth2/token');
      const basic = Buffer.from(`${credentials.client_id}:${credentials.client_secret}`).toString('base64');
      expect(tokenCall?.headers.authorization).toBe(`Basic ${basic}`);
      expect(tokenCall?.body.toString()).toBe('grant_type=client_credentials');
      const disputeCall = callsTo(`/v1/customer/disputes/${id}`)[0];
      expect(disputeCall?.headers.authorization).toMatch(/^Bearer A21AA/);
    });

    it('replaces a token PayPal no longer takes, once, and the call succeeds', async () => {
      const [id] = fake.addDisputes(1) as [string];
      await adapter.getDispute({ connection: connectionWith(), id });
      fake.revokeTokens();
      const dispute = await adapter.getDispute({ connection: connectionWith(), id });
      expect(dispute?.id).toBe(id);
      expect(fake.tokensIssued()).toBe(2);
      expect(callsTo(`/v1/customer/disputes/${id}`)).toHaveLength(3);
    });

    it('renews a token shortly before PayPal lets it expire', async () => {
      const [id] = fake.addDisputes(1) as [string];
      await adapter.getDispute({ connection: connectionWith(), id });
      vi.useFakeTimers({ toFake: ['Date'] });
      vi.setSystemTime(Date.now() + (32400 - 600) * 1000);
      await adapter.getDispute({ connection: connectionWith(), id });
      expect(fake.tokensIssued()).toBe(1);
      vi.setSystemTime(Date.now() + 360 * 1000);
      await adapter.getDispute({ connection: connectionWith(), id });
      expect(fake.tokensIssued()).toBe(2);
    });

    it('asks for a token of its own for other credentials of the same account, refused as PayPal refuses them', async () => {
      const [id] = fake.addDisputes(1) as [string];
      await adapter.getDispute({ connection: connectionWith(), id });
      const wrong = JSON.stringify({ ...credentials, client_secret: 'EHwrong-client-secret-00000' });
      const refused = await adapter
        .getDispute({ connection: connectionWith({ credentials: wrong }), id })
        .catch((e) => e);
      expect(refused).toBeInstanceOf(ProcessorError);
      expect(refused).toMatchObject({ status: 401, retryable: false });
      expect(refused.excerpt).toContain('invalid_client');
      expect(await adapter.getDispute({ connection: connectionWith(), id })).not.toBeNull();
      expect(fake.tokensIssued()).toBe(2);
    });

    it('a 429 at the token endpoint is transient, with the wait PayPal asks for', async () => {
      fake.server.inject({
        kind: 'rate-limit',
        value: 9,
        match: (request) => request.path === '/v1/oauth2/token',
      });
      const error = await adapter.getDispute({ connection: connectionWith(), id: 'PP-D-1' }).catch((e) => e);
      expect(error).toMatchObject({ status: 429, retryable: true, retryAfterSeconds: 9 });
      expect(error.excerpt).toContain('RATE_LIMIT_REACHED');
    });
  });

  describe('credentials', () => {
    it('names a missing client_secret and an unknown key', () => {
      expect(adapter.checkCredentials(JSON.stringify({ client_id: 'x' }))).toMatch(/^client_secret: /);
      expect(adapter.checkCredentials(JSON.stringify({ ...credentials, webhookId: 'x' }))).toContain(
        'webhookId',
      );
      expect(adapter.checkCredentials(JSON.stringify({ client_id: 'a', client_secret: 'b' }))).toBeNull();
    });
  });

  describe('listing', () => {
    it('asks for 50 disputes a page updated since its bound, then follows the next link on its own host', async () => {
      fake.addDisputes(120);
      const { seen } = await sweep(null);
      expect(new Set(seen.map((dispute) => dispute.id)).size).toBe(120);
      const pages = callsTo('/v1/customer/disputes');
      expect(pages).toHaveLength(3);
      expect(pages[0]?.query.get('page_size')).toBe('50');
      const after = Date.parse(pages[0]?.query.get('update_time_after') ?? '');
      expect(Date.now() - 180 * 24 * 3600_000 + 3600_000 - after).toBeLessThan(60_000);
      expect(pages[1]?.query.get('next_page_token')).toBe(Buffer.from('50').toString('base64'));
      expect(pages[2]?.query.get('next_page_token')).toBe(Buffer.from('100').toString('base64'));
      expect(pages[2]?.query.get('update_time_after')).toBe(pages[0]?.query.get('update_time_after'));
    });

    it('asks for fewer than 50 when the mirror asks for fewer', async () => {
      fake.addDisputes(3);
      const page = await adapter.listDisputes({ connection: connectionWith(), cursor: null, limit: 2 });
      expect(page.disputes).toHaveLength(2);
      expect(page.hasMore).toBe(true);
      expect(callsTo('/v1/customer/disputes')[0]?.query.get('page_size')).toBe('2');
    });

    it('begins the next sweep five minutes before the last one began, by PayPal clock', async () => {
      fake.addDisputes(2);
      // PayPal's clock twenty minutes ahead of ours: its Date header is what counts.
      fake.advance(20 * 60_000);
      const { cursor } = await sweep(null);
      const began = Date.now() + 20 * 60_000;
      await sweep(cursor);
      const bound = Date.parse(callsTo('/v1/customer/disputes').at(-1)?.query.get('update_time_after') ?? '');
      expect(began - 5 * 60_000 - bound).toBeGreaterThanOrEqual(-1);
      expect(began - 5 * 60_000 - bound).toBeLessThan(3000);
    });

    it('picks up only what changed since, once the overlap has passed', async () => {
      const [old, changed] = fake.addDisputes(2) as [string, string];
      const first = await sweep(null);
      fake.advance(10 * 60_000);
      const second = await sweep(first.cursor);
      expect(second.seen.map((dispute) => dispute.id).sort()).toEqual([old, changed].sort());
      fake.advance(10 * 60_000);
      fake.move(changed, 'lost');
      const third = await sweep(second.cursor);
      expect(third.seen.map((dispute) => [dispute.id, dispute.state])).toEqual([[changed, 'lost']]);
    });

    it('misses no dispute that joins the list while a sweep pages through it', async () => {
      const hours = (count: number) => new Date(Date.now() - count * 3600_000).toISOString();
      const older = template('PP-D-OLD', hours(72), hours(48));
      fake.put(older);
      for (let index = 0; index < 120; index++) {
        fake.put(
          template(
            `PP-D-${String(index).padStart(3, '0')}`,
            hours(10 - index / 100),
            hours(10 - index / 100),
          ),
        );
      }
      const cursor = JSON.stringify({ after: hours(24) });
      const first = await adapter.listDisputes({ connection: connectionWith(), cursor, limit: 50 });
      // Joins in front (newly created) and behind (an old dispute updated now).
      fake.put(template('PP-D-NEW', hours(0), hours(0)));
      fake.update('PP-D-OLD', { status: 'UNDER_REVIEW' });
      const rest = await sweep(first.nextCursor);
      const listed = [...first.disputes, ...rest.seen].map((dispute) => dispute.id);
      // The new one shifted the rest one place: one dispute comes twice, none is skipped.
      expect(listed).toHaveLength(122);
      expect(new Set(listed)).toEqual(
        new Set(['PP-D-OLD', ...Array.from({ length: 120 }, (_, i) => `PP-D-${String(i).padStart(3, '0')}`)]),
      );
      const next = await sweep(rest.cursor);
      expect(next.seen.map((dispute) => dispute.id)).toContain('PP-D-NEW');
    });

    it('includes a dispute updated exactly at the bound, whether or not PayPal counts the instant', async () => {
      const at = new Date(Math.floor(Date.now() / 1000) * 1000 - 60_000).toISOString();
      fake.put(template('PP-D-EDGE', at, at));
      const page = await adapter.listDisputes({
        connection: connectionWith(),
        cursor: JSON.stringify({ after: at }),
        limit: 50,
      });
      expect(page.disputes.map((dispute) => dispute.id)).toEqual(['PP-D-EDGE']);
    });

    it('starts the sweep over when PayPal refuses a committed page token', async () => {
      fake.addDisputes(3);
      const stale = JSON.stringify({
        after: new Date(Date.now() - 3600_000).toISOString(),
        started: new Date().toISOString(),
        next: {
          update_time_after: new Date(Date.now() - 3600_000).toISOString(),
          page_size: '50',
          next_page_token: '!',
        },
      });
      const page = await adapter.listDisputes({ connection: connectionWith(), cursor: stale, limit: 50 });
      expect(page.disputes).toHaveLength(3);
      const pages = callsTo('/v1/customer/disputes');
      expect(pages.map((call) => call.query.has('next_page_token'))).toEqual([true, false]);
    });

    it('starts within PayPal 180 days from a cursor older than that, or one it cannot read', async () => {
      fake.addDisputes(1);
      const ancient = JSON.stringify({ after: new Date(Date.now() - 400 * 24 * 3600_000).toISOString() });
      for (const cursor of [ancient, 'not a cursor']) {
        const page = await adapter.listDisputes({ connection: connectionWith(), cursor, limit: 50 });
        expect(page.disputes).toHaveLength(1);
      }
      for (const call of callsTo('/v1/customer/disputes')) {
        const after = Date.parse(call.query.get('update_time_after') ?? '');
        expect(after).toBeGreaterThan(Date.now() - 180 * 24 * 3600_000);
      }
    });

    it('fetches each listed dispute in full, for the transaction and the outcome the list leaves out', async () => {
      const ids = fake.addDisputes(3);
      const page = await adapter.listDisputes({ connection: connectionWith(), cursor: null, limit: 50 });
      for (const id of ids) expect(callsTo(`/v1/customer/disputes/${id}`, 'GET')).toHaveLength(1);
      const held = fake.dispute(ids[0] as string);
      expect(page.disputes.find((dispute) => dispute.id === ids[0])?.charge).toBe(
        held?.disputed_transactions[0]?.seller_transaction_id,
      );
    });
  });

  describe('fetching', () => {
    it('answers null for a dispute PayPal does not know', async () => {
      expect(await adapter.getDispute({ connection: connectionWith(), id: 'PP-D-404' })).toBeNull();
    });

    it.each([
      ['CHARGEBACK', 'WAITING_FOR_SELLER_RESPONSE', undefined, false, 'needs_response', 'chargeback'],
      ['CHARGEBACK', 'WAITING_FOR_SELLER_RESPONSE', undefined, true, 'response_disabled', 'chargeback'],
      ['CHARGEBACK', 'UNDER_REVIEW', undefined, false, 'under_review', 'chargeback'],
      ['CHARGEBACK', 'WAITING_FOR_BUYER_RESPONSE', undefined, false, 'under_review', 'chargeback'],
      ['CHARGEBACK', 'RESOLVED', 'RESOLVED_SELLER_FAVOUR', false, 'won', 'chargeback'],
      ['CHARGEBACK', 'RESOLVED', 'ACCEPTED', false, 'lost', 'chargeback'],
      [
        'PRE_ARBITRATION',
        'WAITING_FOR_SELLER_RESPONSE',
        undefined,
        false,
        'needs_response',
        'pre_arbitration',
      ],
      ['ARBITRATION', 'RESOLVED', 'RESOLVED_BUYER_FAVOUR', false, 'lost', 'pre_arbitration'],
      ['INQUIRY', 'WAITING_FOR_SELLER_RESPONSE', undefined, false, 'warning_needs_response', 'retrieval'],
      ['INQUIRY', 'WAITING_FOR_BUYER_RESPONSE', undefined, false, 'warning_under_review', 'retrieval'],
      ['INQUIRY', 'RESOLVED', 'CANCELED_BY_BUYER', false, 'warning_closed', 'retrieval'],
    ])(
      '%s %s %s (actions withdrawn: %s) reads as %s, a %s',
      async (stage, status, outcome, withdrawn, state, kind) => {
        const dispute = {
          ...template('PP-D-STATE', new Date().toISOString(), new Date().toISOString()),
          dispute_life_cycle_stage: stage,
          status,
          ...(outcome && { dispute_outcome: { outcome_code: outcome } }),
        };
        fake.put(dispute, { actionsWithdrawn: withdrawn });
        const normalized = await adapter.getDispute({ connection: connectionWith(), id: 'PP-D-STATE' });
        expect(normalized).toMatchObject({ state, kind });
        expect(normalized?.closedAt instanceof Date).toBe(['won', 'lost', 'warning_closed'].includes(state));
      },
    );

    it('reads a yen amount as whole yen', async () => {
      fake.put({
        ...template('PP-D-YEN', new Date().toISOString(), new Date().toISOString()),
        dispute_amount: { currency_code: 'JPY', value: '1500' },
      });
      expect(await adapter.getDispute({ connection: connectionWith(), id: 'PP-D-YEN' })).toMatchObject({
        amount: 1500,
        currency: 'jpy',
      });
    });
  });

  describe('submitting evidence', () => {
    it('sends one multipart provide-evidence: the input JSON, the PDF, and the key as PayPal-Request-Id', async () => {
      const [id] = fake.addDisputes(1) as [string];
      const request = await submission(id, 'sub_paypal0000000000001');
      expect(await adapter.submitEvidence(request)).toEqual({ reference: null });
      const [post] = callsTo(`/v1/customer/disputes/${id}/provide-evidence`, 'POST');
      expect(post?.headers['paypal-request-id']).toBe('sub_paypal0000000000001');
      expect(post?.headers.authorization).toMatch(/^Bearer /);
      const parts = multipartParts(post as RecordedCall);
      const name = `response-${id}-sub_paypal0000000000001.pdf`;
      expect(parts.map((part) => [part.name, part.filename, part.contentType])).toEqual([
        ['input', 'input.json', 'application/json'],
        ['evidence-file', name, 'application/pdf'],
      ]);
      expect(JSON.parse(parts[0]?.data.toString() ?? '')).toEqual({
        evidences: [
          {
            evidence_type: 'OTHER',
            notes: `Customer name: Ada Lovelace\nShipping tracking number: TRACK-4711\n\nOrder 4711 for ${id} was delivered on 2026-10-01 and signed for by the customer.`,
            documents: [{ name }],
          },
        ],
      });
      expect(parts[1]?.data.equals(request.response.document.pdf)).toBe(true);
      expect(fake.dispute(id)?.status).toBe('UNDER_REVIEW');
      expect((await adapter.getDispute({ connection: connectionWith(), id }))?.state).toBe('under_review');
    });

    it('keeps the notes within 2000 characters, pointing to the document for the rest', async () => {
      const [id] = fake.addDisputes(1) as [string];
      const long = 'The parcel was delivered. '.repeat(200);
      await adapter.submitEvidence(await submission(id, 'sub_long', { uncategorized_text: long }));
      const text = fake.submitted(id)?.text ?? '';
      expect(text).toHaveLength(2000);
      expect(text.startsWith('The parcel was delivered.')).toBe(true);
      expect(text.endsWith('… (continued in the attached document)')).toBe(true);
    });

    it('after an answer lost on the way back, finds its document on the dispute and does not post again', async () => {
      const [id] = fake.addDisputes(1) as [string];
      const request = await submission(id, 'sub_lost');
      fake.server.inject({ kind: 'drop-after', match: (call) => call.path.endsWith('/provide-evidence') });
      const lost = await adapter.submitEvidence(request).catch((error) => error);
      expect(lost).toMatchObject({ retryable: true, status: undefined });
      expect(await adapter.submitEvidence(request)).toEqual({ reference: null });
      expect(callsTo(`/v1/customer/disputes/${id}/provide-evidence`)).toHaveLength(1);
      expect(fake.submissionCount(id)).toBe(1);
    });

    it('does not ask PayPal again once it no longer takes evidence: a permanent refusal', async () => {
      const [reviewed, withdrawn] = fake.addDisputes(2) as [string, string];
      fake.move(reviewed, 'under_review');
      fake.put({ ...(fake.dispute(withdrawn) as PaypalFakeDispute) }, { actionsWithdrawn: true });
      for (const id of [reviewed, withdrawn]) {
        const error = await adapter.submitEvidence(await submission(id, `sub_${id}`)).catch((e) => e);
        expect(error).toBeInstanceOf(ProcessorError);
        expect(error).toMatchObject({ retryable: false });
        expect(error.message).toMatch(/takes no evidence/);
      }
      expect(callsTo(/\/provide-evidence$/)).toHaveLength(0);
    });

    it('a second submission with another key is refused without asking PayPal', async () => {
      const [id] = fake.addDisputes(1) as [string];
      await adapter.submitEvidence(await submission(id, 'sub_first'));
      const error = await adapter.submitEvidence(await submission(id, 'sub_second')).catch((e) => e);
      expect(error).toMatchObject({ retryable: false });
      expect(callsTo(`/v1/customer/disputes/${id}/provide-evidence`)).toHaveLength(1);
    });

    it('sends the files in the same call, each in its evidence type with its description as notes', async () => {
      const [id] = fake.addDisputes(1) as [string];
      const files = await contractFiles();
      const policy = attached('file_contractpolicy000001', samplePng('Returns'), 'png', 'refund_policy', {
        filename: 'our returns policy (2026).png',
        description: 'Shown at checkout',
      });
      const request = { ...(await submission(id, 'sub_files')), files: [...files, policy] };
      await adapter.submitEvidence(request);
      const posts = callsTo(`/v1/customer/disputes/${id}/provide-evidence`, 'POST');
      expect(posts).toHaveLength(1);
      const parts = multipartParts(posts[0] as RecordedCall);
      const document = `response-${id}-sub_files.pdf`;
      expect(parts.map((part) => [part.name, part.filename, part.contentType])).toEqual([
        ['input', 'input.json', 'application/json'],
        ['evidence-file', document, 'application/pdf'],
        ['evidence-file', 'file_contractreceipt00001.png', 'image/png'],
        ['evidence-file', 'file_contractshipping0001.jpg', 'image/jpeg'],
        ['evidence-file', 'file_contractmessages0001.pdf', 'application/pdf'],
        ['evidence-file', 'our-returns-policy-2026-file_contractpolicy000001.png', 'image/png'],
      ]);
      const input = JSON.parse(parts[0]?.data.toString() ?? '');
      expect(input.evidences.slice(1)).toEqual([
        {
          evidence_type: 'PROOF_OF_RECEIPT_COPY',
          notes: 'file_contractreceipt00001.png: Receipt e-mailed on 2026-09-28',
          documents: [{ name: 'file_contractreceipt00001.png' }],
        },
        {
          evidence_type: 'PROOF_OF_SHIPMENT_POSTAGE',
          documents: [{ name: 'file_contractshipping0001.jpg' }],
        },
        {
          evidence_type: 'MERCHANT_RESPONSE',
          documents: [{ name: 'file_contractmessages0001.pdf' }],
        },
        {
          evidence_type: 'RETURN_POLICY',
          notes: 'our-returns-policy-2026-file_contractpolicy000001.png: Shown at checkout',
          documents: [{ name: 'our-returns-policy-2026-file_contractpolicy000001.png' }],
        },
      ]);
      // The access log has no evidence type: it is in the response document only.
      expect(parts.some((part) => part.data.equals(files[3]?.bytes as Buffer))).toBe(false);
      expect(parts[5]?.data.equals(policy.bytes)).toBe(true);
    });

    it('refuses a file over PayPal limits before asking anything, naming the file and the limit', async () => {
      const [id] = fake.addDisputes(1) as [string];
      const big = attached('file_contractbigscan00001', await samplePdf('Scan', 1), 'pdf', 'receipt', {
        filename: 'scan.pdf',
        pages: 1,
      });
      const request = {
        ...(await submission(id, 'sub_big')),
        files: [{ ...big, size: 10 * 1024 * 1024 }],
      };
      const many = Array.from({ length: 6 }, (_, index) => ({
        ...big,
        id: `file_contractbigscan0000${index}`,
        size: 9 * 1024 * 1024,
      }));
      const together = { ...(await submission(id, 'sub_many')), files: many };
      const before = fake.calls.length;
      const error = await adapter.submitEvidence(request).catch((e) => e);
      expect(error).toBeInstanceOf(ProcessorError);
      expect(error).toMatchObject({ retryable: false, processor: 'paypal' });
      expect(error.message).toBe(
        "The file file_contractbigscan00001 (scan.pdf) is 10485760 bytes, over the processor's limit of 10 MB (10485759 bytes) a file; nothing was sent.",
      );
      const total = await adapter.submitEvidence(together).catch((e) => e);
      expect(total).toMatchObject({ retryable: false });
      expect(total.message).toMatch(
        /^The files of the submission are 56623\d{3} bytes together, over the processor's limit of 50 MB \(52428800 bytes\) in all; nothing was sent\.$/,
      );
      expect(fake.calls).toHaveLength(before);
      expect(fake.submissionCount(id)).toBe(0);
    });

    it('refuses a dispute PayPal does not know, permanently', async () => {
      const [id] = fake.addDisputes(1) as [string];
      const request = await submission(id, 'sub_unknown');
      request.dispute.id = 'PP-D-UNKNOWN';
      await expect(adapter.submitEvidence(request)).rejects.toMatchObject({ status: 404, retryable: false });
    });
  });

  describe('accepting', () => {
    it('posts accept-claim with a note, a full refund where offered, and the key as PayPal-Request-Id', async () => {
      const [id] = fake.addDisputes(1) as [string];
      const { dispute } = await submission(id, 'x');
      await adapter.acceptDispute({ connection: connectionWith(), dispute, idempotencyKey: 'acc_paypal1' });
      const [post] = callsTo(`/v1/customer/disputes/${id}/accept-claim`, 'POST');
      expect(post?.headers['paypal-request-id']).toBe('acc_paypal1');
      expect(JSON.parse(post?.body.toString() ?? '')).toEqual({
        note: 'The merchant accepts this claim.',
        accept_claim_type: 'REFUND',
      });
      expect(await adapter.getDispute({ connection: connectionWith(), id })).toMatchObject({ state: 'lost' });
    });

    it('leaves the refund type to PayPal where a full refund is not offered', async () => {
      const [id] = fake.addDisputes(1) as [string];
      fake.update(id, {
        allowed_response_options: { accept_claim: { accept_claim_types: ['REFUND_WITH_RETURN'] } },
      });
      const { dispute } = await submission(id, 'x');
      await adapter.acceptDispute({ connection: connectionWith(), dispute, idempotencyKey: 'acc_paypal2' });
      const [post] = callsTo(`/v1/customer/disputes/${id}/accept-claim`, 'POST');
      expect(JSON.parse(post?.body.toString() ?? '')).toEqual({ note: 'The merchant accepts this claim.' });
      expect(fake.accepted(id)).toBe(true);
    });

    it('accepting again succeeds without a second call; a decided dispute is refused without one', async () => {
      const [accepted, won] = fake.addDisputes(2) as [string, string];
      const reference = (await submission(accepted, 'x')).dispute;
      await adapter.acceptDispute({
        connection: connectionWith(),
        dispute: reference,
        idempotencyKey: 'acc_1',
      });
      await adapter.acceptDispute({
        connection: connectionWith(),
        dispute: reference,
        idempotencyKey: 'acc_1',
      });
      fake.move(won, 'won');
      const refusal = await adapter
        .acceptDispute({
          connection: connectionWith(),
          dispute: { ...reference, id: won },
          idempotencyKey: 'acc_2',
        })
        .catch((e) => e);
      expect(refusal).toMatchObject({ retryable: false });
      expect(callsTo(/\/accept-claim$/)).toHaveLength(1);
    });
  });

  describe('read-only accounts', () => {
    it('list, fetch, submit and accept with dispute-level calls only', async () => {
      const [submitted, accepted] = fake.addDisputes(2) as [string, string];
      const readOnly = connectionWith({ readOnly: true });
      const page = await adapter.listDisputes({ connection: readOnly, cursor: null, limit: 50 });
      expect(page.disputes.every((dispute) => dispute.charge !== null)).toBe(true);
      const request = { ...(await submission(submitted, 'sub_ro')), connection: readOnly };
      request.dispute.charge = 'CLIENT-NAMED-CHARGE';
      await adapter.submitEvidence(request);
      const { dispute } = await submission(accepted, 'x');
      await adapter.acceptDispute({ connection: readOnly, dispute, idempotencyKey: 'acc_ro' });
      const paths = new Set(fake.calls.map((call) => call.path.replace(/PP-D-\d+/, '{id}')));
      expect([...paths].sort()).toEqual([
        '/v1/customer/disputes',
        '/v1/customer/disputes/{id}',
        '/v1/customer/disputes/{id}/accept-claim',
        '/v1/customer/disputes/{id}/provide-evidence',
        '/v1/oauth2/token',
      ]);
    });
  });

  describe('the fake, as PayPal answers evidence', () => {
    async function post(id: string, requestId: string) {
      const token = await fetch(`${fake.server.url}/v1/oauth2/token`, {
        method: 'POST',
        headers: {
          authorization: `Basic ${Buffer.from(`${credentials.client_id}:${credentials.client_secret}`).toString('base64')}`,
          'content-type': 'application/x-www-form-urlencoded',
        },
        body: 'grant_type=client_credentials',
      }).then((answer) => answer.json() as Promise<{ access_token: string }>);
      const form = new FormData();
      const input = {
        evidences: [{ evidence_type: 'OTHER', notes: 'Delivered.', documents: [{ name: 'proof.pdf' }] }],
      };
      form.append('input', new Blob([JSON.stringify(input)], { type: 'application/json' }), 'input.json');
      form.append('evidence-file', new Blob(['%PDF-1.4'], { type: 'application/pdf' }), 'proof.pdf');
      const answer = await fetch(`${fake.server.url}/v1/customer/disputes/${id}/provide-evidence`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token.access_token}`, 'paypal-request-id': requestId },
        body: form,
      });
      return { status: answer.status, body: (await answer.json()) as Record<string, unknown> };
    }

    it('replays a repeated PayPal-Request-Id and refuses another submission with 422', async () => {
      const [id] = fake.addDisputes(1) as [string];
      const first = await post(id, 'req-1');
      expect(first.status).toBe(200);
      expect(await post(id, 'req-1')).toEqual(first);
      const second = await post(id, 'req-2');
      expect(second.status).toBe(422);
      expect(second.body).toMatchObject({ name: 'UNPROCESSABLE_ENTITY', debug_id: expect.any(String) });
      expect(fake.submissionCount(id)).toBe(1);
    });
  });

  describe('webhooks', () => {
    it('has PayPal verify the delivery, with the transmission headers, the webhook id and the event', async () => {
      const [id] = fake.addDisputes(1) as [string];
      const push = fake.webhook(id, 'CUSTOMER.DISPUTE.CREATED');
      expect(await adapter.parsePush({ connection: connectionWith(), ...push })).toEqual({
        refresh: [id],
        disputes: [],
      });
      const [verify] = callsTo('/v1/notifications/verify-webhook-signature', 'POST');
      expect(JSON.parse(verify?.body.toString() ?? '')).toEqual({
        auth_algo: 'SHA256withRSA',
        cert_url: push.headers['paypal-cert-url'],
        transmission_id: push.headers['paypal-transmission-id'],
        transmission_sig: push.headers['paypal-transmission-sig'],
        transmission_time: push.headers['paypal-transmission-time'],
        webhook_id: credentials.webhook_id,
        webhook_event: JSON.parse(push.body.toString()),
      });
    });

    it.each(['CUSTOMER.DISPUTE.UPDATED', 'CUSTOMER.DISPUTE.RESOLVED'])(
      'refreshes the dispute of %s',
      async (type) => {
        const [id] = fake.addDisputes(1) as [string];
        const result = await adapter.parsePush({ connection: connectionWith(), ...fake.webhook(id, type) });
        expect(result.refresh).toEqual([id]);
      },
    );

    it('acknowledges a verified event about something else, refreshing nothing', async () => {
      const [id] = fake.addDisputes(1) as [string];
      const push = fake.webhook(id, 'PAYMENT.CAPTURE.COMPLETED');
      expect(await adapter.parsePush({ connection: connectionWith(), ...push })).toEqual({
        refresh: [],
        disputes: [],
      });
    });

    it('refuses a delivery for another webhook id', async () => {
      const [id] = fake.addDisputes(1) as [string];
      const other = JSON.stringify({ ...credentials, webhook_id: '1JE4291016473214C' });
      const push = fake.webhook(id);
      await expect(
        adapter.parsePush({ connection: connectionWith({ credentials: other }), ...push }),
      ).rejects.toThrow(PushRejectedError);
    });

    it('refuses without asking PayPal when the account has no webhook_id, a header is missing, or the body is not JSON', async () => {
      const [id] = fake.addDisputes(1) as [string];
      const push = fake.webhook(id);
      const { webhook_id: _, ...withoutWebhook } = credentials;
      const cases = [
        { connection: connectionWith({ credentials: JSON.stringify(withoutWebhook) }), ...push },
        {
          connection: connectionWith(),
          headers: { ...push.headers, 'paypal-transmission-sig': undefined },
          body: push.body,
        },
        { connection: connectionWith(), headers: push.headers, body: Buffer.from('<xml/>') },
      ];
      const messages: string[] = [];
      for (const request of cases) {
        const error = await adapter.parsePush(request).catch((e) => e);
        expect(error).toBeInstanceOf(PushRejectedError);
        messages.push(error.message);
      }
      expect(messages[1]).toContain('paypal-transmission-sig');
      expect(callsTo('/v1/notifications/verify-webhook-signature')).toHaveLength(0);
    });

    it.each([
      ['another algorithm', { 'paypal-auth-algo': 'HS256' }, 'not PayPal'],
      [
        'a certificate off PayPal',
        { 'paypal-cert-url': 'https://paypal.com.evil.example/cert' },
        'not PayPal',
      ],
      ['a certificate over http', { 'paypal-cert-url': 'http://api.paypal.com/cert' }, 'no https'],
      [
        'a week-old transmission',
        { 'paypal-transmission-time': new Date(Date.now() - 7 * 86_400_000).toISOString() },
        'a replay',
      ],
    ])(
      'refuses %s without asking PayPal (forged pushes must not spend the account’s calls)',
      async (_, headers, message) => {
        const [id] = fake.addDisputes(1) as [string];
        const push = fake.webhook(id);
        const before = callsTo('/v1/notifications/verify-webhook-signature').length;
        const error = await adapter
          .parsePush({
            connection: connectionWith(),
            headers: { ...push.headers, ...headers },
            body: push.body,
          })
          .catch((e) => e);
        expect(error).toBeInstanceOf(PushRejectedError);
        expect(error.message).toContain(message);
        expect(callsTo('/v1/notifications/verify-webhook-signature')).toHaveLength(before);
      },
    );
  });
});

/** A chargeback waiting on the merchant, in PayPal's shape, created and updated at the given times. */
function template(id: string, created: string, updated: string): PaypalFakeDispute {
  return {
    dispute_id: id,
    create_time: created,
    update_time: updated,
    disputed_transactions: [
      { seller_transaction_id: `TX${id.replace(/\W/g, '')}`, buyer: { name: 'Ada Lovelace' } },
    ],
    reason: 'MERCHANDISE_OR_SERVICE_NOT_RECEIVED',
    status: 'WAITING_FOR_SELLER_RESPONSE',
    dispute_state: 'REQUIRED_ACTION',
    dispute_amount: { currency_code: 'USD', value: '10.00' },
    dispute_life_cycle_stage: 'CHARGEBACK',
    dispute_channel: 'INTERNAL',
    seller_response_due_date: new Date(Date.now() + 7 * 24 * 3600_000).toISOString(),
    evidences: [],
    allowed_response_options: { accept_claim: { accept_claim_types: ['REFUND'] } },
  };
}
