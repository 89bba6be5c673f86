import { createHash, createHmac } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { BraintreeAdapter } from '../../../src/processors/braintree/adapter.js';
import { BraintreeClient } from '../../../src/processors/braintree/client.js';
import { ProcessorHttp } from '../../../src/processors/http.js';
import {
  type NormalizedDispute,
  type ProcessorConnection,
  ProcessorError,
  PushRejectedError,
} from '../../../src/processors/types.js';
import { type BraintreeFake, startBraintreeFake } from '../../fakes/braintree.js';
import { adapterContract, contractAccount, contractSubmission } from '../../helpers/adapter-contract.js';
import { attached, contractFiles } from '../../helpers/evidence-files.js';
import { braintreeCredentials, processorSpecs } from '../../helpers/processor-specs.js';

const credentials = braintreeCredentials;
const fakeKeys = {
  merchantId: credentials.merchant_id,
  publicKey: credentials.public_key,
  privateKey: credentials.private_key,
};

adapterContract(processorSpecs.braintree);

/** A clock both sides share, so that scan days and event dates are what a test says. */
function clock(start: string) {
  let at = new Date(start);
  return {
    now: () => at,
    advanceDays(days: number) {
      at = new Date(at.getTime() + days * 86_400_000);
    },
  };
}

let fake: BraintreeFake;
let time: ReturnType<typeof clock>;
let adapter: BraintreeAdapter;

beforeEach(async () => {
  time = clock('2026-03-10T12:00:00Z');
  fake = await startBraintreeFake({ ...fakeKeys, now: time.now });
  adapter = new BraintreeAdapter({}, { now: time.now });
});
afterEach(async () => {
  await fake.close();
});

function connection(overrides: Partial<ProcessorConnection> = {}): ProcessorConnection {
  return {
    account: contractAccount,
    credentials: JSON.stringify(credentials),
    baseUrl: fake.server.url,
    readOnly: false,
    ...overrides,
  };
}

async function poll(from: string | null, limit = 100) {
  const seen: NormalizedDispute[] = [];
  let cursor = from;
  let pages = 0;
  for (;;) {
    const page = await adapter.listDisputes({ connection: connection(), cursor, limit });
    seen.push(...page.disputes);
    cursor = page.nextCursor;
    pages += 1;
    if (!page.hasMore) return { seen, cursor, pages };
  }
}

const searches = () => fake.calls.filter((call) => call.path.endsWith('/disputes/advanced_search'));
const writes = () => fake.calls.filter((call) => call.method !== 'GET');

async function submission(id: string, key: string) {
  const dispute = await adapter.getDispute({ connection: connection(), id });
  if (!dispute) throw new Error(`no dispute ${id}`);
  return contractSubmission(dispute, connection(), key);
}

