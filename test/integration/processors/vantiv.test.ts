import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import {
  type NormalizedDispute,
  type ProcessorConnection,
  ProcessorError,
} from '../../../src/processors/types.js';
import { VantivAdapter } from '../../../src/processors/vantiv/adapter.js';
import { documentIdFor, noteFor } from '../../../src/processors/vantiv/evidence.js';
import { FakeServer } from '../../fakes/harness.js';
import { addDays, errorReply, startVantivFake, type VantivFake } from '../../fakes/vantiv.js';
import { adapterContract, contractAccount, contractSubmission } from '../../helpers/adapter-contract.js';
import { attached, contractFiles } from '../../helpers/evidence-files.js';
import { processorSpecs, vantivCredentials } from '../../helpers/processor-specs.js';

const credentials = vantivCredentials;

adapterContract(processorSpecs.vantiv);

const now = new Date('2026-03-10T12:00:00.000Z');

function connectionTo(fake: VantivFake, overrides: Partial<ProcessorConnection> = {}): ProcessorConnection {
  return {
    account: contractAccount,
    credentials: JSON.stringify(credentials),
    baseUrl: fake.server.url,
    readOnly: false,
    ...overrides,
  };
}

/** Pages until the adapter says there is no more, as the mirror does. */
async function pollFrom(adapter: VantivAdapter, connection: ProcessorConnection, cursor: string | null) {
  const pages: NormalizedDispute[][] = [];
  let at = cursor;
  for (;;) {
    const page = await adapter.listDisputes({ connection, cursor: at, limit: 100 });
    pages.push(page.disputes);
    at = page.nextCursor;
    if (!page.hasMore) return { pages, cursor: at, disputes: pages.flat() };
    if (pages.length > 100) throw new Error('more than 100 pages');
  }
}

const latestById = (disputes: NormalizedDispute[]) =>
  new Map(disputes.map((dispute) => [dispute.id, dispute]));

function submission(caseId: string, idempotencyKey: string, connection: ProcessorConnection) {
  const dispute = { id: caseId, state: 'needs_response', charge: null } as unknown as NormalizedDispute;
  return contractSubmission(dispute, connection, idempotencyKey);
}

async function refusal(promise: Promise<unknown>): Promise<ProcessorError> {
  const error = await promise.then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  expect(error).toBeInstanceOf(ProcessorError);
  return error as ProcessorError;
}

