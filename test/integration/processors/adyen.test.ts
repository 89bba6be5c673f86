import { createHash } from 'node:crypto';
import { PDFDocument } from 'pdf-lib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AdyenAdapter, stepKey } from '../../../src/processors/adyen/adapter.js';
import {
  type NormalizedDispute,
  type ProcessorConnection,
  ProcessorError,
  PushRejectedError,
  ReportError,
} from '../../../src/processors/types.js';
import { type AdyenFake, adyenDate, adyenFakeCredentials, startAdyenFake } from '../../fakes/adyen.js';
import {
  adapterContract,
  capturingLogger,
  contractAccount,
  contractSubmission,
} from '../../helpers/adapter-contract.js';
import { attached, contractFiles, sampleJpeg } from '../../helpers/evidence-files.js';
import { processorSpecs } from '../../helpers/processor-specs.js';

adapterContract(processorSpecs.adyen);

describe('adyen adapter against the fake Adyen', () => {
  let fake: AdyenFake;
  const logs = capturingLogger();
  const adapter = new AdyenAdapter({ logger: logs.logger });
  const connection = (credentials: Record<string, unknown> = adyenFakeCredentials): ProcessorConnection => ({
    account: contractAccount,
    credentials: JSON.stringify(credentials),
    baseUrl: fake.server.url,
    readOnly: false,
  });

  beforeAll(async () => {
    fake = await startAdyenFake();
  });
  afterAll(() => fake.close());

  /** A dispute as the webhook tells it, and a submission for it under `key`. */
  async function fresh(key: string, overrides: Parameters<AdyenFake['addDispute']>[0] = {}) {
    const { pspReference: id } = fake.addDispute(overrides);
    const [dispute] = (await adapter.parsePush({ connection: connection(), ...fake.notification(id) }))
      .disputes as [NormalizedDispute];
    return { id, dispute, request: contractSubmission(dispute, connection(), key) };
  }
  const failure = async (run: () => Promise<unknown>) => {
    try {
      await run();
    } catch (error) {
      expect(error).toBeInstanceOf(ProcessorError);
      return error as ProcessorError;
    }
    throw new Error('expected a ProcessorError');
  };

  describe('submission', () => {
    it('retrieves the defense reasons, supplies the PDF as DefenseMaterial, then defends, each with its own key', async () => {
      const { id, request } = await fresh('sub_adyen_exact_0001');
      const before = fake.calls.length;
      await expect(adapter.submitEvidence(request)).resolves.toEqual({ reference: null });
      const calls = fake.calls.slice(before);
      const target = { merchantAccountCode: 'RebuttalECOM', disputePspReference: id };
      expect(calls.map((call) => [call.path, call.headers['idempotency-key']])).toEqual([
        ['retrieveApplicableDefenseReasons', 'sub_adyen_exact_0001-reasons'],
        ['supplyDefenseDocument', 'sub_adyen_exact_0001-supply'],
        ['defendDispute', 'sub_adyen_exact_0001-defend'],
      ]);
      for (const call of calls) {
        expect(call.headers['x-api-key']).toBe(adyenFakeCredentials.api_key);
        expect(call.headers['content-type']).toMatch(/^application\/json/);
      }
      expect(calls.map((call) => call.body)).toEqual([
        target,
        {
          ...target,
          defenseDocuments: [
            {
              defenseDocumentTypeCode: 'DefenseMaterial',
              contentType: 'application/pdf',
              content: request.response.document.pdf.toString('base64'),
            },
          ],
        },
        { ...target, defenseReasonCode: 'SupplyDefenseMaterial' },
      ]);
      expect(fake.submissionCount(id)).toBe(1);
      expect(fake.disputes.get(id)?.defenseReason).toBe('SupplyDefenseMaterial');
      expect(fake.disputes.get(id)?.history.at(-1)).toMatchObject({
        eventCode: 'INFORMATION_SUPPLIED',
        status: 'Pending',
      });
    });

    it('delivers the evidence text inside the PDF, the only thing Adyen takes', async () => {
      const { id, request } = await fresh('sub_adyen_text_0001');
      const pdf = Buffer.from(`%PDF-1.4\n% Evidence fields: Shipping tracking number: TRACK-4711\n%%EOF\n`);
      await adapter.submitEvidence({
        ...request,
        response: { ...request.response, document: { ...request.response.document, pdf } },
      });
      expect(fake.submitted(id)?.text).toContain('TRACK-4711');
      expect(fake.submitted(id)?.files).toEqual([pdf]);
    });

    it('sent again after each step lost its answer, replays the keys: one document, one defense', async () => {
      for (const step of ['retrieveApplicableDefenseReasons', 'supplyDefenseDocument', 'defendDispute']) {
        const { id, request } = await fresh(`sub_adyen_lost_${step}`);
        fake.server.inject({ kind: 'drop-after', match: (call) => call.path.endsWith(step) });
        const lost = await failure(() => adapter.submitEvidence(request));
        expect(lost).toMatchObject({ retryable: true, status: undefined });
        const executed = fake.executed;
        await adapter.submitEvidence(request);
        expect(fake.submissionCount(id)).toBe(1);
        expect(fake.disputes.get(id)?.documents.size).toBe(1);
        // Every step up to the lost one is answered from its key, not carried out again.
        const replayed = [
          'retrieveApplicableDefenseReasons',
          'supplyDefenseDocument',
          'defendDispute',
        ].indexOf(step);
        expect(fake.executed - executed).toBe(2 - replayed);
      }
    });

    it('a second submission under another key is refused by Adyen before any defense is sent again', async () => {
      const { id, request } = await fresh('sub_adyen_twice_0001');
      await adapter.submitEvidence(request);
      const second = await failure(() =>
        adapter.submitEvidence({ ...request, idempotencyKey: 'sub_adyen_twice_0002' }),
      );
      expect(second).toMatchObject({ retryable: false, status: 200 });
      expect(second.message).toBe('Adyen refused supplyDefenseDocument: Dispute is not defendable.');
      expect(second.excerpt).toContain('"success":false');
      expect(fake.submissionCount(id)).toBe(1);
    });

    it('supplies the generic AlternativeDefenseMaterial where that is the only way to meet a reason with one PDF', async () => {
      const { id, request } = await fresh('sub_adyen_alternative_1', {
        defenseReasons: [
          {
            defenseReasonCode: 'MerchandiseReceived',
            documents: [
              ['ProofOfDelivery', 'Required'],
              ['InvoiceOrReceipt', 'Required'],
              ['AlternativeDefenseMaterial', 'AlternativeRequired'],
            ],
          },
        ],
      });
      await adapter.submitEvidence(request);
      expect([...(fake.disputes.get(id)?.documents.keys() ?? [])]).toEqual(['AlternativeDefenseMaterial']);
      expect(fake.disputes.get(id)?.defenseReason).toBe('MerchandiseReceived');
    });

    it('refuses, without supplying anything, a dispute whose every defense reason needs several documents', async () => {
      const { id, request } = await fresh('sub_adyen_unmeetable_1', {
        defenseReasons: [
          {
            defenseReasonCode: 'GoodsOrServicesProvided',
            documents: [
              ['ProofOfDelivery', 'Required'],
              ['InvoiceOrReceipt', 'Required'],
            ],
          },
        ],
      });
      const error = await failure(() => adapter.submitEvidence(request));
      expect(error.retryable).toBe(false);
      expect(error.message).toBe(
        `No defense reason Adyen offers for dispute ${id} can be met with one document ` +
          '(offered: GoodsOrServicesProvided); defend it in the Customer Area.',
      );
      expect(fake.disputes.get(id)?.documents.size).toBe(0);
    });

    it('an expired dispute is a permanent refusal', async () => {
      const { request } = await fresh('sub_adyen_expired_01', {
        defensePeriodEndsAt: new Date(Date.now() - 1000),
      });
      const error = await failure(() => adapter.submitEvidence(request));
      expect(error).toMatchObject({ retryable: false, status: 200 });
      expect(error.message).toBe('Adyen refused supplyDefenseDocument: Dispute expired.');
    });

    it('any refusal is final: a retry under the same key would only be answered with it again', async () => {
      const { request } = await fresh('sub_adyen_unlisted_01');
      fake.refusals.set('defendDispute', 'Internal error, please try again.');
      const error = await failure(() => adapter.submitEvidence(request));
      expect(error).toMatchObject({ retryable: false, status: 200 });
      expect(error.message).toBe('Adyen refused defendDispute: Internal error, please try again.');
    });

    it('supplies a JPEG receipt as TIDorInvoice with the PDF in one call; a PNG and other categories stay in the PDF', async () => {
      const { id, request } = await fresh('sub_adyen_files_0001');
      const receipt = attached('file_adyenreceipt0000001', sampleJpeg('Receipt 4711'), 'jpg', 'receipt');
      const files = [receipt, ...(await contractFiles())];
      const before = fake.calls.length;
      await adapter.submitEvidence({ ...request, files });
      const supplied = fake.calls.slice(before).find((call) => call.path === 'supplyDefenseDocument');
      expect(supplied?.body.defenseDocuments).toEqual([
        {
          defenseDocumentTypeCode: 'DefenseMaterial',
          contentType: 'application/pdf',
          content: request.response.document.pdf.toString('base64'),
        },
        {
          defenseDocumentTypeCode: 'TIDorInvoice',
          contentType: 'image/jpeg',
          content: receipt.bytes.toString('base64'),
        },
      ]);
      expect(fake.slotted(id)).toEqual([{ slot: 'TIDorInvoice', bytes: receipt.bytes }]);
      expect(fake.submissionCount(id)).toBe(1);
    });

    it('refuses, before any call, a PDF receipt over 2 MB, naming it', async () => {
      const { request } = await fresh('sub_adyen_files_0002');
      const before = fake.calls.length;
      const big = attached('file_adyenbigreceipt00001', Buffer.alloc(2 * 1024 * 1024 + 1), 'pdf', 'receipt');
      const tooBig = await failure(() => adapter.submitEvidence({ ...request, files: [big] }));
      expect(tooBig).toMatchObject({ retryable: false, status: undefined });
      expect(tooBig.message).toBe(
        'The file file_adyenbigreceipt00001 (file_adyenbigreceipt00001.pdf) is 2097153 bytes, over the ' +
          "processor's limit of 2 MB (2097152 bytes) a file; nothing was sent.",
      );
      expect(fake.calls.length).toBe(before);
    });

    it('supplies two receipts merged into one TIDorInvoice PDF, as Adyen keeps one document a type', async () => {
      const { id, request } = await fresh('sub_adyen_files_0004');
      const two = ['1', '2'].map((n) =>
        attached(`file_adyentworeceipts0000${n}`, sampleJpeg(`Receipt ${n}`), 'jpg', 'receipt'),
      );
      await adapter.submitEvidence({ ...request, files: two });
      const [invoice, more] = fake.slotted(id);
      expect(more).toBeUndefined();
      expect(invoice?.slot).toBe('TIDorInvoice');
      const merged = await PDFDocument.load(invoice?.bytes ?? Buffer.alloc(0));
      expect(merged.getPageCount()).toBe(2);
      expect(fake.submissionCount(id)).toBe(1);
    });

    it('refuses, supplying nothing, a receipt no defense reason offered takes', async () => {
      const { id, request } = await fresh('sub_adyen_files_0003', {
        defenseReasons: [
          { defenseReasonCode: 'SupplyDefenseMaterial', documents: [['DefenseMaterial', 'Required']] },
        ],
      });
      const receipt = attached('file_adyenreceipt0000003', sampleJpeg('Receipt 3'), 'jpg', 'receipt');
      const error = await failure(() => adapter.submitEvidence({ ...request, files: [receipt] }));
      expect(error.message).toBe(
        `No defense reason Adyen offers for dispute ${id} can be met with one document and the evidence ` +
          "files' types (TIDorInvoice) (offered: SupplyDefenseMaterial); defend it in the Customer Area.",
      );
      expect(fake.disputes.get(id)?.documents.size).toBe(0);
    });

    it('refuses a PDF over 2 MB before calling Adyen', async () => {
      const { request } = await fresh('sub_adyen_large_0001');
      const before = fake.calls.length;
      const pdf = Buffer.alloc(2 * 1024 * 1024 + 1, 0x20);
      const error = await failure(() =>
        adapter.submitEvidence({
          ...request,
          response: { ...request.response, document: { ...request.response.document, pdf } },
        }),
      );
      expect(error.retryable).toBe(false);
      expect(error.message).toBe(
        `The response document (response-${request.dispute.id}.pdf) is ${pdf.length} bytes, over the ` +
          "processor's limit of 2 MB (2097152 bytes) a file; nothing was sent.",
      );
      expect(fake.calls.length).toBe(before);
    });

    it('a read-only account submits with the same three calls', async () => {
      const { id, request } = await fresh('sub_adyen_readonly_01');
      const before = fake.calls.length;
      await adapter.submitEvidence({ ...request, connection: { ...connection(), readOnly: true } });
      expect(fake.calls.slice(before).map((call) => call.path)).toEqual([
        'retrieveApplicableDefenseReasons',
        'supplyDefenseDocument',
        'defendDispute',
      ]);
      expect(fake.submissionCount(id)).toBe(1);
    });
  });

  describe('idempotency keys', () => {
    it('are the submission key with the step, and a digest of a key too long for 64 characters', () => {
      expect(stepKey('sub_1', 'supply')).toBe('sub_1-supply');
      const long = 'x'.repeat(70);
      const digest = createHash('sha256').update(long).digest('hex');
      expect(stepKey(long, 'supply')).toBe(`${digest.slice(0, 57)}-supply`);
      expect(stepKey(long, 'defend')).toHaveLength(64);
      expect(stepKey(long, 'defend')).not.toBe(stepKey(`${long}y`, 'defend'));
    });
  });

  describe('accept', () => {
    it('accepts with the acceptance key, and the same acceptance again is answered from it', async () => {
      const { id, dispute } = await fresh('unused');
      const reference = contractSubmission(dispute, connection(), 'x').dispute;
      await adapter.acceptDispute({
        connection: connection(),
        dispute: reference,
        idempotencyKey: 'acc_adyen_1',
      });
      const call = fake.calls.at(-1);
      expect(call?.path).toBe('acceptDispute');
      expect(call?.headers['idempotency-key']).toBe('acc_adyen_1-accept');
      expect(call?.body).toEqual({ merchantAccountCode: 'RebuttalECOM', disputePspReference: id });
      expect(fake.accepted(id)).toBe(true);
      await adapter.acceptDispute({
        connection: connection(),
        dispute: reference,
        idempotencyKey: 'acc_adyen_1',
      });
      const other = await failure(() =>
        adapter.acceptDispute({
          connection: connection(),
          dispute: reference,
          idempotencyKey: 'acc_adyen_2',
        }),
      );
      expect(other).toMatchObject({
        retryable: false,
        message: 'Adyen refused acceptDispute: Dispute is not defendable.',
      });
    });
  });

  describe('maps every class of error, on submit and accept', () => {
    const calls = {
      submit: async (credentials?: Record<string, unknown>) => {
        const { request } = await fresh(`sub_adyen_errors_${fake.disputes.size}`);
        return adapter.submitEvidence({ ...request, connection: connection(credentials) });
      },
      accept: async (credentials?: Record<string, unknown>) => {
        const { dispute } = await fresh('unused');
        const reference = contractSubmission(dispute, connection(), 'x').dispute;
        return adapter.acceptDispute({
          connection: connection(credentials),
          dispute: reference,
          idempotencyKey: `acc_adyen_errors_${fake.disputes.size}`,
        });
      },
    };
    for (const [name, call] of Object.entries(calls)) {
      it(`${name}: a refused API key is permanent, with 401 and Adyen's error body`, async () => {
        const error = await failure(() => call({ ...adyenFakeCredentials, api_key: 'AQEwrongkey-0000' }));
        expect(error).toMatchObject({ retryable: false, status: 401 });
        expect(JSON.parse(error.excerpt ?? '')).toEqual({
          status: 401,
          errorCode: '000',
          message: 'HTTP Status Response - Unauthorized',
          errorType: 'security',
        });
      });
      it(`${name}: another merchant account is permanent, with 403`, async () => {
        const error = await failure(() => call({ ...adyenFakeCredentials, merchant_account: 'SomeoneElse' }));
        expect(error).toMatchObject({ retryable: false, status: 403 });
      });
      it(`${name}: 429 with Retry-After is transient, with the wait`, async () => {
        fake.server.inject({ kind: 'rate-limit', value: 7, times: 5 });
        const error = await failure(() => call());
        fake.server.clearFaults();
        expect(error).toMatchObject({ retryable: true, status: 429, retryAfterSeconds: 7 });
      });
      it(`${name}: 503 is transient, with the status and an excerpt of Adyen's answer`, async () => {
        fake.server.inject({ kind: 'unavailable', times: 5 });
        const error = await failure(() => call());
        fake.server.clearFaults();
        expect(error).toMatchObject({ retryable: true, status: 503 });
        expect(JSON.parse(error.excerpt ?? '')).toMatchObject({ status: 503, errorType: 'internal' });
      });
      it(`${name}: a dropped connection is transient, without a status`, async () => {
        fake.server.inject({ kind: 'drop', times: 5 });
        const error = await failure(() => call());
        fake.server.clearFaults();
        expect(error).toMatchObject({ retryable: true, status: undefined });
      });
    }
  });

  describe('webhooks', () => {
    const parse = (push: { headers: Record<string, string>; body: Buffer }, conn = connection()) =>
      adapter.parsePush({ connection: conn, ...push });

    it('reads a notification of chargeback in full, and answers [accepted]', async () => {
      const dispute = fake.addDispute({
        paymentMethod: 'visa',
        reasonCode: '13.1',
        currency: 'EUR',
        amount: 4999,
      });
      const event = dispute.history[0] as { at: Date };
      const result = await parse(fake.notification(dispute.pspReference));
      expect(result.reply).toEqual({ contentType: 'text/plain', body: '[accepted]' });
      expect(result.refresh).toEqual([]);
      expect(result.disputes).toEqual([
        {
          id: dispute.pspReference,
          state: 'needs_response',
          reason: 'product_not_received',
          kind: 'chargeback',
          chargedAt: null,
          disputedAt: new Date(adyenDate(event.at)),
          dueBy: new Date(adyenDate(dispute.defensePeriodEndsAt)),
          closedAt: null,
          charge: dispute.originalReference,
          isChargeRefundable: null,
          amount: 4999,
          currency: 'eur',
          fee: null,
          reversalAmount: null,
          reversalTotal: null,
          reversalCurrency: null,
          customer: dispute.shopperReference,
          customerName: null,
          customerEmail: null,
          customerPurchaseIp: null,
          addressZip: null,
          addressLine1Check: null,
          addressZipCheck: null,
          cvcCheck: null,
          statementDescriptor: null,
          network: 'visa',
          networkReasonCode: '13.1',
          processorStatus: 'NOTIFICATION_OF_CHARGEBACK',
          resolution: null,
          compellingEvidenceProcessorStatus: null,
        },
      ]);
    });

    it('follows a request for information through to its answer and a chargeback through to its reversal', async () => {
      const rfi = fake.addDispute({ retrieval: true, reasonCode: '33', paymentMethod: 'visa' });
      const read = async () => (await parse(fake.notification(rfi.pspReference))).disputes[0];
      expect(await read()).toMatchObject({
        state: 'warning_needs_response',
        kind: 'retrieval',
        reason: 'retrieved',
      });
      fake.record(rfi.pspReference, 'INFORMATION_SUPPLIED', 'Pending');
      expect(await read()).toMatchObject({
        state: 'warning_under_review',
        kind: 'retrieval',
        disputedAt: null,
      });

      const chargeback = fake.addDispute();
      const closed = new Date('2026-11-20T08:00:00Z');
      fake.record(chargeback.pspReference, 'CHARGEBACK_REVERSED', 'Won', closed);
      const [won] = (await parse(fake.notification(chargeback.pspReference))).disputes;
      expect(won).toMatchObject({ state: 'won', kind: 'chargeback', closedAt: closed });
    });

    it('reads the state from the signed event code alone: defendable and disputeStatus are not signed', async () => {
      const dispute = fake.addDispute({ defendable: false });
      fake.record(dispute.pspReference, 'CHARGEBACK', 'Lost');
      const result = await parse(fake.notification(dispute.pspReference));
      expect(result.disputes[0]?.state).toBe('needs_response');
      expect(result.unsigned).toEqual([
        'reason',
        'kind',
        'disputedAt',
        'dueBy',
        'closedAt',
        'customer',
        'network',
        'networkReasonCode',
      ]);
    });

    it('takes 100 items in one push', async () => {
      const ids = fake.addDisputes(100);
      const pushes = fake.notifications(ids);
      expect(pushes).toHaveLength(1);
      const result = await parse(pushes[0] as (typeof pushes)[number]);
      expect(result.disputes.map((dispute) => dispute.id)).toEqual(ids);
    });

    it("leaves out other events and other merchant accounts' disputes, once every item verifies", async () => {
      const [ours, theirs] = fake.addDisputes(2) as [string, string];
      const other = fake.notificationItem(theirs);
      const authorisation = fake.sign({
        additionalData: {},
        amount: { currency: 'EUR', value: 1000 },
        eventCode: 'AUTHORISATION',
        eventDate: '2026-11-20T10:00:00+01:00',
        merchantAccountCode: 'RebuttalECOM',
        merchantReference: 'order-x',
        pspReference: '7914073381342284',
        success: 'true',
      });
      const result = await parse(
        fake.push([
          fake.notificationItem(ours),
          fake.sign({ ...other, merchantAccountCode: 'OtherECOM' }),
          authorisation,
        ]),
      );
      expect(result.disputes.map((dispute) => dispute.id)).toEqual([ours]);
    });

    it('reads a notification of fraud as an alert, never actionable, beside the disputes of the batch', async () => {
      const fraud = fake.addFraudNotification({ currency: 'EUR', amount: 2599 });
      const [chargeback] = fake.addDisputes(1) as [string];
      const item = fake.notificationItem(fraud.pspReference);
      const result = await parse(fake.push([item, fake.notificationItem(chargeback)]));
      expect(result.disputes.map((dispute) => dispute.id)).toEqual([chargeback]);
      expect(result.alerts).toEqual([
        {
          id: fraud.pspReference,
          charge: fraud.originalReference,
          amount: 2599,
          currency: 'eur',
          fraudType: 'Other Fraud-Card Absent Environment',
          actionable: false,
          reportedAt: new Date(item.eventDate as string),
        },
      ]);
      expect(result.reply).toEqual({ contentType: 'text/plain', body: '[accepted]' });
      // Another merchant account's fraud report is left out, as its disputes are.
      const theirs = fake.sign({ ...item, merchantAccountCode: 'OtherECOM' });
      expect((await parse(fake.push([theirs]))).alerts).toBeUndefined();
    });

    it('refuses the whole push when one item is not signed with our key', async () => {
      const [good, bad] = fake.addDisputes(2) as [string, string];
      const forged = fake.sign(
        fake.notificationItem(bad),
        'ABCDEF0123456789ABCDEF0123456789ABCDEF0123456789ABCDEF0123456789',
      );
      await expect(parse(fake.push([fake.notificationItem(good), forged]))).rejects.toThrow(
        new PushRejectedError('notification item 2 does not carry a valid HMAC signature'),
      );
      const unsigned = { ...fake.notificationItem(good), additionalData: {} };
      await expect(parse(fake.push([unsigned]))).rejects.toBeInstanceOf(PushRejectedError);
    });

    it('refuses a test notification for a live account, a body that is not JSON, and another format', async () => {
      const [id] = fake.addDisputes(1) as [string];
      const live = { ...connection(), account: { ...contractAccount, livemode: true } };
      await expect(parse(fake.notification(id), live)).rejects.toThrow(
        new PushRejectedError('a test notification for a live account'),
      );
      await expect(
        parse({ headers: { 'content-type': 'application/json' }, body: Buffer.from('[accepted') }),
      ).rejects.toThrow(new PushRejectedError('the body is not JSON'));
      const form = {
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: Buffer.from('a=b'),
      };
      await expect(parse(form)).rejects.toBeInstanceOf(PushRejectedError);
      await expect(
        parse({ headers: { 'content-type': 'application/json' }, body: Buffer.from('{"live":"false"}') }),
      ).rejects.toBeInstanceOf(PushRejectedError);
    });
  });

  describe('the Dispute transaction details report', () => {
    const header =
      'Company Account,Merchant Account,Psp Reference,Merchant Reference,Payment Method,Record Date,' +
      'Record Date TimeZone,Dispute Currency,Dispute Amount,Record Type,Dispute PSP Reference,Dispute Reason,' +
      'RFI Scheme Code,RFI Reason Code,CB Scheme Code,CB Reason Code,NoF Scheme Code,NoF Reason Code,' +
      'Payment Date,Payment Date TimeZone,Dispute Date,Dispute Date TimeZone,Dispute End Date,Dispute End Date TimeZone';
    const csv = (...rows: string[]) => [header, ...rows].join('\n');

    it('reads every column it knows into the dispute, dates in their time zones', () => {
      const report = csv(
        'Co,RebuttalECOM,8815000000000001,order-1,mc,2026-07-01 10:00:00,CEST,EUR,12.50,NotificationOfChargeback,' +
          '9915000000000001,Goods not as described,,,mc,4853,,,2026-06-01 09:15:00,CEST,2026-06-30 23:00:00,CEST,' +
          '2026-07-20 23:59:59,CEST',
      );
      expect(adapter.readReport(report)).toEqual([
        {
          id: '9915000000000001',
          state: 'needs_response',
          reason: 'product_unacceptable',
          kind: 'chargeback',
          chargedAt: new Date('2026-06-01T07:15:00Z'),
          disputedAt: new Date('2026-06-30T21:00:00Z'),
          dueBy: new Date('2026-07-20T21:59:59Z'),
          closedAt: null,
          charge: '8815000000000001',
          isChargeRefundable: null,
          amount: 1250,
          currency: 'eur',
          fee: null,
          reversalAmount: null,
          reversalTotal: null,
          reversalCurrency: null,
          customer: null,
          customerName: null,
          customerEmail: null,
          customerPurchaseIp: null,
          addressZip: null,
          addressLine1Check: null,
          addressZipCheck: null,
          cvcCheck: null,
          statementDescriptor: null,
          network: 'mastercard',
          networkReasonCode: '4853',
          processorStatus: 'NOTIFICATION_OF_CHARGEBACK',
          resolution: null,
          compellingEvidenceProcessorStatus: null,
        },
      ]);
    });

    it('reads a dispute from its latest row, whatever the order of the file', () => {
      const row = (date: string, type: string) =>
        `Co,RebuttalECOM,8815000000000002,o,visa,${date},UTC,JPY,1000,${type},9915000000000002,Fraud,,,visa,10.4,,,,,,,,`;
      const [dispute] = adapter.readReport(
        csv(
          row('2026-07-09 12:00:00', 'ChargebackReversed'),
          row('2026-07-01 12:00:00', 'NotificationOfChargeback'),
        ),
      );
      expect(dispute).toMatchObject({
        state: 'won',
        amount: 1000,
        currency: 'jpy',
        reason: 'fraudulent',
        closedAt: new Date('2026-07-09T12:00:00Z'),
        disputedAt: null,
      });
    });

    it('leaves out the fraud reports (NotificationOfFraud rows): they are alerts, not disputes', () => {
      const fraud = fake.addFraudNotification();
      const [chargeback] = fake.addDisputes(1) as [string];
      const read = adapter.readReport(fake.report([fraud.pspReference, chargeback]));
      expect(read.map((dispute) => dispute.id)).toEqual([chargeback]);
      expect(adapter.readReport(fake.report([fraud.pspReference]))).toEqual([]);
    });

    it.each([
      ['12.50', 'EUR', 1250],
      ['12.5', 'USD', 1250],
      ['1000', 'JPY', 1000],
      ['3.125', 'KWD', 3125],
      ['-40.00', 'GBP', 4000],
    ])('reads the decimal amount %s %s as %i minor units', (amount, currency, minor) => {
      const row = `Co,M,8815,o,visa,2026-07-01 10:00:00,UTC,${currency},${amount},Chargeback,9915,R,,,visa,10.4,,,,,,,,`;
      expect(adapter.readReport(csv(row))[0]?.amount).toBe(minor);
    });

    it.each([
      [
        'an amount with more decimals than its currency',
        '12.505',
        'Chargeback',
        '2026-07-01 10:00:00',
        'UTC',
        /line 3: "12.505 EUR" is not an amount/,
      ],
      [
        'an amount that is not a number',
        'twelve',
        'Chargeback',
        '2026-07-01 10:00:00',
        'UTC',
        /line 3: "twelve EUR" is not an amount/,
      ],
      [
        'a record type that is not a dispute event',
        '12.50',
        'Settled',
        '2026-07-01 10:00:00',
        'UTC',
        /line 3: "Settled" is not a dispute record type/,
      ],
      [
        'a date that does not exist',
        '12.50',
        'Chargeback',
        '2026-02-30 10:00:00',
        'UTC',
        /line 3: "Record Date" 2026-02-30 10:00:00 UTC is not a date/,
      ],
      [
        'a time zone it cannot place',
        '12.50',
        'Chargeback',
        '2026-07-01 10:00:00',
        'IST',
        /line 3: "Record Date" 2026-07-01 10:00:00 IST is not a date/,
      ],
    ])('refuses the whole file for %s, naming the line', (_what, amount, type, date, zone, message) => {
      const good = 'Co,M,8815,o,visa,2026-07-01 10:00:00,UTC,EUR,1.00,Chargeback,9915,R,,,visa,10.4,,,,,,,,';
      const bad = `Co,M,8816,o,visa,${date},${zone},EUR,${amount},${type},9916,R,,,visa,10.4,,,,,,,,`;
      expect(() => adapter.readReport(csv(good, bad))).toThrow(ReportError);
      expect(() => adapter.readReport(csv(good, bad))).toThrow(message);
    });

    it('refuses a file without a column it needs, naming it', () => {
      expect(() => adapter.readReport('Psp Reference,Record Type\n1,Chargeback')).toThrow(
        new ReportError(
          'line 1: the header has no "Dispute PSP Reference", "Record Date", "Dispute Currency", "Dispute Amount" column',
        ),
      );
    });

    it("tells the fake's disputes as its webhooks do", async () => {
      const ids = fake.addDisputes(3);
      fake.move(ids[1] as string, 'under_review');
      fake.move(ids[2] as string, 'won');
      const fromReport = adapter.readReport(fake.report(ids));
      const [push] = fake.notifications(ids) as [{ headers: Record<string, string>; body: Buffer }];
      const fromPush = (await adapter.parsePush({ connection: connection(), ...push })).disputes;
      const view = (disputes: NormalizedDispute[]) =>
        disputes.map(({ id, state, kind, reason, amount, currency, charge, dueBy }) => ({
          id,
          state,
          kind,
          reason,
          amount,
          currency,
          charge,
          dueBy,
        }));
      expect(view(fromReport)).toEqual(view(fromPush));
    });
  });

  it('never logs the credentials', () => {
    const text = logs.text();
    expect(text).toContain('adyen dispute defended');
    for (const secret of Object.values(adyenFakeCredentials)) expect(text).not.toContain(secret);
  });
});
