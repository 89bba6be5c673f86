import { createHmac } from 'node:crypto';
import type { Network } from '../../src/domain/networks.js';
import type { ContractFake } from '../helpers/adapter-contract.js';
import type { NetworkFacts } from '../helpers/contract-calls.js';
import { type FakeReply, type FakeRequest, FakeServer, jsonReply, multipartParts } from './harness.js';

/**
 * A fake Checkout.com disputes API, modelled on its API reference (github.com/checkout/checkout-api-reference,
 * nas_spec/paths/disputes*.yaml, files*.yaml) and disputes guide
 * (https://www.checkout.com/docs/risk-management/disputes/disputes-api):
 * - `Authorization: Bearer <secret key>`; anything else is 401 with an empty body;
 * - `GET /disputes`: `limit` 1-250 (default 50; outside that 422), `skip`, `from`/`to` on `last_update`
 *   (both inclusive), `statuses`; sorted by `last_update` newest first (ties by id); `total_count`;
 *   summaries carry `payment_id` but no `resolved_reason` and no payment date, as the reference's
 *   DisputeSummary;
 * - `GET /disputes/{id}`: the full Dispute (nested `payment`, `resolved_reason`), or 404;
 * - `POST /files` (multipart `purpose=dispute_evidence`, `file`: PDF/JPEG/PNG up to 4 MB) and
 *   `GET /files/{id}`;
 * - `PUT /disputes/{id}/evidence` stages evidence (texts up to 500 characters, known file ids) and counts
 *   as an update of the dispute; `GET` shows it; `POST` submits it, once: the dispute moves to
 *   `evidence_under_review` and any later submission is refused with 422;
 * - `POST /disputes/{id}/accept`: only from `evidence_required`, else 422.
 * Refusals carry Checkout.com's error body `{request_id, error_type, error_codes}`. `last_update` has
 * microseconds, and every change gets a later one than the last (ties only from `stampTogether`).
 */

export const checkoutFakeCredentials = {
  secret_key: 'sk_sbox_fake4tq7wk2m5ay3vg6zx8np1c',
  webhook_signature_key: 'whsec-checkout-fake-7d1f0a9e3b',
};

export type CheckoutStatusName =
  | 'evidence_required'
  | 'evidence_under_review'
  | 'resolved'
  | 'won'
  | 'lost'
  | 'canceled'
  | 'expired'
  | 'accepted'
  | 'arbitration_under_review'
  | 'arbitration_won'
  | 'arbitration_lost';

export interface FakeCheckoutDispute {
  id: string;
  category: string;
  status: CheckoutStatusName;
  resolvedReason: string | null;
  amount: number;
  currency: string;
  reasonCode: string;
  paymentId: string;
  paymentMethod: string;
  processedOn: string;
  receivedOn: string;
  evidenceRequiredBy: string;
  /** Microseconds since the epoch. */
  lastUpdate: number;
  /** Staged evidence (`PUT .../evidence`), as received. */
  evidence: Record<string, string>;
}

interface StoredFile {
  id: string;
  filename: string;
  purpose: string;
  contentType: string;
  data: Buffer;
  uploadedOn: string;
}

/** What disputes rotate through: category, the scheme's code, the payment's method, and its network here. */
const samples: readonly { category: string; reasonCode: string; method: string; network: Network | null }[] =
  [
    { category: 'fraudulent', reasonCode: '10.4', method: 'Visa', network: 'visa' },
    { category: 'product_service_not_received', reasonCode: '13.1', method: 'Visa', network: 'visa' },
    { category: 'not_as_described', reasonCode: '4853', method: 'Mastercard', network: 'mastercard' },
    { category: 'canceled_recurring', reasonCode: '13.2', method: 'Visa', network: 'visa' },
    { category: 'duplicate', reasonCode: '4834', method: 'Mastercard', network: 'mastercard' },
    { category: 'general', reasonCode: '13.7', method: 'Visa', network: 'visa' },
    { category: 'fraudulent', reasonCode: 'F29', method: 'American Express', network: 'amex' },
    { category: 'general', reasonCode: '4553', method: 'Cartes Bancaires', network: null },
  ];
