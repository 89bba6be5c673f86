import { createHash } from 'node:crypto';
import { PDFDocument } from 'pdf-lib';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { StripeAdapter } from '../../../src/processors/stripe/adapter.js';
import { stripeApiVersion } from '../../../src/processors/stripe/client.js';
import { cutMarker } from '../../../src/processors/stripe/evidence.js';
import {
  type DisputeReference,
  type NormalizedDispute,
  type ProcessorConnection,
  ProcessorError,
  PushRejectedError,
  type SubmitEvidenceRequest,
} from '../../../src/processors/types.js';
import { type FakeRequest, multipartParts } from '../../fakes/harness.js';
import {
  stripeFakeCredentials as credentials,
  type StripeFake,
  startStripeFake,
  stripeFakeKeys,
} from '../../fakes/stripe.js';
import {
  adapterContract,
  capturingLogger,
  contractAccount,
  contractSubmission,
} from '../../helpers/adapter-contract.js';
import { attached, sampleJpeg, samplePdf, samplePng } from '../../helpers/evidence-files.js';
import { processorSpecs } from '../../helpers/processor-specs.js';

adapterContract(processorSpecs.stripe);

const day = 86_400;

describe('stripe adapter against the fake Stripe', () => {
  let fake: StripeFake;
  const logs = capturingLogger();
  const adapter = new StripeAdapter({ logger: logs.logger });
  const connection = (
    options: { credentials?: Record<string, unknown>; readOnly?: boolean; livemode?: boolean } = {},
  ): ProcessorConnection => ({
    account: { ...contractAccount, livemode: options.livemode ?? false },
    credentials: JSON.stringify(options.credentials ?? credentials),
    baseUrl: fake.server.url,
    readOnly: options.readOnly ?? false,
  });
  const readOnly = () =>
    connection({ credentials: { secret_key: stripeFakeKeys.restrictedKey }, readOnly: true });

  beforeAll(async () => {
    fake = await startStripeFake();
  });
  afterAll(() => fake.close());

  /** The requests the fake handled while `run` ran. */
  async function requestsDuring(run: () => Promise<unknown>): Promise<FakeRequest[]> {
    const before = fake.received.length;
    await run();
    return fake.received.slice(before);
  }

  /** Pages from `cursor` until the adapter says no more; every page and its cursor. */
  async function poll(cursor: string | null, options: { limit?: number; on?: ProcessorConnection } = {}) {
    const pages: { disputes: NormalizedDispute[]; nextCursor: string | null }[] = [];
    let at = cursor;
    for (;;) {
      const page = await adapter.listDisputes({
        connection: options.on ?? connection(),
        cursor: at,
        limit: options.limit ?? 100,
      });
      pages.push(page);
      at = page.nextCursor;
      if (!page.hasMore) break;
      if (pages.length > 500) throw new Error('the listing never ends');
    }
    const latest = new Map(pages.flatMap((page) => page.disputes).map((dispute) => [dispute.id, dispute]));
    return { pages, cursor: at, latest };
  }

  const reference = (id: string, accountId: string | null = null): DisputeReference => ({
    id,
    charge: fake.dispute(id).charge as string,
    accountId,
    reason: 'fraudulent',
    kind: 'chargeback',
    amount: fake.dispute(id).amount as number,
    currency: 'usd',
  });
  const submission = (id: string, key: string, accountId: string | null = null): SubmitEvidenceRequest => {
    const base = contractSubmission({ id } as NormalizedDispute, connection(), key);
    return { ...base, dispute: reference(id, accountId) };
  };
  const updateOf = (id: string) => (request: FakeRequest) =>
    request.method === 'POST' && request.path === `/v1/disputes/${id}`;
  const failure = async (run: () => Promise<unknown>): Promise<ProcessorError> => {
    try {
      await run();
    } catch (error) {
      expect(error).toBeInstanceOf(ProcessorError);
      return error as ProcessorError;
    }
    throw new Error('expected a ProcessorError');
  };

  describe('listing', () => {
    it('sends the key as a Bearer token, the pinned API version, 100 a page and the charges expanded', async () => {
      fake.addDisputes(3);
      const sent = await requestsDuring(() => poll(null));
      const [newestEvent, firstPage, caughtUp] = sent;
      for (const request of sent) {
        expect(request.headers.authorization).toBe(`Bearer ${stripeFakeKeys.secretKey}`);
        expect(request.headers['stripe-version']).toBe(stripeApiVersion);
        expect(request.headers['stripe-account']).toBeUndefined();
      }
      expect(sent.map((request) => `${request.method} ${request.path}`)).toEqual([
        'GET /v1/events',
        'GET /v1/disputes',
        'GET /v1/events',
      ]);
      expect(newestEvent?.query.get('limit')).toBe('1');
      expect(newestEvent?.query.getAll('types[]')).toEqual([
        'charge.dispute.created',
        'charge.dispute.updated',
        'charge.dispute.closed',
        'charge.dispute.funds_withdrawn',
        'charge.dispute.funds_reinstated',
      ]);
      expect(firstPage?.query.get('limit')).toBe('100');
      expect(firstPage?.query.getAll('expand[]')).toEqual(['data.charge']);
      expect(firstPage?.query.has('starting_after')).toBe(false);
      expect(caughtUp?.query.get('ending_before')).toBe(fake.events().at(-1)?.id);
    });

    it('normalizes every field Stripe fills, the charge expanded', async () => {
      const [id] = fake.addDisputes(1, {
        amount: 4711,
        currency: 'eur',
        reason: 'product_not_received',
        card: { brand: 'mastercard', code: '4855' },
      }) as [string];
      const { latest } = await poll(null);
      const charge = fake.chargeOf(id);
      const stripe = fake.dispute(id);
      expect(latest.get(id)).toEqual({
        id,
        state: 'needs_response',
        reason: 'product_not_received',
        kind: 'chargeback',
        chargedAt: new Date(charge.created * 1000),
        disputedAt: new Date((stripe.created as number) * 1000),
        dueBy: new Date(((stripe.created as number) + 14 * day) * 1000),
        closedAt: null,
        charge: charge.id,
        isChargeRefundable: false,
        amount: 4711,
        currency: 'eur',
        fee: 1500,
        reversalAmount: 4711,
        reversalTotal: 6211,
        reversalCurrency: 'eur',
        customer: 'cus_FakeAda',
        customerName: 'Ada Lovelace',
        customerEmail: 'ada@example.com',
        customerPurchaseIp: null,
        addressZip: '94107',
        addressLine1Check: 'pass',
        addressZipCheck: 'fail',
        cvcCheck: 'pass',
        statementDescriptor: 'REBUTTAL SHOP',
        network: 'mastercard',
        networkReasonCode: '4855',
        processorStatus: 'needs_response',
        resolution: null,
        compellingEvidenceProcessorStatus: null,
      } satisfies NormalizedDispute);
    });

    it('pages the backfill with starting_after, one limit at a time, and clamps the limit to 100', async () => {
      fake.addDisputes(5);
      let listed = 0;
      const small = await requestsDuring(async () => {
        listed = (await poll(null, { limit: 2 })).latest.size;
      });
      const pages = small.filter((request) => request.path === '/v1/disputes');
      expect(pages).toHaveLength(Math.ceil(listed / 2));
      expect(pages.every((request) => request.query.get('limit') === '2')).toBe(true);
      expect(pages[1]?.query.get('starting_after')).toMatch(/^du_/);
      const large = await requestsDuring(() =>
        adapter.listDisputes({ connection: connection(), cursor: null, limit: 500 }),
      );
      expect(large.find((request) => request.path === '/v1/disputes')?.query.get('limit')).toBe('100');
    });

    it('loses no change made while the backfill runs', async () => {
      const [older, listedFirst] = fake.addDisputes(2) as [string, string];
      // Newest first: the first page holds the newest dispute only.
      const first = await adapter.listDisputes({ connection: connection(), cursor: null, limit: 1 });
      expect(first.disputes.map((dispute) => dispute.id)).toEqual([listedFirst]);
      fake.move(listedFirst, 'under_review');
      fake.move(older, 'lost');
      const [arrived] = fake.addDisputes(1) as [string];
      const rest = await poll(first.nextCursor, { limit: 1 });
      expect(rest.latest.get(listedFirst)?.state).toBe('under_review');
      expect(rest.latest.get(older)?.state).toBe('lost');
      expect(rest.latest.get(arrived)?.state).toBe('needs_response');
    });

    it('resuming from any committed cursor misses no change', async () => {
      fake.addDisputes(4);
      const { pages } = await poll(null, { limit: 3 });
      const [moved] = fake.addDisputes(1) as [string];
      fake.move(moved, 'won');
      for (const page of pages) {
        const resumed = await poll(page.nextCursor, { limit: 3 });
        expect(resumed.latest.get(moved)?.state).toBe('won');
      }
    });

    it('a poll after the last page returns only what changed since, and nothing when nothing did', async () => {
      const { cursor } = await poll(null);
      const idle = await requestsDuring(() => poll(cursor));
      expect(idle.map((request) => `${request.method} ${request.path}`)).toEqual(['GET /v1/events']);
      const [id] = fake.addDisputes(1) as [string];
      const { latest, cursor: after } = await poll(cursor);
      expect([...latest.keys()]).toEqual([id]);
      const again = await poll(after);
      expect(again.latest.size).toBe(0);
    });

    it('reads a changed dispute as it is now, not as its event told it', async () => {
      const { cursor } = await poll(null);
      const [id] = fake.addDisputes(1) as [string];
      fake.move(id, 'won');
      // One event a page: the page of the creation event already reports the dispute won.
      const first = await adapter.listDisputes({ connection: connection(), cursor, limit: 1 });
      expect(first.hasMore).toBe(true);
      expect(first.disputes.map((dispute) => dispute.state)).toEqual(['won']);
      expect(first.disputes[0]?.closedAt).toBeInstanceOf(Date);
    });

    /** Runs `steps` with the clock (ours and the fake's) set to `at` unix seconds. */
    async function at<T>(seconds: number, steps: () => Promise<T>): Promise<T> {
      vi.useFakeTimers({ toFake: ['Date'] });
      vi.setSystemTime(seconds * 1000);
      try {
        return await steps();
      } finally {
        vi.useRealTimers();
      }
    }

    it('a month without dispute events: reads the events since the last poll by time, lists nothing again', async () => {
      const start = Math.floor(Date.now() / 1000);
      const { cursor } = await poll(null);
      const quiet = await at(start + 20 * day, () => poll(cursor));
      const later = start + 35 * day;
      const [id] = await at(later, async () => fake.addDisputes(1) as [string]);
      // Stripe keeps events 30 days: the anchor event of the first poll is gone.
      fake.pruneEventsBefore(later - 30 * day);
      const sent = await at(later, () =>
        requestsDuring(async () => {
          const { latest } = await poll(quiet.cursor);
          expect([...latest.keys()]).toEqual([id]);
        }),
      );
      expect(sent.map((request) => `${request.method} ${request.path}`)).toEqual([
        'GET /v1/events',
        `GET /v1/disputes/${id}`,
      ]);
      expect(sent[0]?.query.get('created[gte]')).toBe(String(start + 20 * day - 300));
      expect(sent[0]?.query.has('ending_before')).toBe(false);
    });

    it('a cursor older than Stripe keeps events: lists every dispute again', async () => {
      const start = Math.floor(Date.now() / 1000);
      const { cursor } = await poll(null);
      const sent = await at(start + 29 * day + 60, () =>
        requestsDuring(() => adapter.listDisputes({ connection: connection(), cursor, limit: 100 })),
      );
      expect(sent.map((request) => `${request.method} ${request.path}`)).toEqual([
        'GET /v1/events',
        'GET /v1/disputes',
      ]);
      expect(sent[0]?.query.get('limit')).toBe('1');
      expect(sent[1]?.query.has('starting_after')).toBe(false);
    });

    it('a cursor it cannot read: lists every dispute again', async () => {
      const sent = await requestsDuring(() =>
        adapter.listDisputes({ connection: connection(), cursor: 'not a cursor', limit: 100 }),
      );
      expect(sent.map((request) => `${request.method} ${request.path}`)).toEqual([
        'GET /v1/events',
        'GET /v1/disputes',
      ]);
      expect(sent[1]?.query.has('starting_after')).toBe(false);
    });

    it('starts from the first events when the account had none when its backfill began', async () => {
      const empty = await startStripeFake();
      const on = { ...connection(), baseUrl: empty.server.url };
      try {
        const { cursor } = await poll(null, { on });
        const [id] = empty.addDisputes(1) as [string];
        const { latest } = await poll(cursor, { on });
        expect(latest.get(id)?.state).toBe('needs_response');
      } finally {
        await empty.close();
      }
    });

    it('on a read-only account lists with a restricted key, without expanding charges', async () => {
      const [id] = fake.addDisputes(1) as [string];
      const sent = await requestsDuring(async () => {
        const { latest } = await poll(null, { on: readOnly() });
        expect(latest.get(id)).toMatchObject({
          state: 'needs_response',
          charge: fake.chargeOf(id).id,
          chargedAt: null,
          customer: null,
        });
      });
      expect(sent.every((request) => request.query.getAll('expand[]').length === 0)).toBe(true);
    });
  });

  describe('fetching one dispute', () => {
    it.each([
      ['warning_needs_response', 'warning_needs_response', 'retrieval', null],
      ['warning_under_review', 'warning_under_review', 'retrieval', null],
      ['warning_closed', 'warning_closed', 'retrieval', 'closed'],
      ['needs_response', 'needs_response', 'chargeback', null],
      ['under_review', 'under_review', 'chargeback', null],
      ['won', 'won', 'chargeback', 'closed'],
      ['lost', 'lost', 'chargeback', 'closed'],
    ] as const)('reads a dispute Stripe has as %s: %s, a %s', async (status, state, kind, closed) => {
      const [id] = fake.addDisputes(1, { status }) as [string];
      const dispute = await adapter.getDispute({ connection: connection(), id });
      expect(dispute).toMatchObject({ id, state, kind });
      expect(dispute?.closedAt ?? null).toEqual(
        closed ? new Date((fake.dispute(id).created as number) * 1000) : null,
      );
    });

    it('reads a dispute the issuer allows no response to (due_by 0) as response_disabled', async () => {
      const [id] = fake.addDisputes(1, { dueBy: 0 }) as [string];
      expect(await adapter.getDispute({ connection: connection(), id })).toMatchObject({
        state: 'response_disabled',
        dueBy: null,
      });
    });

    it('answers null for a dispute Stripe does not know', async () => {
      expect(await adapter.getDispute({ connection: connection(), id: 'du_unknown' })).toBeNull();
    });

    it('reads a won dispute closed when its funds were reinstated', async () => {
      const [id] = fake.addDisputes(1) as [string];
      fake.move(id, 'won');
      const dispute = await adapter.getDispute({ connection: connection(), id });
      const reinstated = (fake.dispute(id).balance_transactions as { created: number }[])[1];
      expect(dispute).toMatchObject({ state: 'won', closedAt: new Date((reinstated?.created ?? 0) * 1000) });
    });
  });

  describe('submitting evidence', () => {
    it('uploads the PDF under the submission key, then submits the evidence with it under the key', async () => {
      const [id] = fake.addDisputes(1) as [string];
      const request = submission(id, 'sub_exact0000000000000001');
      let reference: string | null = null;
      const sent = await requestsDuring(async () => {
        ({ reference } = await adapter.submitEvidence(request));
      });
      expect(sent.map((call) => `${call.method} ${call.path}`)).toEqual([
        `GET /v1/disputes/${id}`,
        'POST /v1/files',
        `POST /v1/disputes/${id}`,
      ]);
      const [read, upload, update] = sent as [FakeRequest, FakeRequest, FakeRequest];
      expect(read.query.getAll('expand[]')).toEqual([]);
      expect(upload.headers['idempotency-key']).toBe('sub_exact0000000000000001-document');
      const parts = multipartParts(upload);
      expect(parts.map((part) => [part.name, part.filename ?? null, part.contentType ?? null])).toEqual([
        ['purpose', null, null],
        ['file', `response-${id}-sub_exact0000000000000001.pdf`, 'application/pdf'],
      ]);
      expect(parts[0]?.data.toString()).toBe('dispute_evidence');
      expect(parts[1]?.data.equals(request.response.document.pdf)).toBe(true);
      expect(update.headers['idempotency-key']).toBe('sub_exact0000000000000001');
      expect(update.headers['content-type']).toBe('application/x-www-form-urlencoded');
      const file = (fake.dispute(id).evidence as Record<string, string>).uncategorized_file;
      expect(reference).toBe(file);
      expect(file).toMatch(/^file_/);
      expect(Object.fromEntries(new URLSearchParams(update.body.toString()))).toEqual({
        'evidence[customer_name]': 'Ada Lovelace',
        'evidence[shipping_tracking_number]': 'TRACK-4711',
        'evidence[uncategorized_text]': request.response.evidence.uncategorized_text,
        'evidence[uncategorized_file]': file,
        'metadata[rebuttal_submission]': 'sub_exact0000000000000001',
        submit: 'true',
      });
      expect(fake.dispute(id).status).toBe('under_review');
    });

    it('puts evidence Stripe has no field for in uncategorized_text, after the template text', async () => {
      const [id] = fake.addDisputes(1) as [string];
      const request = submission(id, 'sub_other0000000000000001');
      request.response.evidence = {
        product_description: 'One analytical engine',
        order_number: 'A-17',
        gift: true,
        uncategorized_text: 'The engine was delivered.',
      };
      const sent = await requestsDuring(() => adapter.submitEvidence(request));
      const form = new URLSearchParams(sent.at(-1)?.body.toString());
      expect(form.get('evidence[product_description]')).toBe('One analytical engine');
      expect(form.get('evidence[uncategorized_text]')).toBe(
        'The engine was delivered.\n\norder_number: A-17\ngift: true',
      );
      expect(form.has('evidence[order_number]')).toBe(false);
      expect(fake.submissionCount(id)).toBe(1);
    });

    it('cuts a template text over 20,000 characters, and Stripe takes it', async () => {
      const [id] = fake.addDisputes(1) as [string];
      const request = submission(id, 'sub_long00000000000000001');
      request.response.evidence = { uncategorized_text: 'x'.repeat(25_000) };
      const sent = await requestsDuring(() => adapter.submitEvidence(request));
      const text =
        new URLSearchParams(sent.at(-1)?.body.toString()).get('evidence[uncategorized_text]') ?? '';
      expect(text).toBe(`${'x'.repeat(20_000 - cutMarker.length)}${cutMarker}`);
      expect(fake.submissionCount(id)).toBe(1);
    });

    it('a retry of a submission that went through makes no second update', async () => {
      const [id] = fake.addDisputes(1) as [string];
      const request = submission(id, 'sub_again0000000000000001');
      const first = await adapter.submitEvidence(request);
      const sent = await requestsDuring(async () => {
        expect(await adapter.submitEvidence(request)).toEqual(first);
      });
      expect(sent.map((call) => `${call.method} ${call.path}`)).toEqual([`GET /v1/disputes/${id}`]);
      expect(fake.submissionCount(id)).toBe(1);
    });

    it('does not ask again once the dispute no longer awaits a response: a permanent refusal', async () => {
      const [id] = fake.addDisputes(1) as [string];
      fake.move(id, 'under_review');
      const sent = await requestsDuring(async () => {
        const error = await failure(() =>
          adapter.submitEvidence(submission(id, 'sub_late00000000000000001')),
        );
        expect(error.retryable).toBe(false);
        expect(error.message).toContain('under_review');
      });
      expect(sent.map((call) => call.method)).toEqual(['GET']);
      expect(fake.submissionCount(id)).toBe(0);
    });

    it('evidence refused because the dispute left needs_response meanwhile: permanent, with Stripe answer', async () => {
      const [id] = fake.addDisputes(1) as [string];
      // Someone answers the dispute in Stripe's Dashboard between the read and the update.
      fake.beforeHandling = (request) => {
        if (request.path === '/v1/files') fake.move(id, 'under_review');
      };
      try {
        const error = await failure(() =>
          adapter.submitEvidence(submission(id, 'sub_race00000000000000001')),
        );
        expect(error).toMatchObject({ retryable: false, status: 400 });
        expect(error.excerpt).toContain('invalid_request_error');
      } finally {
        fake.beforeHandling = undefined;
      }
      expect(fake.submissionCount(id)).toBe(0);
    });

    it('a key reused with another document is refused: permanent, with Stripe idempotency_error', async () => {
      const [id] = fake.addDisputes(1) as [string];
      const [other] = fake.addDisputes(1) as [string];
      await adapter.submitEvidence(submission(id, 'sub_reused000000000000001'));
      const reused = submission(other, 'sub_reused000000000000001');
      const error = await failure(() => adapter.submitEvidence(reused));
      expect(error.retryable).toBe(false);
      expect(error.status).toBe(400);
      expect(error.message).toBe(
        "The processor answered 400: Keys for idempotent requests can only be used with the same parameters they were first used with. Try using a key other than 'sub_reused000000000000001-document' if you meant to execute a different r…",
      );
      expect(error.excerpt).toContain('idempotency_error');
      expect(fake.submissionCount(other)).toBe(0);
    });

    it('a retry after a failed update sends the upload again byte for byte: Stripe replays it', async () => {
      const [id] = fake.addDisputes(1) as [string];
      const request = submission(id, 'sub_bytes0000000000000001');
      fake.server.inject({ kind: 'unavailable', match: updateOf(id) });
      const first = await requestsDuring(async () => {
        expect(await failure(() => adapter.submitEvidence(request))).toMatchObject({
          retryable: true,
          status: 503,
        });
      });
      const second = await requestsDuring(() => adapter.submitEvidence(request));
      const uploads = [...first, ...second].filter((call) => call.path === '/v1/files');
      expect(uploads).toHaveLength(2);
      const [once, again] = uploads as [FakeRequest, FakeRequest];
      expect(again.headers['content-type']).toBe(once.headers['content-type']);
      expect(again.body.equals(once.body)).toBe(true);
      expect(fake.filesNamed(`response-${id}-sub_bytes0000000000000001.pdf`)).toBe(1);
      expect(fake.submissionCount(id)).toBe(1);
    });

    it('an upload refused as another request under its key: the file that request made is used', async () => {
      const [id] = fake.addDisputes(1) as [string];
      const request = submission(id, 'sub_encod0000000000000001');
      const filename = `response-${id}-sub_encod0000000000000001.pdf`;
      // The same document under the same key, encoded otherwise (another version's random boundary).
      const form = new FormData();
      form.set('purpose', 'dispute_evidence');
      form.set('file', new Blob([new Uint8Array(request.response.document.pdf)]), filename);
      const earlier = await fetch(`${fake.server.url}/v1/files`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${stripeFakeKeys.secretKey}`,
          'idempotency-key': 'sub_encod0000000000000001-document',
        },
        body: form,
      });
      const uploaded = (await earlier.json()) as { id: string };
      const sent = await requestsDuring(async () => {
        expect(await adapter.submitEvidence(request)).toEqual({ reference: uploaded.id });
      });
      expect(sent.map((call) => `${call.method} ${call.path}`)).toEqual([
        `GET /v1/disputes/${id}`,
        'POST /v1/files',
        'GET /v1/files',
        `POST /v1/disputes/${id}`,
      ]);
      expect(fake.filesNamed(filename)).toBe(1);
      expect(fake.submissionCount(id)).toBe(1);
    });

    it('an update refused as another request under its key that submitted this evidence: succeeded', async () => {
      const [id] = fake.addDisputes(1) as [string];
      const key = 'sub_upda00000000000000001';
      const request = submission(id, key);
      // While the adapter uploads, the same update under the same key reaches Stripe encoded otherwise
      // (its parameters in another order), as a retry of another version of this service would send it.
      fake.server.inject({ kind: 'latency', value: 300, match: (call) => call.path === '/v1/files' });
      const running = adapter.submitEvidence(request);
      await vi.waitFor(() => expect(fake.server.requests.at(-1)?.path).toBe('/v1/files'));
      const file = await fetch(`${fake.server.url}/v1/files`, {
        method: 'POST',
        headers: { authorization: `Bearer ${stripeFakeKeys.secretKey}` },
        body: (() => {
          const form = new FormData();
          form.set('purpose', 'dispute_evidence');
          form.set('file', new Blob([new Uint8Array(request.response.document.pdf)]), 'other.pdf');
          return form;
        })(),
      }).then((answer) => answer.json() as Promise<{ id: string }>);
      const other = await fetch(`${fake.server.url}/v1/disputes/${id}`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${stripeFakeKeys.secretKey}`,
          'idempotency-key': key,
          'content-type': 'application/x-www-form-urlencoded',
        },
        body: new URLSearchParams({
          submit: 'true',
          'metadata[rebuttal_submission]': key,
          'evidence[uncategorized_file]': file.id,
        }).toString(),
      });
      expect(other.status).toBe(200);
      expect(await running).toEqual({ reference: file.id });
      expect(fake.submissionCount(id)).toBe(1);
    });

    it('refuses a document over 5 MB before sending anything', async () => {
      const [id] = fake.addDisputes(1) as [string];
      const request = submission(id, 'sub_large0000000000000001');
      const pdf = Buffer.concat([Buffer.from('%PDF-1.4\n'), Buffer.alloc(5 * 1024 * 1024)]);
      request.response.document = {
        ...request.response.document,
        pdf,
        sha256: createHash('sha256').update(pdf).digest('hex'),
      };
      const sent = await requestsDuring(async () => {
        const error = await failure(() => adapter.submitEvidence(request));
        expect(error.retryable).toBe(false);
        expect(error.message).toBe(
          `The response document (response-${id}.pdf) is ${pdf.length} bytes, over the processor's limit of 5 MB (5242880 bytes) a file; nothing was sent.`,
        );
      });
      expect(sent).toEqual([]);
    });

    it('sends each evidence file in the field of its category, under a key of the submission and the file', async () => {
      const [id] = fake.addDisputes(1) as [string];
      const key = 'sub_slots0000000000000001';
      const receipt = attached('file_slotsreceipt0000001', samplePng('Receipt 17'), 'png', 'receipt');
      const log = attached('file_slotsaccesslog00001', samplePng('Logins'), 'png', 'access_activity_log');
      const request = { ...submission(id, key), files: [receipt, log] };
      const sent = await requestsDuring(() => adapter.submitEvidence(request));
      const uploads = sent.filter((call) => call.path === '/v1/files');
      expect(uploads.map((call) => call.headers['idempotency-key'])).toEqual([
        `${key}-document`,
        `${key}-file_slotsreceipt0000001`,
      ]);
      expect(
        multipartParts(uploads[1] as FakeRequest).map((part) => [
          part.name,
          part.filename ?? null,
          part.contentType ?? null,
        ]),
      ).toEqual([
        ['purpose', null, null],
        ['file', `receipt-${key}.png`, 'image/png'],
      ]);
      const form = Object.fromEntries(new URLSearchParams(sent.at(-1)?.body.toString()));
      const evidence = fake.dispute(id).evidence as Record<string, string | null>;
      expect(form['evidence[receipt]']).toBe(evidence.receipt);
      expect(fake.slotted(id)).toEqual([{ slot: 'receipt', bytes: receipt.bytes }]);
      expect(evidence.access_activity_log).toBeNull();
    });

    it('merges several files of one category into one PDF of all their pages, the same bytes on a retry', async () => {
      const [id] = fake.addDisputes(1) as [string];
      const key = 'sub_merge0000000000000001';
      const files = [
        attached(
          'file_mergemessages000001',
          await samplePdf('Messages', 3),
          'pdf',
          'customer_communication',
          {
            pages: 3,
          },
        ),
        attached(
          'file_mergechat0000000001',
          samplePng('Chat, wide', 1200, 500),
          'png',
          'customer_communication',
        ),
        attached('file_mergeletter00000001', sampleJpeg('Letter', 500, 900), 'jpg', 'customer_communication'),
        attached('file_mergereply000000001', await samplePdf('Reply', 2), 'pdf', 'customer_communication', {
          pages: 2,
        }),
      ];
      const request = { ...submission(id, key), files };
      fake.server.inject({ kind: 'unavailable', match: updateOf(id) });
      const first = await requestsDuring(async () => {
        expect((await failure(() => adapter.submitEvidence(request))).retryable).toBe(true);
      });
      const second = await requestsDuring(() => adapter.submitEvidence(request));
      const merged = (calls: FakeRequest[]) =>
        calls.find((call) => call.headers['idempotency-key'] === `${key}-customer_communication`);
      expect(merged(second)?.body.equals(merged(first)?.body as Buffer)).toBe(true);
      const [slot] = fake.slotted(id);
      expect(slot?.slot).toBe('customer_communication');
      const pdf = await PDFDocument.load(slot?.bytes as Buffer);
      expect(pdf.getPageCount()).toBe(3 + 1 + 1 + 2);
      // The wide image on a landscape page, the tall one on a portrait page.
      expect(pdf.getPages().map((page) => [page.getWidth(), page.getHeight()])).toEqual([
        [612, 792],
        [612, 792],
        [612, 792],
        [792, 612],
        [612, 792],
        [612, 792],
        [612, 792],
      ]);
      expect(fake.filesNamed(`customer_communication-${key}.pdf`)).toBe(1);
      expect(fake.submissionCount(id)).toBe(1);
    });

    it('refuses an evidence file over 5 MB before any call, naming the file and the limit', async () => {
      const [id] = fake.addDisputes(1) as [string];
      const big = Buffer.concat([samplePng('Large'), Buffer.alloc(5 * 1024 * 1024)]);
      const file = attached('file_largereceipt0000001', big, 'png', 'receipt', { filename: 'scan.png' });
      const request = { ...submission(id, 'sub_bigfile000000000001'), files: [file] };
      const sent = await requestsDuring(async () => {
        const error = await failure(() => adapter.submitEvidence(request));
        expect(error.retryable).toBe(false);
        expect(error.message).toBe(
          `The file file_largereceipt0000001 (scan.png) is ${big.length} bytes, over the processor's limit of 5 MB (5242880 bytes) a file; nothing was sent.`,
        );
      });
      expect(sent).toEqual([]);
      expect(fake.submissionCount(id)).toBe(0);
    });
  });

  describe('connected accounts (Stripe-Account)', () => {
    it('submits, accepts and finds past payments of a direct charge on the connected account', async () => {
      const account = 'acct_1FakeConnected01';
      const [submitted, accepted] = fake.addDisputes(2, { account }) as [string, string];
      const sent = await requestsDuring(async () => {
        await adapter.submitEvidence(submission(submitted, 'sub_connect00000000000001', account));
        await adapter.acceptDispute({
          connection: connection(),
          dispute: reference(accepted, account),
          idempotencyKey: 'acc_connect01',
        });
        const payments = await adapter.pastPayments({
          connection: connection(),
          dispute: reference(submitted, account),
          limit: 10,
        });
        expect(payments.length).toBe(2);
      });
      expect(sent.map((call) => `${call.method} ${call.path}`)).toEqual([
        `GET /v1/disputes/${submitted}`,
        'POST /v1/files',
        `POST /v1/disputes/${submitted}`,
        `POST /v1/disputes/${accepted}/close`,
        `GET /v1/charges/${fake.chargeOf(submitted).id}`,
        'GET /v1/charges/search',
      ]);
      expect(sent.every((call) => call.headers['stripe-account'] === account)).toBe(true);
      expect(fake.submissionCount(submitted)).toBe(1);
      expect(fake.accepted(accepted)).toBe(true);
    });

    it('without the header Stripe does not find the connected account dispute', async () => {
      const [id] = fake.addDisputes(1, { account: 'acct_1FakeConnected02' }) as [string];
      const error = await failure(() => adapter.submitEvidence(submission(id, 'sub_noheader0000000000001')));
      expect(error).toMatchObject({ retryable: false, status: 404 });
    });
  });

  describe('accepting', () => {
    it('closes the dispute under the idempotency key; a repeat is replayed, not refused', async () => {
      const [id] = fake.addDisputes(1) as [string];
      const accept = () =>
        adapter.acceptDispute({
          connection: connection(),
          dispute: reference(id),
          idempotencyKey: 'acc_once01',
        });
      const sent = await requestsDuring(accept);
      expect(sent.map((call) => `${call.method} ${call.path} ${call.headers['idempotency-key']}`)).toEqual([
        `POST /v1/disputes/${id}/close acc_once01`,
      ]);
      await accept();
      expect(fake.dispute(id).status).toBe('lost');
      expect(fake.accepted(id)).toBe(true);
    });

    it('a dispute under review cannot be closed: permanent refusal', async () => {
      const [id] = fake.addDisputes(1) as [string];
      fake.move(id, 'under_review');
      const error = await failure(() =>
        adapter.acceptDispute({
          connection: connection(),
          dispute: reference(id),
          idempotencyKey: 'acc_late01',
        }),
      );
      expect(error).toMatchObject({ retryable: false, status: 400 });
    });
  });

  describe('past payments', () => {
    it('searches by the card fingerprint for earlier successful undisputed charges, newest first', async () => {
      const [id] = fake.addDisputes(1) as [string];
      const disputed = fake.chargeOf(id);
      let payments: Awaited<ReturnType<StripeAdapter['pastPayments']>> = [];
      const sent = await requestsDuring(async () => {
        payments = await adapter.pastPayments({
          connection: connection(),
          dispute: reference(id),
          limit: 10,
        });
      });
      const fingerprint = (disputed.payment_method_details as { card: { fingerprint: string } }).card
        .fingerprint;
      expect(sent.map((call) => `${call.method} ${call.path}`)).toEqual([
        `GET /v1/charges/${disputed.id}`,
        'GET /v1/charges/search',
      ]);
      const since = Math.floor(disputed.created / day) * day - 365 * day;
      expect(sent[1]?.query.get('query')).toBe(
        `payment_method_details.card.fingerprint:"${fingerprint}" AND status:"succeeded" AND disputed:"false" AND refunded:"false" AND created>=${since} AND created<${disputed.created}`,
      );
      expect(sent[1]?.query.get('limit')).toBe('10');
      expect(payments).toEqual([
        {
          id: expect.stringMatching(/^ch_/),
          amount: 3500,
          currency: 'usd',
          charged_at: disputed.created - 18 * day,
          item_description: expect.stringMatching(/^Order for ch_/),
          user_id: 'cus_FakeAda',
          shipping_address: '1 Analytical Way, N1 9GU London, GB',
          email: 'ada@example.com',
        },
        expect.objectContaining({ amount: 2500, charged_at: disputed.created - 38 * day }),
      ]);
    });

    it('looks back 365 calendar days and leaves out refunded charges, fully or partly', async () => {
      const [id] = fake.addDisputes(1) as [string];
      const disputed = fake.chargeOf(id);
      const startOfDay = Math.floor(disputed.created / day) * day;
      const oldest = fake.addEarlierCharge(id, 365);
      oldest.created = startOfDay - 365 * day;
      fake.addEarlierCharge(id, 365).created = startOfDay - 365 * day - 1;
      fake.addEarlierCharge(id, 50).refunded = true;
      fake.addEarlierCharge(id, 60).amount_refunded = 500;
      const payments = await adapter.pastPayments({
        connection: connection(),
        dispute: reference(id),
        limit: 10,
      });
      expect(payments.map((payment) => (disputed.created - Number(payment.charged_at)) / day)).toEqual([
        18,
        38,
        (disputed.created - oldest.created) / day,
      ]);
    });

    it('for a Visa fraud dispute, takes the charges 120 to 365 days old first, searched apart', async () => {
      const [id] = fake.addDisputes(1) as [string];
      const disputed = fake.chargeOf(id);
      for (let days = 1; days <= 12; days++) fake.addEarlierCharge(id, days);
      const windowed = [200, 150].map((days) => fake.addEarlierCharge(id, days).id);
      const ask = (compellingEvidence: boolean) =>
        adapter.pastPayments({
          connection: connection(),
          dispute: reference(id),
          limit: 10,
          compellingEvidence,
        });
      const newest = await ask(false);
      expect(newest).toHaveLength(10);
      expect(newest.map((payment) => payment.id)).not.toContain(windowed[0]);
      let preferred: Awaited<ReturnType<typeof ask>> = [];
      const sent = await requestsDuring(async () => {
        preferred = await ask(true);
      });
      // Newest first: eight of the recent ones, then the two in the window.
      expect(preferred).toHaveLength(10);
      expect(preferred.slice(8).map((payment) => payment.id)).toEqual([windowed[1], windowed[0]]);
      expect(
        preferred.slice(0, 8).map((payment) => (disputed.created - Number(payment.charged_at)) / day),
      ).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
      const startOfDay = Math.floor(disputed.created / day) * day;
      expect(
        sent.filter((call) => call.path === '/v1/charges/search').map((call) => call.query.get('query')),
      ).toEqual([
        expect.stringMatching(
          new RegExp(`AND created>=${startOfDay - 365 * day} AND created<${startOfDay - 119 * day}$`),
        ),
        expect.stringMatching(
          new RegExp(`AND created>=${startOfDay - 119 * day} AND created<${disputed.created}$`),
        ),
      ]);
    });

    it('looks nothing up on a read-only account', async () => {
      const [id] = fake.addDisputes(1) as [string];
      const sent = await requestsDuring(async () => {
        expect(
          await adapter.pastPayments({ connection: readOnly(), dispute: reference(id), limit: 10 }),
        ).toEqual([]);
      });
      expect(sent).toEqual([]);
    });

    it('a restricted key cannot read charges: Stripe answers 403, a permanent error', async () => {
      const [id] = fake.addDisputes(1) as [string];
      const restricted = connection({ credentials: { secret_key: stripeFakeKeys.restrictedKey } });
      const error = await failure(() =>
        adapter.pastPayments({ connection: restricted, dispute: reference(id), limit: 10 }),
      );
      expect(error).toMatchObject({ retryable: false, status: 403 });
    });
  });

  describe('pushes', () => {
    it('names the dispute of a charge.dispute event to fetch again', async () => {
      const [id] = fake.addDisputes(1) as [string];
      expect(await adapter.parsePush({ connection: connection(), ...fake.signedEvent(id) })).toEqual({
        refresh: [id],
        disputes: [],
      });
    });

    it('takes any v1 signature that matches, as while a signing secret is rolled', async () => {
      const [id] = fake.addDisputes(1) as [string];
      const push = fake.signedEvent(id);
      const header = push.headers['stripe-signature'] as string;
      const rolled = header.replace(',v1=', `,v1=${'0'.repeat(64)},v1=`);
      const result = await adapter.parsePush({
        connection: connection(),
        headers: { 'stripe-signature': rolled },
        body: push.body,
      });
      expect(result.refresh).toEqual([id]);
    });

    it('refuses a signature more than five minutes old', async () => {
      const [id] = fake.addDisputes(1) as [string];
      const old = fake.signedEvent(id, Math.floor(Date.now() / 1000) - 301);
      await expect(adapter.parsePush({ connection: connection(), ...old })).rejects.toBeInstanceOf(
        PushRejectedError,
      );
    });

    it('refuses a signature made with another secret', async () => {
      const [id] = fake.addDisputes(1) as [string];
      const push = fake.signedEvent(id);
      const other = { ...credentials, webhook_secret: 'whsec_SomeOtherEndpointSecret000001' };
      await expect(
        adapter.parsePush({ connection: connection({ credentials: other }), ...push }),
      ).rejects.toBeInstanceOf(PushRejectedError);
    });

    it('refuses every push when the credentials have no webhook_secret', async () => {
      const [id] = fake.addDisputes(1) as [string];
      const keyOnly = connection({ credentials: { secret_key: stripeFakeKeys.secretKey } });
      await expect(
        adapter.parsePush({ connection: keyOnly, ...fake.signedEvent(id) }),
      ).rejects.toBeInstanceOf(PushRejectedError);
    });

    it('answers nothing to refresh for other events', async () => {
      const body = Buffer.from(
        JSON.stringify({
          id: 'evt_other',
          object: 'event',
          type: 'charge.succeeded',
          data: { object: { id: 'ch_1' } },
        }),
      );
      expect(await adapter.parsePush({ connection: connection(), ...fake.sign(body) })).toEqual({
        refresh: [],
        disputes: [],
      });
    });

    it('refuses a signed body that is not a Stripe event', async () => {
      await expect(
        adapter.parsePush({ connection: connection(), ...fake.sign(Buffer.from('[]')) }),
      ).rejects.toBeInstanceOf(PushRejectedError);
    });
  });

  describe('credentials', () => {
    it.each([
      [{ secret_key: 'sk_test_abc123' }, null],
      [{ secret_key: 'sk_live_abc123', webhook_secret: 'whsec_abc123' }, null],
      [{ secret_key: 'rk_live_abc123' }, null],
      [{ secret_key: 'pk_test_abc123' }, /secret_key: must be a secret key/],
      [
        { secret_key: 'sk_test_abc123', webhook_secret: 'abc123' },
        /webhook_secret: must be a webhook signing secret/,
      ],
      [{}, /secret_key/],
    ])('checks %j', (given, expected) => {
      const problem = adapter.checkCredentials(JSON.stringify(given));
      if (expected === null) expect(problem).toBeNull();
      else expect(problem).toMatch(expected);
    });

    it('refuses a test key on a live account without calling Stripe', async () => {
      const sent = await requestsDuring(async () => {
        const error = await failure(() =>
          adapter.listDisputes({ connection: connection({ livemode: true }), cursor: null, limit: 10 }),
        );
        expect(error.retryable).toBe(false);
      });
      expect(sent).toEqual([]);
    });

    it('never logs the keys', () => {
      const text = logs.text();
      expect(text.length).toBeGreaterThan(0);
      for (const secret of Object.values(stripeFakeKeys)) expect(text).not.toContain(secret);
    });
  });
});
