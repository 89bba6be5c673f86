import { PDFDocument } from 'pdf-lib';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { CheckoutAdapter } from '../../../src/processors/checkout/adapter.js';
import {
  type NormalizedDispute,
  type ProcessorConnection,
  ProcessorError,
  PushRejectedError,
} from '../../../src/processors/types.js';
import { type CheckoutFake, checkoutFakeCredentials, startCheckoutFake } from '../../fakes/checkout.js';
import { multipartParts } from '../../fakes/harness.js';
import { adapterContract, contractAccount, contractSubmission } from '../../helpers/adapter-contract.js';
import { attached, sampleJpeg, samplePdf, samplePng } from '../../helpers/evidence-files.js';
import { processorSpecs } from '../../helpers/processor-specs.js';

adapterContract(processorSpecs.checkout);

describe('checkout adapter against the fake Checkout.com', () => {
  let fake: CheckoutFake;
  const adapter = new CheckoutAdapter();
  const connection = (
    credentials: Record<string, unknown> = checkoutFakeCredentials,
  ): ProcessorConnection => ({
    account: contractAccount,
    credentials: JSON.stringify(credentials),
    baseUrl: fake.server.url,
    readOnly: false,
  });

  /** Pages until the processor has no more; every dispute listed, in order, and the cursor after. */
  async function scan(
    cursor: string | null,
    limit = 100,
    between?: (page: number, disputes: NormalizedDispute[]) => void,
  ) {
    const listed: NormalizedDispute[] = [];
    let at = cursor;
    for (let page = 1; ; page++) {
      const result = await adapter.listDisputes({ connection: connection(), cursor: at, limit });
      listed.push(...result.disputes);
      at = result.nextCursor;
      if (!result.hasMore) return { listed, cursor: at, pages: page };
      between?.(page, result.disputes);
    }
  }
  const idsOf = (disputes: NormalizedDispute[]) => new Set(disputes.map((dispute) => dispute.id));
  const lastRequests = (count: number) =>
    fake.received.slice(-count).map((request) => `${request.method} ${request.path}`);

  /** A dispute as the contract submits it, fresh at the fake. */
  async function freshSubmission(key: string) {
    const [id] = fake.addDisputes(1) as [string];
    const dispute = (await adapter.getDispute({ connection: connection(), id })) as NormalizedDispute;
    return { id, request: contractSubmission(dispute, connection(), key) };
  }

  beforeAll(async () => {
    fake = await startCheckoutFake();
  });
  afterAll(async () => {
    await fake.close();
  });
  beforeEach(() => {
    fake.server.clearFaults();
  });

  describe('listing', () => {
    it('sends the secret key as a Bearer token and asks at most 250 a page', async () => {
      fake.addDisputes(3);
      await adapter.listDisputes({ connection: connection(), cursor: null, limit: 1000 });
      const [request] = fake.received.slice(-1);
      expect(request?.headers.authorization).toBe(`Bearer ${checkoutFakeCredentials.secret_key}`);
      expect(request?.path).toBe('/disputes');
      expect(Object.fromEntries(request?.query ?? [])).toEqual({ limit: '250', skip: '0' });
    });

    it('pages one scan by skip from the same from, without to', async () => {
      const { cursor } = await scan(null);
      fake.addDisputes(250);
      const before = fake.received.length;
      const { pages } = await scan(cursor, 100);
      const queries = fake.received.slice(before).map((request) => Object.fromEntries(request.query));
      const from = queries[0]?.from;
      expect(from).toEqual(expect.any(String));
      expect(queries.slice(0, 3)).toEqual([
        { limit: '100', skip: '0', from },
        { limit: '100', skip: '100', from },
        { limit: '100', skip: '200', from },
      ]);
      expect(pages).toBe(queries.length);
    });

    it('misses nothing when disputes already listed change while a scan pages', async () => {
      const { cursor } = await scan(null);
      const ids = fake.addDisputes(300);
      // The newest 40 are on the first page: each change moves one to the top. A window with a fixed `to`
      // would lose them, and every dispute behind them would move up 40 places, past the offset.
      const changed = ids.slice(-40);
      const { listed, cursor: after } = await scan(cursor, 50, (page) => {
        if (page === 1) for (const id of changed) fake.setStatus(id, 'evidence_under_review');
      });
      const seen = idsOf(listed);
      expect(ids.filter((id) => !seen.has(id))).toEqual([]);
      const next = await scan(after);
      const states = new Map(next.listed.map((dispute) => [dispute.id, dispute.state]));
      expect(changed.map((id) => states.get(id))).toEqual(changed.map(() => 'under_review'));
    });

    it('lists what changes or arrives behind the offset during a scan in the next scan', async () => {
      const { cursor } = await scan(null);
      const ids = fake.addDisputes(200);
      const moved = ids.slice(0, 30);
      const arrived: string[] = [];
      const { listed, cursor: after } = await scan(cursor, 50, (page) => {
        if (page !== 1) return;
        for (const id of moved) fake.setStatus(id, 'won');
        arrived.push(...fake.addDisputes(5));
      });
      const seen = idsOf(listed);
      expect(ids.filter((id) => !seen.has(id) && !moved.includes(id))).toEqual([]);
      const next = await scan(after);
      const states = new Map(next.listed.map((dispute) => [dispute.id, dispute.state]));
      expect(moved.map((id) => states.get(id))).toEqual(moved.map(() => 'won'));
      expect(arrived.map((id) => states.get(id))).toEqual(arrived.map(() => 'needs_response'));
    });

    it('pages through a bulk change larger than a page (one last_update) by skip, missing none', async () => {
      const { cursor } = await scan(null);
      const ids = fake.addDisputes(350);
      fake.stampTogether(ids);
      const { listed, pages } = await scan(cursor, 100);
      const seen = idsOf(listed);
      expect(ids.filter((id) => !seen.has(id))).toEqual([]);
      expect(pages).toBeGreaterThanOrEqual(4);
    });

    it('misses none of a bulk change when some of it changes mid-scan', async () => {
      const { cursor } = await scan(null);
      const ids = fake.addDisputes(350);
      fake.stampTogether(ids);
      const changed: string[] = [];
      const { listed } = await scan(cursor, 100, (page, disputes) => {
        if (page !== 1) return;
        // Disputes of the first page move to the top: the unread ones keep their places.
        changed.push(...disputes.slice(0, 25).map((dispute) => dispute.id));
        for (const id of changed) fake.setStatus(id, 'lost');
      });
      const seen = idsOf(listed);
      expect(changed).toHaveLength(25);
      expect(ids.filter((id) => !changed.includes(id) && !seen.has(id))).toEqual([]);
    });

    it('starts the next scan a few minutes before the newest change seen, and finds what changed since', async () => {
      const { cursor } = await scan(null);
      const [later] = fake.addDisputes(1) as [string];
      const first = await scan(cursor);
      expect(idsOf(first.listed).has(later)).toBe(true);
      const newest = Math.max(...[...fake.disputes.values()].map((dispute) => dispute.lastUpdate));
      fake.setStatus(later, 'lost');
      const before = fake.received.length;
      const second = await scan(first.cursor);
      const from = fake.received[before]?.query.get('from') as string;
      expect(Date.parse(from)).toBe(Math.floor(newest / 1000) - 5 * 60_000);
      expect(fake.received[before]?.query.has('to')).toBe(false);
      expect(second.listed.find((dispute) => dispute.id === later)?.state).toBe('lost');
    });

    it('fetches resolved disputes whole, since only the full object says why they were resolved', async () => {
      const { cursor } = await scan(null);
      const [refunded, credit] = fake.addDisputes(2) as [string, string];
      fake.setStatus(refunded, 'resolved', 'already_refunded');
      fake.setStatus(credit, 'resolved', 'negative_amount');
      const { listed } = await scan(cursor);
      const states = new Map(listed.map((dispute) => [dispute.id, dispute.state]));
      expect(states.get(refunded)).toBe('charge_refunded');
      expect(states.get(credit)).toBe('won');
      const paths = fake.received.map((request) => request.path);
      expect(paths).toContain(`/disputes/${refunded}`);
      expect(paths).toContain(`/disputes/${credit}`);
    });

    it('a dispute resolved by Visa Rapid Dispute Resolution: charge_refunded, resolution rdr, listed and fetched', async () => {
      const { cursor } = await scan(null);
      const [rdr, refunded] = fake.addDisputes(2) as [string, string];
      fake.setStatus(rdr, 'resolved', 'rapid_dispute_resolution');
      fake.setStatus(refunded, 'resolved', 'already_refunded');
      const { listed } = await scan(cursor);
      const read = new Map(listed.map((dispute) => [dispute.id, dispute]));
      expect(read.get(rdr)).toMatchObject({ state: 'charge_refunded', resolution: 'rdr' });
      expect(read.get(refunded)).toMatchObject({ state: 'charge_refunded', resolution: null });
      expect(await adapter.getDispute({ connection: connection(), id: rdr })).toMatchObject({
        state: 'charge_refunded',
        resolution: 'rdr',
        processorStatus: 'resolved',
      });
    });

    it('lists and fetches for a read-only account with the disputes calls alone', async () => {
      const [id] = fake.addDisputes(1) as [string];
      const readOnly = { ...connection(), readOnly: true };
      const before = fake.received.length;
      await adapter.listDisputes({ connection: readOnly, cursor: null, limit: 10 });
      const fetched = await adapter.getDispute({ connection: readOnly, id });
      expect(fetched?.charge).toBe(fake.disputes.get(id)?.paymentId);
      const calls = lastRequests(fake.received.length - before);
      expect(calls[0]).toBe('GET /disputes');
      expect(calls.at(-1)).toBe(`GET /disputes/${id}`);
      expect(calls.filter((call) => !call.startsWith('GET /disputes'))).toEqual([]);
    });

    it('refuses a cursor it did not write, permanently', async () => {
      const error = await adapter
        .listDisputes({ connection: connection(), cursor: '{"page":3}', limit: 10 })
        .catch((thrown) => thrown);
      expect(error).toBeInstanceOf(ProcessorError);
      expect(error.retryable).toBe(false);
    });

    it('refuses a wrong key with 401, permanently, without the key in the error', async () => {
      const wrong = { secret_key: 'sk_sbox_wrongwrongwrongwrong' };
      const error = await adapter
        .listDisputes({ connection: connection(wrong), cursor: null, limit: 10 })
        .catch((thrown) => thrown);
      expect(error).toBeInstanceOf(ProcessorError);
      expect(error.status).toBe(401);
      expect(error.retryable).toBe(false);
      expect(JSON.stringify({ ...error, message: error.message })).not.toContain(wrong.secret_key);
    });
  });

  describe('fetching one dispute', () => {
    it('answers null for a dispute Checkout.com does not know', async () => {
      expect(
        await adapter.getDispute({ connection: connection(), id: 'dsp_unknown00000000000000' }),
      ).toBeNull();
    });

    it('maps the full object: charge from the payment, dates, amount in minor units, lower-case currency', async () => {
      const [id] = fake.addDisputes(1) as [string];
      const held = fake.disputes.get(id);
      const dispute = await adapter.getDispute({ connection: connection(), id });
      expect(dispute).toMatchObject({
        id,
        state: 'needs_response',
        kind: 'chargeback',
        charge: held?.paymentId,
        amount: held?.amount,
        currency: held?.currency.toLowerCase(),
        dueBy: new Date(held?.evidenceRequiredBy as string),
        disputedAt: new Date(held?.receivedOn as string),
        closedAt: null,
      });
    });

    it('reports an arbitration as a pre-arbitration under review', async () => {
      const [id] = fake.addDisputes(1) as [string];
      fake.setStatus(id, 'arbitration_under_review');
      const dispute = await adapter.getDispute({ connection: connection(), id });
      expect([dispute?.state, dispute?.kind]).toEqual(['under_review', 'pre_arbitration']);
    });
  });

  describe('submitting evidence', () => {
    it.each(['expired', 'accepted', 'canceled'] as const)(
      'evidence staged whose submit was lost, then %s: refused, not taken for submitted',
      async (status) => {
        const { id, request } = await freshSubmission(`sub_staged${status.padEnd(14, '0')}`);
        fake.server.inject({
          kind: 'drop',
          match: (sent) => sent.method === 'POST' && sent.path.endsWith('/evidence'),
        });
        await expect(adapter.submitEvidence(request)).rejects.toMatchObject({ retryable: true });
        fake.setStatus(id, status);
        await expect(adapter.submitEvidence(request)).rejects.toMatchObject({ retryable: false });
        expect(fake.submissionCount(id)).toBe(0);
      },
    );

    it('uploads the PDF, stages it with the text, then submits: the exact calls Checkout.com receives', async () => {
      const { id, request } = await freshSubmission('sub_exact00000000001');
      const before = fake.received.length;
      const result = await adapter.submitEvidence(request);
      const calls = fake.received.slice(before);
      expect(calls.map((call) => `${call.method} ${call.path}`)).toEqual([
        `GET /disputes/${id}`,
        `GET /disputes/${id}/evidence`,
        'POST /files',
        `PUT /disputes/${id}/evidence`,
        `POST /disputes/${id}/evidence`,
      ]);
      const upload = calls[2];
      const parts = multipartParts(upload as NonNullable<typeof upload>);
      expect(parts.map((part) => [part.name, part.filename, part.contentType])).toEqual([
        ['purpose', undefined, undefined],
        ['file', `response-${id}-sub_exact00000000001.pdf`, 'application/pdf'],
      ]);
      expect(parts[0]?.data.toString()).toBe('dispute_evidence');
      expect(parts[1]?.data.equals(request.response.document.pdf)).toBe(true);
      const [file] = [...fake.files.keys()].slice(-1);
      expect(result).toEqual({ reference: file });
      expect(JSON.parse(calls[3]?.body.toString() ?? '')).toEqual({
        proof_of_delivery_or_service_text: 'Shipping tracking number: TRACK-4711',
        additional_evidence_text: `${request.response.evidence.uncategorized_text}\n\nCustomer name: Ada Lovelace`,
        additional_evidence_file: file,
      });
      expect(calls[4]?.body.length).toBe(0);
      expect(fake.disputes.get(id)?.status).toBe('evidence_under_review');
    });

    it('keeps every text within 500 characters; the whole text is in the PDF', async () => {
      const { id, request } = await freshSubmission('sub_long000000000001');
      request.response.evidence.uncategorized_text = 'The order was delivered. '.repeat(60);
      await adapter.submitEvidence(request);
      const text = fake.disputes.get(id)?.evidence.additional_evidence_text ?? '';
      expect(text.length).toBeLessThanOrEqual(500);
      expect(text.endsWith('… (continued in the attached document)')).toBe(true);
    });

    it('after a lost answer to staging, a retry stages the same file again and uploads nothing', async () => {
      const { id, request } = await freshSubmission('sub_lostput00000001');
      fake.server.inject({ kind: 'drop-after', match: (call) => call.method === 'PUT' });
      const error = await adapter.submitEvidence(request).catch((thrown) => thrown);
      expect(error).toMatchObject({ retryable: true, status: undefined });
      const uploads = fake.files.size;
      const before = fake.received.length;
      await adapter.submitEvidence(request);
      expect(fake.files.size).toBe(uploads);
      expect(fake.received.slice(before).map((call) => `${call.method} ${call.path}`)).toEqual([
        `GET /disputes/${id}`,
        `GET /disputes/${id}/evidence`,
        expect.stringMatching(/^GET \/files\/file_/),
        `PUT /disputes/${id}/evidence`,
        `POST /disputes/${id}/evidence`,
      ]);
      expect(fake.submissionCount(id)).toBe(1);
    });

    it('after a lost answer to the submit, a retry only reads, and answers the same reference', async () => {
      const { id, request } = await freshSubmission('sub_lostpost0000001');
      fake.server.inject({
        kind: 'drop-after',
        match: (call) => call.method === 'POST' && call.path.endsWith('/evidence'),
      });
      await expect(adapter.submitEvidence(request)).rejects.toMatchObject({ retryable: true });
      const before = fake.received.length;
      const result = await adapter.submitEvidence(request);
      expect(fake.received.slice(before).every((call) => call.method === 'GET')).toBe(true);
      expect(result.reference).toBe(fake.disputes.get(id)?.evidence.additional_evidence_file);
      expect(fake.submissionCount(id)).toBe(1);
    });

    it('refuses, permanently and without writing, a dispute under review with evidence not of this submission', async () => {
      const { id, request } = await freshSubmission('sub_first000000001');
      await adapter.submitEvidence(request);
      const before = fake.received.length;
      const other = { ...request, idempotencyKey: 'sub_second00000001' };
      const error = await adapter.submitEvidence(other).catch((thrown) => thrown);
      expect(error).toBeInstanceOf(ProcessorError);
      expect(error.retryable).toBe(false);
      expect(error.message).toBe(
        'The dispute is evidence_under_review at Checkout.com: it takes no evidence.',
      );
      expect(fake.received.slice(before).every((call) => call.method === 'GET')).toBe(true);
      expect(fake.submissionCount(id)).toBe(1);
    });

    it('refuses a PDF over the 4 MB file limit before any call', async () => {
      const { request } = await freshSubmission('sub_large000000001');
      request.response.document.pdf = Buffer.alloc(4 * 1024 * 1024 + 1, 0x20);
      const before = fake.received.length;
      await expect(adapter.submitEvidence(request)).rejects.toMatchObject({
        retryable: false,
        message: `The response document (${request.response.document.filename}) is 4194305 bytes, over the processor's limit of 4 MB (4194304 bytes) a file; nothing was sent.`,
      });
      expect(fake.received.length).toBe(before);
    });

    it('refuses an evidence file over 4 MB before any call, naming the file and the limit', async () => {
      const { id, request } = await freshSubmission('sub_largefile00001');
      const big = Buffer.concat([sampleJpeg('Label'), Buffer.alloc(4 * 1024 * 1024)]);
      request.files = [
        attached('file_largelabel000000001', big, 'jpg', 'shipping_documentation', { filename: 'label.jpg' }),
      ];
      const before = fake.received.length;
      await expect(adapter.submitEvidence(request)).rejects.toMatchObject({
        retryable: false,
        message: `The file file_largelabel000000001 (label.jpg) is ${big.length} bytes, over the processor's limit of 4 MB (4194304 bytes) a file; nothing was sent.`,
      });
      expect(fake.received.length).toBe(before);
      expect(fake.submissionCount(id)).toBe(0);
    });

    it('stages each slot file after its upload, several of one field merged into one PDF of their pages', async () => {
      const { id, request } = await freshSubmission('sub_slots000000001');
      const receipt = attached('file_ckoreceipt000000001', samplePng('Receipt'), 'png', 'receipt');
      const label = attached(
        'file_ckolabel00000000001',
        sampleJpeg('Label'),
        'jpg',
        'shipping_documentation',
      );
      const service = attached(
        'file_ckoservice000000001',
        await samplePdf('Service', 2),
        'pdf',
        'service_documentation',
        {
          pages: 2,
        },
      );
      request.files = [label, receipt, service];
      const before = fake.received.length;
      await adapter.submitEvidence(request);
      const calls = fake.received.slice(before);
      expect(calls.map((call) => `${call.method} ${call.path}`)).toEqual([
        `GET /disputes/${id}`,
        `GET /disputes/${id}/evidence`,
        'POST /files',
        `PUT /disputes/${id}/evidence`,
        'POST /files',
        `PUT /disputes/${id}/evidence`,
        'POST /files',
        `PUT /disputes/${id}/evidence`,
        `POST /disputes/${id}/evidence`,
      ]);
      const names = calls
        .filter((call) => call.path === '/files')
        .map((call) => multipartParts(call).find((part) => part.name === 'file'))
        .map((part) => [part?.filename, part?.contentType]);
      expect(names).toEqual([
        ['proof_of_delivery_or_service_file-sub_slots000000001.pdf', 'application/pdf'],
        ['invoice_or_receipt_file-sub_slots000000001.png', 'image/png'],
        [`response-${id}-sub_slots000000001.pdf`, 'application/pdf'],
      ]);
      const slotted = Object.fromEntries(fake.slotted(id).map(({ slot, bytes }) => [slot, bytes]));
      expect(slotted.invoice_or_receipt_file?.equals(receipt.bytes)).toBe(true);
      const merged = await PDFDocument.load(slotted.proof_of_delivery_or_service_file as Buffer);
      expect(merged.getPageCount()).toBe(1 + 2);
      expect(fake.submissionCount(id)).toBe(1);
    });

    it('after a lost answer to an upload, a retry uploads that file again and none staged before it', async () => {
      const { id, request } = await freshSubmission('sub_lostfile000001');
      request.files = [
        attached('file_ckolostreceipt00001', samplePng('Receipt'), 'png', 'receipt'),
        attached(
          'file_ckolostmessages0001',
          await samplePdf('Messages', 1),
          'pdf',
          'customer_communication',
          {
            pages: 1,
          },
        ),
      ];
      let uploads = 0;
      fake.server.inject({
        kind: 'drop-after',
        match: (call) => call.path === '/files' && call.method === 'POST' && ++uploads === 2,
      });
      await expect(adapter.submitEvidence(request)).rejects.toMatchObject({ retryable: true });
      const before = fake.received.length;
      await adapter.submitEvidence(request);
      const again = fake.received.slice(before).filter((call) => call.path === '/files');
      expect(
        again.map((call) => multipartParts(call).find((part) => part.name === 'file')?.filename),
      ).toEqual([
        'customer_communication_file-sub_lostfile000001.pdf',
        `response-${id}-sub_lostfile000001.pdf`,
      ]);
      expect(fake.slotted(id).map(({ slot }) => slot)).toEqual([
        'invoice_or_receipt_file',
        'customer_communication_file',
      ]);
      expect(fake.submissionCount(id)).toBe(1);
    });

    it('answers 404 for an unknown dispute as a permanent error', async () => {
      const { request } = await freshSubmission('sub_unknown00000001');
      request.dispute.id = 'dsp_gone0000000000000000';
      await expect(adapter.submitEvidence(request)).rejects.toMatchObject({ retryable: false, status: 404 });
    });

    it("passes Checkout.com's 422 refusal on as a permanent error with its error codes", async () => {
      const { id, request } = await freshSubmission('sub_refused0000001');
      // Checkout.com closes the dispute between the adapter's read of it and the staging.
      fake.intercept = (call) => {
        if (call.method === 'PUT') fake.setStatus(id, 'expired');
      };
      const error = await adapter.submitEvidence(request).catch((thrown) => thrown);
      fake.intercept = undefined;
      expect(error).toBeInstanceOf(ProcessorError);
      expect(error.status).toBe(422);
      expect(error.retryable).toBe(false);
      expect(error.excerpt).toContain('dispute_evidence_not_editable');
    });
  });

  describe('accepting', () => {
    it('accepts once; a retry finds the dispute accepted and sends nothing', async () => {
      const [id] = fake.addDisputes(1) as [string];
      const { dispute } = contractSubmission(
        (await adapter.getDispute({ connection: connection(), id })) as NormalizedDispute,
        connection(),
        'x',
      );
      await adapter.acceptDispute({ connection: connection(), dispute, idempotencyKey: 'acc_1' });
      expect(lastRequests(2)).toEqual([`GET /disputes/${id}`, `POST /disputes/${id}/accept`]);
      await adapter.acceptDispute({ connection: connection(), dispute, idempotencyKey: 'acc_1' });
      expect(lastRequests(1)).toEqual([`GET /disputes/${id}`]);
      expect(fake.accepted(id)).toBe(true);
    });

    it('refuses to accept a dispute already decided', async () => {
      const [id] = fake.addDisputes(1) as [string];
      fake.setStatus(id, 'won');
      const dispute = {
        id,
        charge: null,
        accountId: null,
        reason: 'general',
        kind: 'chargeback',
        amount: 1,
        currency: 'gbp',
      };
      await expect(
        adapter.acceptDispute({ connection: connection(), dispute, idempotencyKey: 'acc_2' }),
      ).rejects.toMatchObject({
        retryable: false,
        message: 'The dispute is won at Checkout.com: it cannot be accepted.',
      });
    });
  });

  describe('pushes', () => {
    it('refreshes the dispute a dispute_* event names, whatever its type', async () => {
      const [id] = fake.addDisputes(1) as [string];
      const push = fake.webhook(id, 'dispute_won');
      expect(await adapter.parsePush({ connection: connection(), ...push })).toEqual({
        refresh: [id],
        disputes: [],
      });
    });

    it('reads the signature header whatever its case or repetition', async () => {
      const [id] = fake.addDisputes(1) as [string];
      const { body, headers } = fake.webhook(id);
      const signature = headers['cko-signature'] as string;
      const result = await adapter.parsePush({
        connection: connection(),
        headers: { 'Cko-Signature': [signature.toUpperCase()] },
        body,
      });
      expect(result.refresh).toEqual([id]);
    });

    it('answers other events with nothing to refresh', async () => {
      const body = Buffer.from(
        JSON.stringify({
          id: 'evt_1',
          type: 'payment_captured',
          created_on: new Date().toISOString(),
          data: { id: 'pay_1' },
        }),
      );
      const result = await adapter.parsePush({
        connection: connection(),
        headers: { 'cko-signature': fake.sign(body) },
        body,
      });
      expect(result).toEqual({ refresh: [], disputes: [] });
    });

    it('refuses pushes when the account has no webhook signature key', async () => {
      const [id] = fake.addDisputes(1) as [string];
      const push = fake.webhook(id);
      const withoutKey = connection({ secret_key: checkoutFakeCredentials.secret_key });
      await expect(adapter.parsePush({ connection: withoutKey, ...push })).rejects.toBeInstanceOf(
        PushRejectedError,
      );
    });

    it('refuses a signed body that is not an event', async () => {
      const body = Buffer.from('not json');
      await expect(
        adapter.parsePush({ connection: connection(), headers: { 'cko-signature': fake.sign(body) }, body }),
      ).rejects.toBeInstanceOf(PushRejectedError);
    });
  });

  describe('credentials', () => {
    it.each([
      [{ secret_key: 'sk_sbox_abc123' }, null],
      [{ secret_key: 'sk_live4abc', webhook_signature_key: 'k' }, null],
      [{ secret_key: 'pk_sbox_abc123' }, 'secret_key: must be a Checkout.com secret key (sk_… or sk_sbox_…)'],
      [{ webhook_signature_key: 'k' }, expect.stringMatching(/^secret_key: /)],
      [
        { secret_key: 'sk_sbox_abc', webhook_signature_key: '' },
        expect.stringMatching(/^webhook_signature_key: /),
      ],
    ])('checks %j', (credentials, problem) => {
      expect(adapter.checkCredentials(JSON.stringify(credentials))).toEqual(problem);
    });
  });
});