const currencies = ['GBP', 'EUR', 'USD', 'JPY'] as const;

const evidencePairs = [
  'proof_of_delivery_or_service',
  'invoice_or_receipt',
  'invoice_showing_distinct_transactions',
  'customer_communication',
  'refund_or_cancellation_policy',
  'recurring_transaction_agreement',
  'additional_evidence',
  'proof_of_delivery_or_service_date',
];
const maxText = 500;
const maxFileBytes = 4 * 1024 * 1024;
const fileTypes = new Set(['application/pdf', 'image/jpeg', 'image/jpg', 'image/png']);

export class CheckoutFake implements ContractFake {
  readonly server: FakeServer;
  readonly disputes = new Map<string, FakeCheckoutDispute>();
  readonly files = new Map<string, StoredFile>();
  /** Every request with its query and body, in order: what Checkout.com received. */
  readonly received: FakeRequest[] = [];
  /** Called with each request before it is handled: a test's way to have the processor act meanwhile. */
  intercept: ((request: FakeRequest) => void) | undefined;
  readonly #secretKey: string;
  readonly #signatureKey: string;
  readonly #submissions = new Map<
    string,
    { count: number; text: string; files: Buffer[]; slots: { slot: string; bytes: Buffer }[] }
  >();
  #serial = 0;
  #lastStamp = 0;

  constructor(options: { secretKey?: string; webhookSignatureKey?: string } = {}) {
    this.#secretKey = options.secretKey ?? checkoutFakeCredentials.secret_key;
    this.#signatureKey = options.webhookSignatureKey ?? checkoutFakeCredentials.webhook_signature_key;
    this.server = new FakeServer(
      (request) => this.#handle(request),
      (status) => errorReply(status, status === 429 ? 'too_many_requests' : 'service_error', []),
    );
  }

  addDisputes(count: number): string[] {
    const ids: string[] = [];
    const now = Date.now();
    for (let index = 0; index < count; index++) {
      const serial = ++this.#serial;
      const sample = samples[serial % samples.length] as (typeof samples)[number];
      const id = `dsp_${serial.toString(36).padStart(22, '0')}`;
      this.disputes.set(id, {
        id,
        category: sample.category,
        status: 'evidence_required',
        resolvedReason: null,
        amount: 1000 + serial,
        currency: currencies[serial % currencies.length] ?? 'GBP',
        reasonCode: sample.reasonCode,
        paymentId: `pay_${serial.toString(36).padStart(26, '0')}`,
        paymentMethod: sample.method,
        processedOn: new Date(now - 30 * 86_400_000).toISOString(),
        receivedOn: new Date(now).toISOString(),
        evidenceRequiredBy: new Date(now + 21 * 86_400_000).toISOString(),
        lastUpdate: this.#stamp(),
        evidence: {},
      });
      ids.push(id);
    }
    return ids;
  }

  move(id: string, to: 'under_review' | 'won' | 'lost'): void {
    this.setStatus(id, to === 'under_review' ? 'evidence_under_review' : to);
  }

  /** The processor changes a dispute's status on its own (the issuer decided, Checkout.com resolved it). */
  setStatus(id: string, status: CheckoutStatusName, resolvedReason: string | null = null): void {
    const dispute = this.#get(id);
    dispute.status = status;
    dispute.resolvedReason = resolvedReason;
    dispute.lastUpdate = this.#stamp();
  }

  /** One bulk change: these disputes all get the same `last_update`. */
  stampTogether(ids: readonly string[]): void {
    const at = this.#stamp();
    for (const id of ids) this.#get(id).lastUpdate = at;
  }

  submissionCount(id: string): number {
    return this.#submissions.get(id)?.count ?? 0;
  }

  submitted(id: string): { text: string; files: Buffer[] } | undefined {
    const held = this.#submissions.get(id);
    return held && { text: held.text, files: held.files };
  }

  /** The `*_file` fields of the dispute's submission but `additional_evidence_file`, with their bytes. */
  slotted(id: string): { slot: string; bytes: Buffer }[] {
    return this.#submissions.get(id)?.slots ?? [];
  }