describe('braintree wire format', () => {
  it('calls under the merchant path with Basic keys, X-ApiVersion 6 and XML, paging with ?page=', async () => {
    fake.addDisputes(1);
    await adapter.listDisputes({ connection: connection(), cursor: null, limit: 10 });
    const [call] = searches();
    expect(call?.method).toBe('POST');
    expect(call?.path).toBe('/merchants/fake1merchant2id/disputes/advanced_search');
    expect(call?.query).toBe('page=1');
    expect(call?.headers.authorization).toBe(
      `Basic ${Buffer.from('fakepublickey123:fakeprivatekey4567890abcdef').toString('base64')}`,
    );
    expect(call?.headers['x-apiversion']).toBe('6');
    expect(call?.headers.accept).toBe('application/xml');
    expect(call?.headers['content-type']).toBe('application/xml');
    expect(call?.body).toBe('<?xml version="1.0" encoding="UTF-8"?><search></search>');
  });

  it('normalizes a dispute: minor units in the currency’s decimals, lower-case currency, dates, charge', async () => {
    const yen = fake.addDispute({
      amount: '1500',
      currency: 'JPY',
      kind: 'pre_arbitration',
      reason: 'fraud',
    });
    const dinar = fake.addDispute({ amount: '12.345', currency: 'BHD', reason: 'not_recognized' });
    const got = await adapter.getDispute({ connection: connection(), id: yen });
    expect(got).toMatchObject({
      id: yen,
      state: 'needs_response',
      reason: 'fraudulent',
      kind: 'pre_arbitration',
      amount: 1500,
      currency: 'jpy',
      charge: fake.disputes.get(yen)?.transactionId,
      disputedAt: new Date('2026-03-10T00:00:00Z'),
      dueBy: new Date('2026-03-24T00:00:00Z'),
      chargedAt: new Date('2026-02-28T12:00:00Z'),
      closedAt: null,
    });
    expect(await adapter.getDispute({ connection: connection(), id: dinar })).toMatchObject({
      amount: 12345,
      currency: 'bhd',
      reason: 'unrecognized',
    });
  });

  it('answers null for a dispute Braintree does not know', async () => {
    expect(await adapter.getDispute({ connection: connection(), id: 'dp_unknown' })).toBeNull();
  });

  it('maps a retrieval to the warning states and a closed dispute with the time it closed', async () => {
    const retrieval = fake.addDispute({ kind: 'retrieval', reason: 'retrieval' });
    const closing = fake.addDispute();
    time.advanceDays(2);
    fake.setStatus(closing, 'won');
    expect(await adapter.getDispute({ connection: connection(), id: retrieval })).toMatchObject({
      state: 'warning_needs_response',
      reason: 'retrieved',
      kind: 'retrieval',
    });
    expect(await adapter.getDispute({ connection: connection(), id: closing })).toMatchObject({
      state: 'won',
      closedAt: new Date('2026-03-12T12:00:00Z'),
    });
  });

  it('refuses, permanently and naming the field, a dispute whose status it does not know', async () => {
    const id = fake.addDispute();
    fake.setStatus(id, 'pending_arbitration');
    const error = await adapter
      .getDispute({ connection: connection(), id })
      .catch((thrown: unknown) => thrown);
    expect(error).toBeInstanceOf(ProcessorError);
    expect(error).toMatchObject({ retryable: false, status: 200 });
    expect((error as ProcessorError).message).toMatch(/unexpected shape \(status:/);
  });

  it('reads a refusal as a permanent error with Braintree’s message and error codes', async () => {
    const id = fake.addDispute();
    fake.setStatus(id, 'won');
    const http = new ProcessorHttp({
      processor: 'braintree',
      baseUrl: `${fake.server.url}/merchants/${credentials.merchant_id}`,
      headers: { authorization: fake.calls[0]?.headers.authorization ?? basic(), 'x-apiversion': '6' },
    });
    const error = await new BraintreeClient(http).finalize(id).catch((thrown: unknown) => thrown);
    expect(error).toBeInstanceOf(ProcessorError);
    expect(error).toMatchObject({
      retryable: false,
      status: 422,
      message:
        'Braintree refused the request: Disputes can only be finalized when they are in an Open state (error codes 95705).',
    });
  });
});

function basic(): string {
  return `Basic ${Buffer.from(`${credentials.public_key}:${credentials.private_key}`).toString('base64')}`;
}

describe('braintree listing', () => {
  it('hands out Braintree’s fixed pages in slices of the limit, each dispute once per scan', async () => {
    const ids = fake.addDisputes(120);
    const { seen, pages } = await poll(null, 30);
    expect(seen.map((dispute) => dispute.id).sort()).toEqual([...ids].sort());
    // Pages of 50, 50 and 20, handed out as 30+20, 30+20 and 20.
    expect(pages).toBe(5);
    expect(searches().map((call) => call.query)).toEqual(['page=1', 'page=1', 'page=2', 'page=2', 'page=3']);
  });

  it('bounds the next scan by the day the last one began, less the lookback', async () => {
    fake.addDisputes(3);
    const first = await poll(null);
    time.advanceDays(1);
    await poll(first.cursor);
    expect(searches().at(-1)?.body).toBe(
      '<?xml version="1.0" encoding="UTF-8"?><search><effective-date><min>2026-03-03</min></effective-date></search>',
    );
  });

  it('leaves out disputes unchanged since before the bound, and finds them again once they change', async () => {
    time.advanceDays(-30);
    const old = fake.addDispute();
    time.advanceDays(30);
    fake.addDisputes(2);
    const first = await poll(null);
    expect(first.seen.map((dispute) => dispute.id)).toContain(old);
    const second = await poll(first.cursor);
    expect(second.seen.map((dispute) => dispute.id)).not.toContain(old);
    fake.setStatus(old, 'lost');
    const third = await poll(second.cursor);
    expect(third.seen.find((dispute) => dispute.id === old)).toMatchObject({ state: 'lost' });
  });

  it('picks up, after a poll that ended, a new dispute, a change and a closure made since', async () => {
    const [changing, closing] = fake.addDisputes(2) as [string, string];
    const first = await poll(null);
    time.advanceDays(3);
    const added = fake.addDispute();
    fake.setStatus(changing, 'disputed');
    fake.setStatus(closing, 'lost');
    const latest = new Map((await poll(first.cursor)).seen.map((dispute) => [dispute.id, dispute]));
    expect(latest.get(added)?.state).toBe('needs_response');
    expect(latest.get(changing)?.state).toBe('under_review');
    expect(latest.get(closing)).toMatchObject({ state: 'lost', closedAt: new Date('2026-03-13T12:00:00Z') });
  });

  it('repeats a scan’s bound when disputes arrived while it paged, so nothing shifted past it is lost', async () => {
    fake.addDisputes(3);
    const settled = await poll(null);
    time.advanceDays(1);
    fake.addDisputes(120);
    const firstPage = await adapter.listDisputes({
      connection: connection(),
      cursor: settled.cursor,
      limit: 100,
    });
    expect(firstPage.hasMore).toBe(true);
    const arrived = fake.addDispute();
    const rest = await poll(firstPage.nextCursor);
    const bound = (cursor: string | null) => JSON.parse(cursor ?? 'null').since;
    expect(bound(rest.cursor)).toBe(bound(settled.cursor));
    // The next scan searches from the same bound again and finds what arrived meanwhile.
    const again = await poll(rest.cursor);
    expect(again.seen.map((dispute) => dispute.id)).toContain(arrived);
    expect(bound(again.cursor)).toBe('2026-03-04');
  });

  it('resumes a committed mid-scan cursor in another process with the page after it', async () => {
    const ids = fake.addDisputes(75);
    const first = await adapter.listDisputes({ connection: connection(), cursor: null, limit: 100 });
    const later = new BraintreeAdapter({}, { now: time.now });
    const second = await later.listDisputes({
      connection: connection(),
      cursor: first.nextCursor,
      limit: 100,
    });
    expect(second.hasMore).toBe(false);
    expect([...first.disputes, ...second.disputes].map((dispute) => dispute.id).sort()).toEqual(
      [...ids].sort(),
    );
    expect(searches().map((call) => call.query)).toEqual(['page=1', 'page=2']);
  });

  it('refuses a cursor it did not write, permanently', async () => {
    const error = await adapter
      .listDisputes({ connection: connection(), cursor: '{"after":"x"}', limit: 10 })
      .catch((thrown: unknown) => thrown);
    expect(error).toMatchObject({
      retryable: false,
      message: 'The stored listing cursor is not a Braintree cursor.',
    });
  });
});

describe('braintree submission', () => {
  it('adds the text, uploads and attaches the PDF, then finalizes: one call each, after reading the dispute', async () => {
    const id = fake.addDispute();
    const request = await submission(id, 'sub_exact0001');
    fake.calls.length = 0;
    const result = await adapter.submitEvidence(request);
    const base = `/merchants/${credentials.merchant_id}`;
    expect(fake.calls.map((call) => `${call.method} ${call.path}`)).toEqual([
      `GET ${base}/disputes/${id}`,
      `POST ${base}/disputes/${id}/evidence`,
      `POST ${base}/document_uploads`,
      `POST ${base}/disputes/${id}/evidence`,
      `PUT ${base}/disputes/${id}/finalize`,
    ]);
    const held = fake.disputes.get(id);
    expect(result).toEqual({ reference: held?.evidence[0]?.id });
    expect(fake.calls[1]?.body).toBe(
      '<?xml version="1.0" encoding="UTF-8"?><evidence><comments>[rebuttal sub_exact0001]\n' +
        `Order 4711 for ${id} was delivered on 2026-10-01 and signed for by the customer.\n\n` +
        'customer_name: Ada Lovelace\nshipping_tracking_number: TRACK-4711</comments></evidence>',
    );
    expect(fake.calls[3]?.body).toBe(
      `<?xml version="1.0" encoding="UTF-8"?><evidence><document-upload-id>${held?.evidence[1]?.url?.split('/')[4]}</document-upload-id></evidence>`,
    );
    expect(held?.evidence[1]?.url).toMatch(/\/rebuttal-sub_exact0001\.pdf$/);
    expect(held?.evidence[1]?.file?.equals(request.response.document.pdf)).toBe(true);
    expect(held?.status).toBe('disputed');
    expect(fake.submissionCount(id)).toBe(1);
  });

  it('sends the upload as Braintree’s SDKs do: evidence_document kind and the PDF in the part named file', async () => {
    const id = fake.addDispute();
    const request = await submission(id, 'sub_upload0001');
    await adapter.submitEvidence(request);
    const upload = fake.calls.find((call) => call.path.endsWith('/document_uploads'));
    expect(upload?.headers['content-type']).toMatch(/^multipart\/form-data; boundary=/);
    expect(upload?.parts.map((part) => [part.name, part.filename, part.contentType])).toEqual([
      ['document_upload[kind]', undefined, undefined],
      ['file', 'rebuttal-sub_upload0001.pdf', 'application/pdf'],
    ]);
    expect(upload?.parts[0]?.data.toString()).toBe('evidence_document');
    expect(upload?.parts[1]?.data.equals(request.response.document.pdf)).toBe(true);
  });

  it('sends a read whose answer was lost again in place, and submits once', async () => {
    const id = fake.addDispute();
    const request = await submission(id, 'sub_lostread');
    fake.server.inject({ kind: 'drop-after', match: (incoming) => incoming.method === 'GET' });
    await adapter.submitEvidence(request);
    expect(fake.calls.filter((call) => call.method === 'GET' && call.path.endsWith(id))).toHaveLength(3);
    expect(fake.submissionCount(id)).toBe(1);
  });

  for (const [index, step] of ['text evidence', 'upload', 'attach', 'finalize'].entries()) {
    it(`a lost answer to the ${step} ends the attempt as transient, and the retry completes it once`, async () => {
      const id = fake.addDispute();
      const request = await submission(id, `sub_lost${index}`);
      // The read comes first; the change after it (in order) is the one whose answer is lost.
      let left = index + 1;
      fake.server.inject({ kind: 'drop-after', match: () => left-- === 0 });
      const error = await adapter.submitEvidence(request).catch((thrown: unknown) => thrown);
      fake.server.clearFaults();
      expect(error).toMatchObject({ retryable: true, status: undefined });
      await adapter.submitEvidence(request);
      const held = fake.disputes.get(id);
      expect(fake.submissionCount(id)).toBe(1);
      expect(held?.evidence.filter((evidence) => evidence.comments).length).toBe(1);
      expect(held?.evidence.filter((evidence) => evidence.file).length).toBe(1);
    });
  }

  it('answers a retry after the finalize succeeded with success, reading the dispute only', async () => {
    const id = fake.addDispute();
    const request = await submission(id, 'sub_twice0001');
    const first = await adapter.submitEvidence(request);
    fake.calls.length = 0;
    expect(await adapter.submitEvidence(request)).toEqual(first);
    expect(fake.calls.map((call) => call.method)).toEqual(['GET']);
    expect(fake.submissionCount(id)).toBe(1);
  });

  it('refuses a dispute that is no longer open and holds none of its evidence, without a write', async () => {
    const id = fake.addDispute();
    const request = await submission(id, 'sub_closed0001');
    fake.setStatus(id, 'accepted');
    fake.calls.length = 0;
    const error = await adapter.submitEvidence(request).catch((thrown: unknown) => thrown);
    expect(error).toMatchObject({
      retryable: false,
      status: 422,
      message: `Braintree takes evidence only for open disputes; dispute ${id} is accepted.`,
    });
    expect(writes()).toEqual([]);
  });

  it('does not take another submission’s finalize as its own', async () => {
    const id = fake.addDispute();
    await adapter.submitEvidence(await submission(id, 'sub_first0001'));
    const error = await adapter
      .submitEvidence(await submission(id, 'sub_second0001'))
      .catch((thrown: unknown) => thrown);
    expect(error).toMatchObject({ retryable: false, status: 422 });
    expect(fake.submissionCount(id)).toBe(1);
  });

  it('removes evidence an earlier attempt left, keeps the merchant’s own, and sends one package', async () => {
    const id = fake.addDispute();
    const held = fake.disputes.get(id);
    const earlier = { url: null, file: null, category: null, createdAt: time.now() };
    held?.evidence.push(
      { ...earlier, id: 'ev_old_text', comments: '[rebuttal sub_old00000000000000001]\nold text' },
      { ...earlier, id: 'ev_merchant', comments: 'Added by the merchant in the Control Panel' },
      // Named like ours by the merchant: still the merchant's.
      { ...earlier, id: 'ev_merchant_note', comments: '[rebuttal draft] written by hand' },
      {
        ...earlier,
        id: 'ev_merchant_file',
        comments: null,
        url: 'https://braintree-fake.example/evidence/doc0/rebuttal-letter.pdf',
      },
      {
        ...earlier,
        id: 'ev_old_file',
        comments: null,
        url: 'https://braintree-fake.example/evidence/doc1/rebuttal-sub_old00000000000000001.pdf',
      },
      {
        ...earlier,
        id: 'ev_old_receipt',
        comments: null,
        category: 'GENERAL',
        url: 'https://braintree-fake.example/evidence/doc2/rebuttal-sub_old00000000000000001-file_contractreceipt00001.png',
      },
    );
    await adapter.submitEvidence(await submission(id, 'sub_new00000000000000001'));
    expect(
      fake.calls.filter((call) => call.method === 'DELETE').map((call) => call.path.split('/').at(-1)),
    ).toEqual(['ev_old_text', 'ev_old_file', 'ev_old_receipt']);
    expect(
      held?.evidence.map((evidence) => evidence.comments?.split('\n')[0] ?? evidence.url?.split('/').at(-1)),
    ).toEqual([
      'Added by the merchant in the Control Panel',
      '[rebuttal draft] written by hand',
      'rebuttal-letter.pdf',
      '[rebuttal sub_new00000000000000001]',
      'rebuttal-sub_new00000000000000001.pdf',
    ]);
  });

  it('uploads each evidence file under a name from the key and the file, and attaches it in its category, by category', async () => {
    const id = fake.addDispute();
    const files = await contractFiles();
    const request = { ...(await submission(id, 'sub_files0001')), files };
    fake.calls.length = 0;
    await adapter.submitEvidence(request);
    const uploads = fake.calls.filter((call) => call.path.endsWith('/document_uploads'));
    expect(uploads.map((call) => call.parts.find((part) => part.name === 'file')?.filename)).toEqual([
      'rebuttal-sub_files0001-file_contractreceipt00001.png',
      'rebuttal-sub_files0001-file_contractmessages0001.pdf',
      'rebuttal-sub_files0001-file_contractshipping0001.jpg',
      'rebuttal-sub_files0001-file_contractaccesslog001.png',
      'rebuttal-sub_files0001.pdf',
    ]);
    expect(uploads.map((call) => call.parts.find((part) => part.name === 'file')?.contentType)).toEqual([
      'image/png',
      'application/pdf',
      'image/jpeg',
      'image/png',
      'application/pdf',
    ]);
    const held = fake.disputes.get(id)?.evidence ?? [];
    expect(
      held.map((evidence) => [evidence.category, evidence.file?.equals(files[0]?.bytes ?? Buffer.alloc(0))]),
    ).toEqual([
      [null, undefined],
      ['GENERAL', true],
      ['GENERAL', false],
      ['PROOF_OF_DELIVERY', false],
      ['MERCHANT_WEBSITE_OR_APP_ACCESS', false],
      [null, false],
    ]);
    expect(fake.calls.at(-1)?.path).toMatch(/\/finalize$/);
  });

  it('refuses an evidence file over Braintree’s 4 MB, naming it, before calling', async () => {
    const id = fake.addDispute();
    const big = attached('file_bigreceipt000000001', Buffer.alloc(4 * 1024 * 1024 + 1), 'jpg', 'receipt');
    const request = { ...(await submission(id, 'sub_large0002')), files: [big] };
    fake.calls.length = 0;
    const error = await adapter.submitEvidence(request).catch((thrown: unknown) => thrown);
    expect(error).toBeInstanceOf(ProcessorError);
    expect(error).toMatchObject({
      retryable: false,
      message:
        'The file file_bigreceipt000000001 (file_bigreceipt000000001.jpg) is 4194305 bytes, over the ' +
        "processor's limit of 4 MB (4194304 bytes) a file; nothing was sent.",
    });
    expect(fake.calls).toEqual([]);
  });

  it('refuses a document over Braintree’s 4 MB before calling', async () => {
    const id = fake.addDispute();
    const request = await submission(id, 'sub_large0001');
    request.response.document.pdf = Buffer.alloc(4 * 1024 * 1024 + 1);
    fake.calls.length = 0;
    await expect(adapter.submitEvidence(request)).rejects.toMatchObject({ retryable: false });
    expect(fake.calls).toEqual([]);
  });
});

describe('braintree acceptance', () => {
  it('accepts an open dispute with PUT accept', async () => {
    const id = fake.addDispute();
    const { dispute } = await submission(id, 'x');
    await adapter.acceptDispute({ connection: connection(), dispute, idempotencyKey: 'acc_1' });
    expect(fake.calls.filter((call) => call.method === 'PUT').map((call) => call.path)).toEqual([
      `/merchants/${credentials.merchant_id}/disputes/${id}/accept`,
    ]);
    expect(fake.accepted(id)).toBe(true);
  });

  it('answers a retry of an acceptance that went through with success, without asking again', async () => {
    const id = fake.addDispute();
    const { dispute } = await submission(id, 'x');
    await adapter.acceptDispute({ connection: connection(), dispute, idempotencyKey: 'acc_1' });
    fake.calls.length = 0;
    await adapter.acceptDispute({ connection: connection(), dispute, idempotencyKey: 'acc_1' });
    expect(writes()).toEqual([]);
  });

  it('refuses to accept a decided dispute, without asking Braintree', async () => {
    const id = fake.addDispute();
    const { dispute } = await submission(id, 'x');
    fake.setStatus(id, 'won');
    await expect(
      adapter.acceptDispute({ connection: connection(), dispute, idempotencyKey: 'acc_1' }),
    ).rejects.toMatchObject({ retryable: false, status: 422 });
    expect(writes().filter((call) => call.path.endsWith('/accept'))).toEqual([]);
  });
});

describe('braintree past payments', () => {
  it('lists the card’s earlier settled, undisputed sales, newest first, in minor units', async () => {
    const id = fake.addDispute({ amount: '1500', currency: 'JPY' });
    const { dispute } = await submission(id, 'x');
    const payments = await adapter.pastPayments({ connection: connection(), dispute, limit: 10 });
    const charged = fake.transactions.get(dispute.charge ?? '')?.createdAt.getTime() ?? 0;
    expect(payments).toEqual([
      {
        id: expect.any(String),
        amount: 1500,
        currency: 'jpy',
        charged_at: (charged - 10 * 86_400_000) / 1000,
        user_id: expect.stringMatching(/^customer/),
        shipping_address: '1 Fake Street, Chicago, 60622',
      },
      expect.objectContaining({ charged_at: (charged - 30 * 86_400_000) / 1000 }),
    ]);
    expect(payments.map((payment) => fake.transactions.get(payment.id)?.status)).toEqual([
      'submitted_for_settlement',
      'settled',
    ]);
  });

  it('looks back 365 days, leaves out refunded sales, and for Visa fraud takes CE 3.0’s window first', async () => {
    const id = fake.addDispute();
    const { dispute } = await submission(id, 'x');
    const disputed = fake.transactions.get(dispute.charge ?? '');
    if (!disputed) throw new Error('no disputed transaction');
    const add = (days: number, refunds: string[] = []) => {
      const id = `tx_${days}_${refunds.length}`;
      const createdAt = new Date(disputed.createdAt.getTime() - days * 86_400_000);
      fake.transactions.set(id, { ...disputed, id, createdAt, status: 'settled', disputes: [], refunds });
      return id;
    };
    add(400);
    add(50, ['tx_refund']);
    for (let days = 1; days <= 9; days++) add(days);
    const windowed = [add(150), add(300)];
    const ask = (compellingEvidence: boolean) =>
      adapter.pastPayments({ connection: connection(), dispute, limit: 10, compellingEvidence });
    const newest = (await ask(false)).map((payment) => payment.id);
    expect(newest).toHaveLength(10);
    expect(newest).not.toContain(windowed[0]);
    const preferred = (await ask(true)).map((payment) => payment.id);
    expect(preferred).toEqual([...newest.slice(0, 8), ...windowed]);
    expect(preferred).not.toContain('tx_400_0');
    expect(preferred).not.toContain('tx_50_1');
    const search = fake.calls.filter((call) => call.path.endsWith('advanced_search_ids')).at(-1);
    expect(search?.body).toContain('<created-at><min>');
  });

  it('keeps to the limit', async () => {
    const { dispute } = await submission(fake.addDispute(), 'x');
    expect(await adapter.pastPayments({ connection: connection(), dispute, limit: 1 })).toHaveLength(1);
  });

  it('makes no transaction call for a read-only account, and answers none', async () => {
    const { dispute } = await submission(fake.addDispute(), 'x');
    fake.calls.length = 0;
    expect(
      await adapter.pastPayments({ connection: connection({ readOnly: true }), dispute, limit: 10 }),
    ).toEqual([]);
    expect(fake.calls).toEqual([]);
  });

  it('answers none for a charge Braintree does not know', async () => {
    const { dispute } = await submission(fake.addDispute(), 'x');
    const unknown = { ...dispute, charge: 'tx_unknown' };
    expect(await adapter.pastPayments({ connection: connection(), dispute: unknown, limit: 10 })).toEqual([]);
  });
});

describe('braintree read-only accounts', () => {
  it('lists and submits with dispute calls only', async () => {
    const id = fake.addDispute();
    const readOnly = connection({ readOnly: true });
    const page = await adapter.listDisputes({ connection: readOnly, cursor: null, limit: 10 });
    const dispute = page.disputes.find((listed) => listed.id === id) as NormalizedDispute;
    await adapter.submitEvidence(contractSubmission(dispute, readOnly, 'sub_readonly1'));
    expect(fake.calls.filter((call) => call.path.includes('/transactions'))).toEqual([]);
    expect(fake.submissionCount(id)).toBe(1);
  });
});

describe('braintree webhooks', () => {
  const sign = (payload: string, key = credentials.private_key) =>
    createHmac('sha1', createHash('sha1').update(key).digest()).update(payload).digest('hex');
  const form = (fields: Record<string, string>) => ({
    connection: connection(),
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: Buffer.from(new URLSearchParams(fields).toString()),
  });
  const payloadOf = (push: { body: Buffer }) =>
    new URLSearchParams(push.body.toString()).get('bt_payload') ?? '';

  it('names the dispute of a dispute notification to fetch again', async () => {
    const id = fake.addDispute();
    const push = fake.notification('dispute_won', id);
    expect(await adapter.parsePush({ connection: connection(), ...push })).toEqual({
      refresh: [id],
      disputes: [],
    });
  });

  it('a Visa RDR dispute auto-accepted: its notification names it, and it reads lost with resolution rdr', async () => {
    const id = fake.addDispute({ status: 'auto_accepted', preDisputeProgram: 'visa_rdr' });
    const push = fake.notification('dispute_auto_accepted', id);
    expect(await adapter.parsePush({ connection: connection(), ...push })).toEqual({
      refresh: [id],
      disputes: [],
    });
    expect(await adapter.getDispute({ connection: connection(), id })).toMatchObject({
      state: 'lost',
      resolution: 'rdr',
      processorStatus: 'auto_accepted',
    });
    const plain = fake.addDispute({ status: 'auto_accepted' });
    expect((await adapter.getDispute({ connection: connection(), id: plain }))?.resolution).toBeNull();
  });

  it('finds the pair for its public key among several', async () => {
    const id = fake.addDispute();
    const payload = payloadOf(fake.notification('dispute_opened', id));
    const signature = `otherkey|${sign(payload, 'other')}&${credentials.public_key}|${sign(payload)}`;
    const result = await adapter.parsePush(form({ bt_signature: signature, bt_payload: payload }));
    expect(result.refresh).toEqual([id]);
  });

  it('accepts the signature of the payload with a trailing newline, as the SDKs do', async () => {
    const id = fake.addDispute();
    const payload = payloadOf(fake.notification('dispute_opened', id)).trimEnd();
    const signature = `${credentials.public_key}|${sign(`${payload}\n`)}`;
    const result = await adapter.parsePush(form({ bt_signature: signature, bt_payload: payload }));
    expect(result.refresh).toEqual([id]);
  });

  it('refuses a payload changed after signing', async () => {
    const id = fake.addDispute();
    const push = fake.notification('dispute_opened', id);
    const fields = new URLSearchParams(push.body.toString());
    const xml = Buffer.from(fields.get('bt_payload') ?? '', 'base64').toString('utf8');
    const changed = Buffer.from(xml.replace(`<id>${id}</id>`, '<id>dp_someone_else</id>')).toString('base64');
    const attempt = form({ bt_signature: fields.get('bt_signature') ?? '', bt_payload: changed });
    await expect(adapter.parsePush(attempt)).rejects.toThrow(
      new PushRejectedError('the signature does not match the payload'),
    );
  });

  it('refuses a push signed only for another public key', async () => {
    const payload = payloadOf(fake.notification('dispute_opened', fake.addDispute()));
    await expect(
      adapter.parsePush(form({ bt_signature: `otherkey|${sign(payload)}`, bt_payload: payload })),
    ).rejects.toThrow(new PushRejectedError('no signature for this account’s public key'));
  });

  it('refuses a payload with characters outside base64 before checking anything', async () => {
    await expect(
      adapter.parsePush(
        form({ bt_signature: `${credentials.public_key}|00`, bt_payload: '<notification/>' }),
      ),
    ).rejects.toThrow(new PushRejectedError('bt_payload contains illegal characters'));
  });

  it('refuses a body without bt_signature and bt_payload', async () => {
    await expect(adapter.parsePush(form({ hello: 'world' }))).rejects.toBeInstanceOf(PushRejectedError);
  });

  it('asks nothing for a notification that is not about a dispute', async () => {
    const push = fake.notification('check', 'none');
    expect(await adapter.parsePush({ connection: connection(), ...push })).toEqual({
      refresh: [],
      disputes: [],
    });
  });

  it('answers Braintree’s challenge with public_key|HMAC(challenge), and refuses one that is not hex', async () => {
    const challenge = '0123456789abcdef0123';
    expect(await adapter.parsePush(form({ bt_challenge: challenge }))).toEqual({
      refresh: [],
      disputes: [],
      reply: { contentType: 'text/plain', body: `${credentials.public_key}|${sign(challenge)}` },
    });
    await expect(adapter.parsePush(form({ bt_challenge: 'PG5vdGlmaWNhdGlvbj4=' }))).rejects.toBeInstanceOf(
      PushRejectedError,
    );
  });
});

describe('braintree credentials', () => {
  it.each([
    [
      '{"public_key":"pk","private_key":"sk"}',
      'merchant_id: Invalid input: expected string, received undefined',
    ],
    [
      '{"merchant_id":"m","private_key":"sk"}',
      'public_key: Invalid input: expected string, received undefined',
    ],
    [
      '{"merchant_id":"m","public_key":"pk"}',
      'private_key: Invalid input: expected string, received undefined',
    ],
    [
      '{"merchant_id":"m/../x","public_key":"pk","private_key":"sk"}',
      'merchant_id: must be the merchant id from the Control Panel',
    ],
    [
      '{"merchant_id":"m","public_key":"pk","private_key":"sk","environment":"sandbox"}',
      'credentials: Unrecognized key: "environment"',
    ],
  ])('refuses %s', (text, problem) => {
    expect(adapter.checkCredentials(text)).toBe(problem);
  });
});