describe('vantiv adapter', () => {
  let fake: VantivFake;
  const adapter = new VantivAdapter();

  beforeEach(async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(now);
    fake = await startVantivFake();
  });
  afterEach(async () => {
    vi.useRealTimers();
    await fake.close();
  });

  describe('listing', () => {
    it('a first poll reads the cases waiting on the merchant, then every day from 30 days back to today', async () => {
      const old = fake.addCase({ day: '2026-01-02', replyByDay: '2026-03-20' });
      const recent = fake.addCase({ day: '2026-03-07' });
      fake.move(recent.caseId, 'under_review');

      const poll = await pollFrom(adapter, connectionTo(fake), null);

      const days = Array.from({ length: 31 }, (_, index) => `date=${addDays('2026-02-08', index)}`);
      expect(fake.listings).toEqual(['actionable=true', ...days]);
      expect(days.at(-1)).toBe('date=2026-03-10');
      expect(poll.cursor).toBe(JSON.stringify({ day: '2026-03-09' }));
      const latest = latestById(poll.disputes);
      expect(latest.get(old.caseId)?.state).toBe('needs_response');
      expect(latest.get(recent.caseId)?.state).toBe('under_review');
      expect(poll.pages[0]?.map((dispute) => dispute.id)).toEqual([old.caseId]);
    });

    it('a poll after the last page reads yesterday and today again, and finds what changed since', async () => {
      const [closing, staying] = fake.addDisputes(2) as [string, string];
      const first = await pollFrom(adapter, connectionTo(fake), null);
      const arriving = fake.addCase().caseId;
      fake.move(closing, 'won');

      const fakeListings = fake.listings.length;
      const second = await pollFrom(adapter, connectionTo(fake), first.cursor);

      expect(fake.listings.slice(fakeListings)).toEqual(['date=2026-03-09', 'date=2026-03-10']);
      const latest = latestById(second.disputes);
      expect(latest.get(arriving)?.state).toBe('needs_response');
      expect(latest.get(closing)).toMatchObject({
        state: 'won',
        closedAt: new Date('2026-03-10T00:00:00.000Z'),
      });
      // Arrived yesterday: listed with yesterday's page, unchanged.
      expect(latest.get(staying)?.state).toBe('needs_response');
      expect(second.cursor).toBe(JSON.stringify({ day: '2026-03-09' }));
    });

    it('activity Vantiv dates on a day UTC has already left is found by the next poll', async () => {
      const [id] = fake.addDisputes(1) as [string];
      vi.setSystemTime(new Date('2026-03-11T00:30:00.000Z'));
      const first = await pollFrom(adapter, connectionTo(fake), null);
      expect(first.cursor).toBe(JSON.stringify({ day: '2026-03-10' }));
      // Evening of the 10th in the US, past midnight UTC.
      fake.addActivity(id, {
        activityDate: '2026-03-10',
        activityType: 'Merchant Represent',
        fromQueue: 'Merchant',
        toQueue: 'Vantiv',
      });
      vi.setSystemTime(new Date('2026-03-11T02:00:00.000Z'));

      const second = await pollFrom(adapter, connectionTo(fake), first.cursor);

      expect(latestById(second.disputes).get(id)?.state).toBe('under_review');
    });

    it('a listing longer than a page is read in parts of 1,000 by descending case id, none missed or repeated', async () => {
      const spread = await startVantivFake({ spreadDays: 1 });
      try {
        const ids = spread.addDisputes(2300);
        const poll = await pollFrom(adapter, connectionTo(spread), null);
        const sizes = poll.pages.map((page) => page.length);
        expect(sizes).toEqual([1000, 1000, 300, ...Array(30).fill(0), 1000, 1000, 300]);
        const open = poll.pages.slice(0, 3).flat();
        expect(open.map((dispute) => dispute.id)).toEqual([...ids].reverse());
        const today = poll.pages.slice(-3).flat();
        expect(new Set(today.map((dispute) => dispute.id)).size).toBe(2300);
      } finally {
        await spread.close();
      }
    });

    it('resuming from a cursor committed inside a long listing misses none of its cases, nor one arriving meanwhile', async () => {
      const spread = await startVantivFake({ spreadDays: 1 });
      try {
        const ids = spread.addDisputes(1500);
        const connection = connectionTo(spread);
        const first = await adapter.listDisputes({ connection, cursor: null, limit: 100 });
        expect(first.disputes).toHaveLength(1000);
        // The worker stops here; meanwhile a case arrives and another is answered in iQ.
        const arriving = spread.addCase().caseId;
        const answered = ids[1200] as string;
        spread.move(answered, 'under_review');

        const rest = await pollFrom(adapter, connection, first.nextCursor);

        const latest = latestById([...first.disputes, ...rest.disputes]);
        expect(ids.filter((id) => !latest.has(id))).toEqual([]);
        expect(latest.get(arriving)?.state).toBe('needs_response');
        expect(latest.get(answered)?.state).toBe('under_review');
      } finally {
        await spread.close();
      }
    });

    it("lists and fetches only the cases of the account's merchant", async () => {
      const own = fake.addCase().caseId;
      const other = fake.addCase({ merchantId: '555000' }).caseId;
      const connection = connectionTo(fake);

      const poll = await pollFrom(adapter, connection, null);

      expect(poll.disputes.map((dispute) => dispute.id)).toContain(own);
      expect(poll.disputes.map((dispute) => dispute.id)).not.toContain(other);
      expect(await adapter.getDispute({ connection, id: other })).toBeNull();
      const error = await refusal(adapter.submitEvidence(submission(other, 'sub_other', connection)));
      expect(error).toMatchObject({ retryable: false });
      expect(fake.updates).toEqual([]);
    });

    it('reads an unreadable cursor as none: the first poll again', async () => {
      const page = await adapter.listDisputes({
        connection: connectionTo(fake),
        cursor: '{"page":3}',
        limit: 100,
      });
      expect(fake.listings).toEqual(['actionable=true']);
      expect(page.nextCursor).toBe(JSON.stringify({ day: '2026-02-08' }));
      expect(page.hasMore).toBe(true);
    });
  });

  describe('fetching', () => {
    it('normalizes every field Vantiv reports', async () => {
      const found = fake.addCase({
        day: '2026-03-02',
        cycle: 'Pre-Arbitration',
        cardType: 'MC',
        reasonCode: '4837',
        chargebackAmount: 71000,
        chargebackCurrencyType: 'JPY',
        dayIssuedByBank: '2026-02-27',
        originalTxnDay: '2026-01-15',
        replyByDay: '2026-03-25',
        vantivCnpTxnId: '82000000012345',
        customerId: 'cust-42',
      });

      const dispute = await adapter.getDispute({ connection: connectionTo(fake), id: found.caseId });

      expect(dispute).toEqual({
        id: found.caseId,
        state: 'needs_response',
        reason: 'fraudulent',
        kind: 'pre_arbitration',
        chargedAt: new Date('2026-01-15T00:00:00.000Z'),
        disputedAt: new Date('2026-02-27T00:00:00.000Z'),
        dueBy: new Date('2026-03-25T00:00:00.000Z'),
        closedAt: null,
        charge: '82000000012345',
        isChargeRefundable: null,
        amount: 71000,
        currency: 'jpy',
        fee: null,
        reversalAmount: null,
        reversalTotal: null,
        reversalCurrency: null,
        customer: 'cust-42',
        customerName: null,
        customerEmail: null,
        customerPurchaseIp: null,
        addressZip: null,
        addressLine1Check: null,
        addressZipCheck: null,
        cvcCheck: null,
        statementDescriptor: null,
        network: 'mastercard',
        networkReasonCode: '4837',
        processorStatus: 'Merchant',
        resolution: null,
        compellingEvidenceProcessorStatus: null,
      });
      const [request] = fake.server.requests;
      expect(request).toMatchObject({ method: 'GET', path: `/chargebacks/${found.caseId}` });
      expect(request?.headers.accept).toBe('application/com.vantivcnp.services-v2+xml');
      expect(request?.headers.authorization).toBe(
        `Basic ${Buffer.from('rebuttal-user:s3cret-password').toString('base64')}`,
      );
    });

    it('an unknown case is null (Vantiv answers 404); an id that is no case number is null without a call', async () => {
      const connection = connectionTo(fake);
      expect(await adapter.getDispute({ connection, id: '1288791999999' })).toBeNull();
      expect(fake.server.requests.map((request) => request.path)).toEqual(['/chargebacks/1288791999999']);
      expect(await adapter.getDispute({ connection, id: 'dp_123' })).toBeNull();
      expect(fake.server.requests).toHaveLength(1);
    });

    const represent = { activityType: 'Merchant Represent', toQueue: 'Vantiv' };
    const respond = { activityType: 'Merchant Respond', toQueue: 'Vantiv' };
    const accept = { activityType: 'Merchant Accepts Liability', toQueue: 'Merchant Assumed' };
    it.each([
      { name: 'a chargeback in the Merchant queue', fields: {}, state: 'needs_response' },
      {
        name: 'a retrieval request in the Merchant queue',
        fields: { cycle: 'Retrieval' },
        state: 'warning_needs_response',
      },
      {
        name: 'a chargeback past its reply-by day',
        fields: { replyByDay: '2026-03-09' },
        state: 'response_disabled',
      },
      { name: 'a represented chargeback', fields: {}, answer: represent, state: 'under_review' },
      {
        name: 'an answered retrieval request',
        fields: { cycle: 'Retrieval' },
        answer: respond,
        state: 'warning_under_review',
      },
      { name: 'an accepted chargeback', fields: {}, answer: accept, state: 'lost' },
      {
        name: 'an accepted retrieval request',
        fields: { cycle: 'Retrieval' },
        answer: accept,
        state: 'warning_closed',
      },
      {
        name: 'a chargeback the issuer reversed',
        fields: { cycle: 'Chargeback Reversal', currentQueue: 'Decision Final' },
        state: 'won',
      },
      {
        name: 'a chargeback ruled against the merchant',
        fields: { currentQueue: 'Decision Final' },
        state: 'lost',
      },
      { name: 'a chargeback Vantiv absorbed', fields: { currentQueue: 'Vantiv Assumed' }, state: 'won' },
    ])('reads $name as $state', async ({ fields, answer, state }) => {
      const found = fake.addCase({ day: '2026-03-01', ...fields });
      if (answer) fake.addActivity(found.caseId, { activityDate: '2026-03-05', ...answer });
      const dispute = await adapter.getDispute({ connection: connectionTo(fake), id: found.caseId });
      expect(dispute?.state).toBe(state);
    });
  });

  describe('submission', () => {
    it('uploads the PDF raw under a name from the idempotency key, then represents with a note naming it', async () => {
      const [id] = fake.addDisputes(1) as [string];
      const request = submission(id, 'sub_0001', connectionTo(fake));

      const result = await adapter.submitEvidence(request);

      expect(result).toEqual({ reference: 'rebuttal-sub_0001.pdf' });
      expect(fake.server.requests.map(({ method, path }) => `${method} ${path}`)).toEqual([
        `GET /chargebacks/${id}`,
        `POST /services/chargebacks/upload/${id}/rebuttal-sub_0001.pdf`,
        `PUT /chargebacks/${id}`,
      ]);
      const [, upload, update] = fake.server.requests;
      expect(upload?.headers['content-type']).toBe('application/pdf');
      expect(update?.headers['content-type']).toBe('application/com.vantivcnp.services-v2+xml');
      expect(fake.documents.get(id)?.get('rebuttal-sub_0001.pdf')).toEqual(request.response.document.pdf);
      expect(fake.updates).toEqual([
        {
          caseId: id,
          activityType: 'MERCHANT_REPRESENT',
          note: [
            'Rebuttal response document: rebuttal-sub_0001.pdf',
            `Order 4711 for ${id} was delivered on 2026-10-01 and signed for by the customer.`,
            'customer_name: Ada Lovelace',
            'shipping_tracking_number: TRACK-4711',
          ].join('\n'),
        },
      ]);
      expect((await adapter.getDispute({ connection: connectionTo(fake), id }))?.state).toBe('under_review');
    });

    it('answers a retrieval request with MERCHANT_RESPOND, after which it is warning_under_review', async () => {
      const { caseId } = fake.addCase({ cycle: 'Retrieval' });

      await adapter.submitEvidence(submission(caseId, 'sub_0002', connectionTo(fake)));

      expect(fake.updates.map((update) => update.activityType)).toEqual(['MERCHANT_RESPOND']);
      expect((await adapter.getDispute({ connection: connectionTo(fake), id: caseId }))?.state).toBe(
        'warning_under_review',
      );
    });

    it.each([
      ['the upload', 1, ['GET', 'POST', 'GET', 'PUT']],
      ['the represent', 2, ['GET']],
    ] as const)(
      'a retry after the answer to %s was lost uploads and represents once',
      async (_, lose, retried) => {
        const [id] = fake.addDisputes(1) as [string];
        const request = submission(id, `sub_lost${lose}`, connectionTo(fake));
        let calls = 0;
        fake.server.inject({ kind: 'drop-after', match: () => calls++ === lose });

        const error = await refusal(adapter.submitEvidence(request));
        expect(error.retryable).toBe(true);
        const before = fake.server.requests.length;
        expect(await adapter.submitEvidence(request)).toEqual({ reference: `rebuttal-sub_lost${lose}.pdf` });

        expect(fake.server.requests.slice(before).map((call) => call.method)).toEqual(retried);
        expect(fake.submissionCount(id)).toBe(1);
        expect(fake.updates.filter((update) => update.caseId === id)).toHaveLength(1);
        expect([...(fake.documents.get(id)?.keys() ?? [])]).toEqual([`rebuttal-sub_lost${lose}.pdf`]);
      },
    );

    it('a lost answer to the read of the case is read again in place, and the submission goes on', async () => {
      const [id] = fake.addDisputes(1) as [string];
      fake.server.inject({ kind: 'drop-after', match: (request) => request.method === 'GET' });

      await adapter.submitEvidence(submission(id, 'sub_read', connectionTo(fake)));

      expect(fake.server.requests.map((call) => call.method)).toEqual(['GET', 'GET', 'POST', 'PUT']);
      expect(fake.submissionCount(id)).toBe(1);
    });

    it('a document over the size limit is refused for good (005), and the case is not represented', async () => {
      const small = await startVantivFake({ maxDocumentBytes: 16 });
      try {
        const [id] = small.addDisputes(1) as [string];
        const error = await refusal(adapter.submitEvidence(submission(id, 'sub_big', connectionTo(small))));
        expect(error).toMatchObject({ retryable: false, status: 200 });
        expect(error.message).toBe('Vantiv refused the document (005: Filesize exceeds limit of 2MB).');
        expect(small.server.requests.map((call) => call.method)).toEqual(['GET', 'POST', 'GET']);
        expect(small.updates).toEqual([]);
      } finally {
        await small.close();
      }
    });

    it('uploads each evidence file as a document of the case, then the PDF, and names them in the note', async () => {
      const [id] = fake.addDisputes(1) as [string];
      const files = await contractFiles();
      await adapter.submitEvidence({ ...submission(id, 'sub_files', connectionTo(fake)), files });

      expect(
        fake.server.requests
          .filter((call) => call.method === 'POST')
          .map((call) => call.path.split('/').at(-1)),
      ).toEqual([
        'rebuttal-sub_files-file_contractreceipt00001.png',
        'rebuttal-sub_files-file_contractshipping0001.jpg',
        'rebuttal-sub_files-file_contractmessages0001.pdf',
        'rebuttal-sub_files-file_contractaccesslog001.png',
        'rebuttal-sub_files.pdf',
      ]);
      expect(fake.documents.get(id)?.get('rebuttal-sub_files-file_contractshipping0001.jpg')).toEqual(
        files[1]?.bytes,
      );
      expect(fake.updates[0]?.note?.split('\n').slice(0, 6)).toEqual([
        'Rebuttal response document: rebuttal-sub_files.pdf',
        'Evidence file rebuttal-sub_files-file_contractreceipt00001.png (receipt: Receipt e-mailed on 2026-09-28)',
        'Evidence file rebuttal-sub_files-file_contractshipping0001.jpg (shipping_documentation)',
        'Evidence file rebuttal-sub_files-file_contractmessages0001.pdf (customer_communication)',
        'Evidence file rebuttal-sub_files-file_contractaccesslog001.png (access_activity_log)',
        `Order 4711 for ${id} was delivered on 2026-10-01 and signed for by the customer.`,
      ]);
    });

    it('refuses evidence files over the 10 MB of a case before any call', async () => {
      const [id] = fake.addDisputes(1) as [string];
      const files = Array.from({ length: 6 }, (_, at) =>
        attached(`file_heavy0000000000000${at}`, Buffer.alloc(2 * 1024 * 1024), 'jpg', 'receipt'),
      );
      const request = { ...submission(id, 'sub_heavy', connectionTo(fake)), files };

      const error = await refusal(adapter.submitEvidence(request));

      expect(error).toMatchObject({ retryable: false, status: undefined });
      expect(error.message).toBe(
        `The files of the submission are ${6 * 2 * 1024 * 1024 + request.response.document.pdf.length} ` +
          "bytes together, over the processor's limit of 10 MB (10485760 bytes) in all; nothing was sent.",
      );
      expect(fake.server.requests).toEqual([]);
    });

    it('refuses an evidence file over 1 MB on an Amex case before any upload', async () => {
      const { caseId } = fake.addCase({ cardType: 'AX', reasonCode: 'F29' });
      const big = attached('file_amexreceipt00000001', Buffer.alloc(1024 * 1024 + 1), 'png', 'receipt');
      const request = { ...submission(caseId, 'sub_amex', connectionTo(fake)), files: [big] };

      const error = await refusal(adapter.submitEvidence(request));

      expect(error).toMatchObject({ retryable: false, status: undefined });
      expect(error.message).toBe(
        'The file file_amexreceipt00000001 (file_amexreceipt00000001.png) is 1048577 bytes, over the ' +
          "processor's limit of 1 MB (1048576 bytes) a file; nothing was sent.",
      );
      expect(fake.server.requests.map((call) => call.method)).toEqual(['GET']);
    });

    it('refuses a response document over 2 MB before any call', async () => {
      const [id] = fake.addDisputes(1) as [string];
      const request = submission(id, 'sub_bigpdf', connectionTo(fake));
      request.response.document.pdf = Buffer.alloc(2 * 1024 * 1024 + 1);

      const error = await refusal(adapter.submitEvidence(request));

      expect(error).toMatchObject({ retryable: false, status: undefined });
      expect(error.message).toBe(
        `The response document (response-${id}.pdf) is 2097153 bytes, over the processor's limit of ` +
          '2 MB (2097152 bytes) a file; nothing was sent.',
      );
      expect(fake.server.requests).toEqual([]);
    });

    it('a case that left the Merchant queue without our document is refused without asking Vantiv', async () => {
      const [id] = fake.addDisputes(1) as [string];
      fake.move(id, 'under_review');

      const error = await refusal(adapter.submitEvidence(submission(id, 'sub_late', connectionTo(fake))));

      expect(error).toMatchObject({ retryable: false, status: undefined });
      expect(error.message).toBe(
        `Case ${id} can no longer be answered: it is in the Vantiv queue (under_review).`,
      );
      expect(fake.server.requests.map((call) => call.method)).toEqual(['GET']);
    });

    it('an unknown case is refused for good', async () => {
      const error = await refusal(
        adapter.submitEvidence(submission('1288791999999', 'sub_x', connectionTo(fake))),
      );
      expect(error).toMatchObject({ retryable: false, status: 404 });
    });

    it('the note keeps within 4,000 characters, starting with the document it names', () => {
      const note = noteFor('rebuttal-sub_1.pdf', {
        uncategorized_text: 'x'.repeat(5000),
        customer_name: 'Ada',
      });
      expect(note).toHaveLength(4000);
      expect(note.startsWith('Rebuttal response document: rebuttal-sub_1.pdf\nxxx')).toBe(true);
      expect(note.endsWith('x…')).toBe(true);
      expect(noteFor('rebuttal-sub_1.pdf', { approved: true, amount: 12 })).toBe(
        'Rebuttal response document: rebuttal-sub_1.pdf\napproved: true\namount: 12',
      );
    });

    it('names documents after the idempotency key, in characters a path takes', () => {
      expect(documentIdFor('sub_2Xk9')).toBe('rebuttal-sub_2Xk9.pdf');
      expect(documentIdFor('a/b c:d')).toBe('rebuttal-a-b-c-d.pdf');
    });

    it('a read-only connection submits through the same calls', async () => {
      const [id] = fake.addDisputes(1) as [string];
      await adapter.submitEvidence(submission(id, 'sub_ro', connectionTo(fake, { readOnly: true })));
      expect(fake.server.requests.map((call) => call.method)).toEqual(['GET', 'POST', 'PUT']);
      expect(fake.submissionCount(id)).toBe(1);
    });
  });

  describe('acceptance', () => {
    it('accepts liability once; a retry after the answer was lost sends nothing again; the case then reads lost', async () => {
      const [id] = fake.addDisputes(1) as [string];
      const connection = connectionTo(fake);
      const { dispute } = submission(id, 'acc', connection);
      fake.server.inject({ kind: 'drop-after', match: (request) => request.method === 'PUT' });

      const error = await refusal(adapter.acceptDispute({ connection, dispute, idempotencyKey: 'acc_1' }));
      expect(error.retryable).toBe(true);
      await adapter.acceptDispute({ connection, dispute, idempotencyKey: 'acc_1' });

      expect(fake.updates).toEqual([
        {
          caseId: id,
          activityType: 'MERCHANT_ACCEPTS_LIABILITY',
          note: 'Liability accepted through Rebuttal (acc_1).',
        },
      ]);
      expect(fake.accepted(id)).toBe(true);
      expect(await adapter.getDispute({ connection, id })).toMatchObject({
        state: 'lost',
        closedAt: new Date('2026-03-10T00:00:00.000Z'),
      });
    });

    it('a case under review cannot be accepted, and Vantiv is not asked', async () => {
      const [id] = fake.addDisputes(1) as [string];
      fake.move(id, 'under_review');
      const connection = connectionTo(fake);
      const error = await refusal(
        adapter.acceptDispute({
          connection,
          dispute: submission(id, 'x', connection).dispute,
          idempotencyKey: 'a',
        }),
      );
      expect(error.retryable).toBe(false);
      expect(fake.updates).toEqual([]);
    });
  });

  describe('errors', () => {
    it('a refused login is permanent, with the 401 and Vantiv errorResponse, the password cut out', async () => {
      const connection = connectionTo(fake, {
        credentials: JSON.stringify({ ...credentials, password: 'wrong-password' }),
      });
      const error = await refusal(adapter.listDisputes({ connection, cursor: null, limit: 100 }));
      expect(error).toMatchObject({ retryable: false, status: 401 });
      expect(error.excerpt).toContain('<error>Unauthorized</error>');
      expect(error.excerpt).not.toContain('wrong-password');
    });

    it('an errorResponse in a 200 answer is a permanent refusal in Vantiv words', async () => {
      const server = await new FakeServer(
        () => errorReply(200, 'Invalid merchant'),
        (status, message) => errorReply(status, message),
      ).start();
      try {
        const connection = { ...connectionTo(fake), baseUrl: server.url };
        const error = await refusal(adapter.listDisputes({ connection, cursor: null, limit: 100 }));
        expect(error).toMatchObject({ retryable: false, status: 200 });
        expect(error.message).toBe('Vantiv refused the request: Invalid merchant.');
      } finally {
        await server.close();
      }
    });

    it('an answer that is not XML is permanent', async () => {
      const server = await new FakeServer(
        () => ({ status: 200, body: '<html><body>Maintenance' }),
        (status, message) => errorReply(status, message),
      ).start();
      try {
        const connection = { ...connectionTo(fake), baseUrl: server.url };
        const error = await refusal(adapter.getDispute({ connection, id: '1' }));
        expect(error).toMatchObject({
          retryable: false,
          status: 200,
          message: "The processor's answer is not XML.",
        });
      } finally {
        await server.close();
      }
    });

    it('refuses credentials without a merchant id at connect', () => {
      expect(adapter.checkCredentials(JSON.stringify({ username: 'u', password: 'p' }))).toBe(
        'merchant_id: Invalid input',
      );
      expect(adapter.checkCredentials(JSON.stringify({ ...credentials, merchant_id: 'M-1' }))).toBe(
        'merchant_id: digits',
      );
      expect(adapter.checkCredentials(JSON.stringify({ ...credentials, merchant_id: '1288791' }))).toBeNull();
      expect(adapter.checkCredentials(null)).toBe('credentials are required (--credentials-file)');
    });
  });
});