  /**
   * How many files the adapter uploaded and learnt the id of. Checkout.com takes no idempotency key on
   * `POST /files` and lists no files: a file whose upload answer was lost is known to Checkout.com alone,
   * never staged, and the retry must upload it again (docs/architecture.md, "Checkout.com"). What no
   * retry may do is upload again a file whose id it was given; those are what this counts.
   */
  uploadCount(): number {
    const lost = this.server.lostAnswers.filter(
      (request) => request.method === 'POST' && request.path === '/files',
    ).length;
    return this.files.size - lost;
  }

  accepted(id: string): boolean {
    return this.disputes.get(id)?.status === 'accepted';
  }

  reported(id: string): NetworkFacts {
    const dispute = this.disputes.get(id) as FakeCheckoutDispute;
    return {
      network: samples.find((sample) => sample.method === dispute.paymentMethod)?.network ?? null,
      networkReasonCode: dispute.reasonCode,
      processorStatus: dispute.status,
    };
  }

  /** A signed `dispute_*` webhook about the dispute as it stands, as Checkout.com's workflows send it. */
  webhook(id: string, type = 'dispute_evidence_required'): { headers: Record<string, string>; body: Buffer } {
    const dispute = this.#get(id);
    const body = Buffer.from(
      JSON.stringify({
        id: `evt_${(++this.#serial).toString(36).padStart(26, '0')}`,
        type,
        created_on: new Date().toISOString(),
        data: {
          id: dispute.id,
          category: dispute.category,
          amount: dispute.amount,
          currency: dispute.currency,
          reason_code: dispute.reasonCode,
          payment_id: dispute.paymentId,
          payment_method: dispute.paymentMethod,
          evidence_required_by: dispute.evidenceRequiredBy,
        },
        _links: { self: { href: `https://api.sandbox.checkout.com/workflows/events/${id}` } },
      }),
    );
    return { headers: { 'cko-signature': this.sign(body) }, body };
  }

  sign(body: Buffer): string {
    return createHmac('sha256', this.#signatureKey).update(body).digest('hex');
  }

  close(): Promise<void> {
    return this.server.close();
  }

  #get(id: string): FakeCheckoutDispute {
    const dispute = this.disputes.get(id);
    if (!dispute) throw new Error(`no fake Checkout.com dispute ${id}`);
    return dispute;
  }

  /** The next `last_update`: the clock in microseconds, always after the previous one. */
  #stamp(): number {
    const now = Math.floor((performance.timeOrigin + performance.now()) * 1000);
    this.#lastStamp = Math.max(now, this.#lastStamp + 1);
    return this.#lastStamp;
  }

  #handle(request: FakeRequest): FakeReply {
    this.received.push(request);
    this.intercept?.(request);
    if (request.headers.authorization !== `Bearer ${this.#secretKey}`) return { status: 401 };
    const parts = request.path.split('/').filter(Boolean);
    const [resource, id, action] = parts;
    const route = `${request.method} /${resource ?? ''}${id === undefined ? '' : '/:id'}${action === undefined ? '' : `/${action}`}`;
    switch (route) {
      case 'GET /disputes':
        return this.#list(request.query);
      case 'GET /disputes/:id':
        return this.#withDispute(id, (dispute) => jsonReply(200, detail(dispute)));
      case 'GET /disputes/:id/evidence':
        return this.#withDispute(id, (dispute) => jsonReply(200, dispute.evidence));
      case 'PUT /disputes/:id/evidence':
        return this.#withDispute(id, (dispute) => this.#stage(dispute, request.body));
      case 'POST /disputes/:id/evidence':
        return this.#withDispute(id, (dispute) => this.#submit(dispute));
      case 'POST /disputes/:id/accept':
        return this.#withDispute(id, (dispute) => this.#accept(dispute));
      case 'POST /files':
        return this.#upload(request);
      case 'GET /files/:id':
        return this.#fileInfo(id as string);
      default:
        return { status: 404 };
    }
  }

  #withDispute(id: string | undefined, act: (dispute: FakeCheckoutDispute) => FakeReply): FakeReply {
    const dispute = id === undefined ? undefined : this.disputes.get(id);
    return dispute ? act(dispute) : { status: 404 };
  }

  #list(query: URLSearchParams): FakeReply {
    const limit = Number(query.get('limit') ?? 50);
    const skip = Number(query.get('skip') ?? 0);
    if (!Number.isInteger(limit) || limit < 1 || limit > 250) {
      return errorReply(422, 'request_invalid', ['paging_limit_invalid']);
    }
    if (!Number.isInteger(skip) || skip < 0)
      return errorReply(422, 'request_invalid', ['paging_skip_invalid']);
    const from = query.has('from') ? microsOf(query.get('from') as string) : -Infinity;
    const to = query.has('to') ? microsOf(query.get('to') as string) : Infinity;
    if (Number.isNaN(from) || Number.isNaN(to))
      return errorReply(422, 'request_invalid', ['paging_date_invalid']);
    const statuses = query.get('statuses')?.split(',');
    const matching = [...this.disputes.values()]
      .filter((dispute) => dispute.lastUpdate >= from && dispute.lastUpdate <= to)
      .filter((dispute) => !statuses || statuses.includes(dispute.status))
      .sort((a, b) => b.lastUpdate - a.lastUpdate || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0));
    return jsonReply(200, {
      limit,
      skip,
      ...(query.has('from') && { from: query.get('from') }),
      ...(query.has('to') && { to: query.get('to') }),
      total_count: matching.length,
      data: matching.slice(skip, skip + limit).map(summary),
    });
  }

  #stage(dispute: FakeCheckoutDispute, body: Buffer): FakeReply {
    let fields: Record<string, unknown>;
    try {
      fields = JSON.parse(body.toString('utf8'));
    } catch {
      return errorReply(422, 'request_invalid', ['request_body_invalid']);
    }
    if (dispute.status !== 'evidence_required') {
      return errorReply(422, 'request_invalid', ['dispute_evidence_not_editable']);
    }
    const codes: string[] = [];
    const staged: Record<string, string> = {};
    for (const [key, value] of Object.entries(fields)) {
      const pair = evidencePairs.find((name) => key === `${name}_text` || key === `${name}_file`);
      if (!pair || typeof value !== 'string') codes.push(`${key}_invalid`);
      else if (key.endsWith('_text') && value.length > maxText) codes.push(`${key}_too_long`);
      else if (key.endsWith('_file') && !this.files.has(value)) codes.push(`${key}_not_found`);
      else staged[key] = value;
    }
    if (Object.keys(fields).length === 0) codes.push('evidence_required');
    if (codes.length > 0) return errorReply(422, 'request_invalid', codes);
    Object.assign(dispute.evidence, staged);
    dispute.lastUpdate = this.#stamp();
    return { status: 204 };
  }

  #submit(dispute: FakeCheckoutDispute): FakeReply {
    if (dispute.status !== 'evidence_required') {
      return errorReply(422, 'request_invalid', ['dispute_evidence_already_submitted']);
    }
    const entries = Object.entries(dispute.evidence);
    if (entries.length === 0) return errorReply(422, 'request_invalid', ['dispute_evidence_required']);
    const files = entries
      .filter(([key]) => key.endsWith('_file'))
      .map(([, id]) => this.files.get(id)?.data ?? Buffer.alloc(0));
    const text = entries
      .filter(([key]) => key.endsWith('_text'))
      .map(([, value]) => value)
      .join('\n');
    const slots = entries
      .filter(([key]) => key.endsWith('_file') && key !== 'additional_evidence_file')
      .map(([slot, id]) => ({ slot, bytes: this.files.get(id)?.data ?? Buffer.alloc(0) }));
    const count = this.submissionCount(dispute.id) + 1;
    this.#submissions.set(dispute.id, { count, text, files, slots });
    dispute.status = 'evidence_under_review';
    dispute.lastUpdate = this.#stamp();
    return { status: 204 };
  }

  #accept(dispute: FakeCheckoutDispute): FakeReply {
    if (dispute.status !== 'evidence_required') {
      return errorReply(422, 'request_invalid', ['dispute_not_acceptable']);
    }
    dispute.status = 'accepted';
    dispute.lastUpdate = this.#stamp();
    return { status: 204 };
  }

  #upload(request: FakeRequest): FakeReply {
    const parts = multipartParts(request);
    const purpose = parts.find((part) => part.name === 'purpose')?.data.toString('utf8');
    const file = parts.find((part) => part.name === 'file' && part.filename !== undefined);
    const codes: string[] = [];
    if (purpose !== 'dispute_evidence' && purpose !== 'arbitration_evidence') codes.push('purpose_invalid');
    if (!file) codes.push('file_required');
    else if (!fileTypes.has(file.contentType ?? '')) codes.push('file_type_invalid');
    else if (file.data.length > maxFileBytes) codes.push('file_too_large');
    if (codes.length > 0 || !file) return errorReply(422, 'request_invalid', codes);
    const id = `file_${(++this.#serial).toString(36).padStart(26, '0')}`;
    this.files.set(id, {
      id,
      filename: file.filename ?? '',
      purpose: purpose as string,
      contentType: file.contentType ?? '',
      data: file.data,
      uploadedOn: new Date().toISOString(),
    });
    return jsonReply(200, { id, _links: { self: { href: `https://api.sandbox.checkout.com/files/${id}` } } });
  }

  #fileInfo(id: string): FakeReply {
    const file = this.files.get(id);
    if (!file) return { status: 404 };
    return jsonReply(200, {
      id,
      filename: file.filename,
      purpose: file.purpose,
      size: file.data.length,
      uploaded_on: file.uploadedOn,
    });
  }
}

export async function startCheckoutFake(
  options: { secretKey?: string; webhookSignatureKey?: string } = {},
): Promise<CheckoutFake> {
  const fake = new CheckoutFake(options);
  await fake.server.start();
  return fake;
}

function errorReply(status: number, type: string, codes: string[]): FakeReply {
  return jsonReply(status, {
    request_id: `0HM${Math.random().toString(36).slice(2, 12).toUpperCase()}`,
    error_type: type,
    error_codes: codes,
  });
}

/** `GET /disputes` answers DisputeSummary objects. */
function summary(dispute: FakeCheckoutDispute) {
  return {
    id: dispute.id,
    category: dispute.category,
    status: dispute.status,
    amount: dispute.amount,
    currency: dispute.currency,
    reason_code: dispute.reasonCode,
    payment_id: dispute.paymentId,
    payment_method: dispute.paymentMethod,
    evidence_required_by: dispute.evidenceRequiredBy,
    received_on: dispute.receivedOn,
    last_update: isoOf(dispute.lastUpdate),
  };
}

/** `GET /disputes/{id}` answers the full Dispute. */
function detail(dispute: FakeCheckoutDispute) {
  return {
    id: dispute.id,
    category: dispute.category,
    status: dispute.status,
    ...(dispute.resolvedReason !== null && { resolved_reason: dispute.resolvedReason }),
    amount: dispute.amount,
    currency: dispute.currency,
    reason_code: dispute.reasonCode,
    evidence_required_by: dispute.evidenceRequiredBy,
    received_on: dispute.receivedOn,
    last_update: isoOf(dispute.lastUpdate),
    payment: {
      id: dispute.paymentId,
      amount: dispute.amount,
      currency: dispute.currency,
      method: dispute.paymentMethod,
      processed_on: dispute.processedOn,
    },
    _links: { self: { href: `https://api.sandbox.checkout.com/disputes/${dispute.id}` } },
  };
}

/** ISO-8601 with microseconds. */
function isoOf(micros: number): string {
  const iso = new Date(Math.floor(micros / 1000)).toISOString();
  return `${iso.slice(0, -1)}${String(micros % 1000).padStart(3, '0')}Z`;
}

/** Microseconds of an ISO-8601 date-time with any number of fractional digits; NaN if it is none. */
function microsOf(text: string): number {
  const match = /^(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d)(?:\.(\d+))?(Z|[+-]\d\d:\d\d)$/.exec(text);
  if (!match) return Number.NaN;
  const seconds = Date.parse(`${match[1]}${match[3]}`);
  const fraction = Number((match[2] ?? '').padEnd(6, '0').slice(0, 6));
  return seconds * 1000 + fraction;
}
