import { createHash, createHmac } from 'node:crypto';
import { XMLBuilder, XMLParser } from 'fast-xml-parser';
import type { Network } from '../../src/domain/networks.js';
import type { ContractFake } from '../helpers/adapter-contract.js';
import { basicCredentials, type FakeReply, type FakeRequest, FakeServer, multipartParts } from './harness.js';

/**
 * A fake Braintree gateway API (XML), after its public documentation and SDKs:
 * - every path is under `/merchants/{merchant_id}/`; HTTP Basic `public_key:private_key` (wrong keys:
 *   401 with no body, as the SDKs expect; keys of another merchant: 403); `X-ApiVersion` is required
 *   (426 Upgrade Required without one, as the SDKs' UpgradeRequiredError); XML bodies must say so;
 * - dispute search `POST disputes/advanced_search?page=N`: the `effective_date` range criterion over the
 *   disputes' status-history events, fixed pages of `pageSize` (50), newest first, with
 *   `page-size` and `total-items`;
 * - the dispute lifecycle: evidence (text, or an uploaded document by `document-upload-id`), removal,
 *   finalize and accept only while OPEN (422 `<api-error-response>` with Braintree's codes 95701-95705
 *   otherwise); finalize makes the dispute DISPUTED, accept ACCEPTED; every status change adds a
 *   status-history event dated now;
 * - `document_uploads` (multipart, `document_upload[kind]=evidence_document`, the file in `file`), pdf/png/
 *   jpg of at most 4 MB, refused with the SDKs' DocumentUpload codes (84901-84906); an attached document's
 *   evidence `url` ends with the uploaded file's name, and it keeps its file evidence `category`, one of
 *   Braintree's (95706 for another; braintree_python `error_codes.py`, Dispute: Add File Evidence);
 * - transactions: `GET transactions/{id}`, `advanced_search_ids` and `advanced_search` by
 *   `credit_card_unique_identifier`, `type`, `status`, `created_at` (min, max) and `ids`;
 * - webhooks: `notification(kind, id)` signs a `<notification>` as Braintree does (bt_signature,
 *   bt_payload: base64 in lines of 60, HMAC-SHA1 keyed with SHA-1 of the private key).
 */

export interface BraintreeFakeOptions {
  merchantId?: string;
  publicKey?: string;
  privateKey?: string;
  pageSize?: number;
  now?: () => Date;
}

export interface FakeEvidence {
  id: string;
  comments: string | null;
  url: string | null;
  file: Buffer | null;
  category: string | null;
  /** Groups the categorized pieces of one prior transaction (PRIOR_NON_DISPUTED_TRANSACTION_*). */
  sequenceNumber?: string | null;
  createdAt: Date;
}

export interface FakeDispute {
  id: string;
  kind: 'chargeback' | 'pre_arbitration' | 'retrieval';
  reason: string;
  status: string;
  amount: string;
  currency: string;
  receivedDate: string;
  replyByDate: string;
  createdAt: Date;
  updatedAt: Date;
  history: { status: string; timestamp: Date; effectiveDate: string }[];
  evidence: FakeEvidence[];
  transactionId: string;
  /** The disputed transaction's `payment-instrument-subtype`, and the network's own `reason-code`. */
  cardType: string;
  reasonCode: string | null;
  /** `none`, or `visa_rdr` for a dispute Visa RDR resolved (Braintree auto-accepts it). */
  preDisputeProgram: string;
  finalized: number;
  submitted: { text: string; files: Buffer[] } | undefined;
}

export interface FakeTransaction {
  id: string;
  amount: string;
  currency: string;
  createdAt: Date;
  status: string;
  type: 'sale' | 'credit';
  card: string;
  customerId: string | null;
  disputes: string[];
  /** The ids of the sale's refunds, if any. */
  refunds?: string[];
}

/** A request as the fake read it: what tests assert about the wire. */
export interface RecordedCall {
  method: string;
  path: string;
  query: string;
  headers: FakeRequest['headers'];
  /** The body as text; empty for a multipart body, whose parts are in `parts`. */
  body: string;
  parts: ReturnType<typeof multipartParts>;
}

export interface BraintreeFake extends ContractFake {
  merchantId: string;
  publicKey: string;
  privateKey: string;
  pageSize: number;
  disputes: Map<string, FakeDispute>;
  transactions: Map<string, FakeTransaction>;
  calls: RecordedCall[];
  /** Adds one dispute, with anything a test needs set. */
  addDispute(values?: Partial<Omit<FakeDispute, 'id'>>): string;
  /** Moves a dispute to any Braintree status, as Braintree would on its own. */
  setStatus(id: string, status: string): void;
  /** A webhook as Braintree POSTs it about the dispute's current state. */
  notification(kind: string, id: string): { headers: Record<string, string>; body: Buffer };
}

const reasons = [
  'fraud',
  'product_not_received',
  'product_unsatisfactory',
  'credit_not_processed',
  'duplicate',
  'cancelled_recurring_transaction',
  'general',
  'not_recognized',
  'transaction_amount_differs',
  'invalid_account',
];
/**
 * The cards disputes rotate through: Braintree's card type (the SDKs' CreditCard::CardType) and the
 * network's code, with the network each is here (Elo, a card type of no network of ours, has none).
 */
const cards: { cardType: string; code: string | null; network: Network | null }[] = [
  { cardType: 'Visa', code: '10.4', network: 'visa' },
  { cardType: 'MasterCard', code: '4837', network: 'mastercard' },
  { cardType: 'American Express', code: 'F29', network: 'amex' },
  { cardType: 'Discover', code: 'UA02', network: 'discover' },
  { cardType: 'Elo', code: null, network: null },
];
/** Amounts as Braintree writes them in each currency's own decimals. */
const money: [string, string][] = [
  ['USD', '12.34'],
  ['USD', '250.00'],
  ['EUR', '99.90'],
  ['JPY', '1500'],
  ['BHD', '12.345'],
  ['GBP', '0.99'],
];
const maxDocumentBytes = 4 * 1024 * 1024;
/** DisputeTextEvidenceCategory (developer.paypal.com/braintree/graphql/reference/types/dispute-text-evidence-category). */
const textCategories = new Set([
  'CARRIER_NAME',
  'CREDIT_ISSUED_AMOUNT',
  'CREDIT_ISSUED_ARN',
  'CREDIT_ISSUED_DATE_TIME',
  'DEVICE_ID',
  'DEVICE_NAME',
  'DOWNLOAD_DATE_TIME',
  'GENERAL',
  'GEOGRAPHICAL_LOCATION',
  'PRIOR_DIGITAL_GOODS_TRANSACTION_ARN',
  'PRIOR_DIGITAL_GOODS_TRANSACTION_DATE_TIME',
  'PRIOR_DIGITAL_GOODS_TRANSACTION_ID',
  'PRIOR_NON_DISPUTED_TRANSACTION_ARN',
  'PRIOR_NON_DISPUTED_TRANSACTION_DATE_TIME',
  'PRIOR_NON_DISPUTED_TRANSACTION_EMAIL_ADDRESS',
  'PRIOR_NON_DISPUTED_TRANSACTION_ID',
  'PRIOR_NON_DISPUTED_TRANSACTION_IP_ADDRESS',
  'PRIOR_NON_DISPUTED_TRANSACTION_PHONE_NUMBER',
  'PRIOR_NON_DISPUTED_TRANSACTION_PHYSICAL_ADDRESS',
  'PURCHASER_EMAIL_ADDRESS',
  'PURCHASER_IP_ADDRESS',
  'PURCHASER_NAME',
  'RECURRING_TRANSACTION_ARN',
  'RECURRING_TRANSACTION_DATE_TIME',
  'RECURRING_TRANSACTION_ID',
  'REFUND_ID',
  'TRACKING_NUMBER',
]);
/** DisputeFileEvidenceCategory (developer.paypal.com/braintree/graphql/reference/types/dispute-file-evidence-category). */
const fileCategories = new Set([
  'GENERAL',
  'LEGIT_PAYMENTS_FOR_SAME_MERCHANDISE',
  'MERCHANT_WEBSITE_OR_APP_ACCESS',
  'PROFILE_SETUP_OR_APP_ACCESS',
  'PROOF_OF_3D_SECURE',
  'PROOF_OF_AUTHORIZED_SIGNER',
  'PROOF_OF_DELIVERY',
  'PROOF_OF_DELIVERY_EMP_ADDRESS',
  'PROOF_OF_POSSESSION_OR_USAGE',
  'SIGNED_DELIVERY_FORM',
  'SIGNED_ORDER_FORM',
  'TICKET_PROOF',
]);
const day = 86_400_000;

const builder = new XMLBuilder({
  ignoreAttributes: false,
  attributeNamePrefix: '@_',
  format: false,
  suppressBooleanAttributes: false,
});
const parser = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: '@_', parseTagValue: false });

const typed = (text: string | number, type: string) => ({ '#text': String(text), '@_type': type });
const nil = { '@_nil': 'true' };
const orNil = (value: string | null) => value ?? nil;
const date = (at: Date) => at.toISOString().slice(0, 10);
const datetime = (at: Date) => typed(at.toISOString().replace(/\.\d{3}Z$/, 'Z'), 'datetime');

function xml(root: string, value: unknown): string {
  return `<?xml version="1.0" encoding="UTF-8"?>\n${builder.build({ [root]: value })}`;
}

const xmlReply = (status: number, root: string, value: unknown): FakeReply => ({
  status,
  headers: { 'content-type': 'application/xml; charset=utf-8' },
  body: xml(root, value),
});

/** Braintree's validation refusal: 422 and `<api-error-response>`, errors nested by object. */
function refusal(code: string, attribute: string, message: string, object = 'dispute'): FakeReply {
  return xmlReply(422, 'api-error-response', {
    errors: {
      errors: { '@_type': 'array' },
      [object]: {
        errors: { '@_type': 'array', error: [{ code, attribute: typed(attribute, 'symbol'), message }] },
      },
    },
    message,
  });
}

/** A refusal whose error codes the public material does not give: the message alone. */
const plainRefusal = (message: string): FakeReply =>
  xmlReply(422, 'api-error-response', { errors: { errors: { '@_type': 'array' } }, message });

const empty = (status: number): FakeReply => ({ status, body: '' });

export async function startBraintreeFake(options: BraintreeFakeOptions = {}): Promise<BraintreeFake> {
  const merchantId = options.merchantId ?? 'fake1merchant2id';
  const publicKey = options.publicKey ?? 'fakepublickey123';
  const privateKey = options.privateKey ?? 'fakeprivatekey4567890abcdef';
  const pageSize = options.pageSize ?? 50;
  const now = options.now ?? (() => new Date());
  const disputes = new Map<string, FakeDispute>();
  const transactions = new Map<string, FakeTransaction>();
  const uploads = new Map<string, { name: string; data: Buffer }>();
  const calls: RecordedCall[] = [];
  const accepted = new Set<string>();
  let sequence = 0;

  const next = (prefix: string) => `${prefix}${(++sequence).toString(36).padStart(6, '0')}`;

  function move(dispute: FakeDispute, status: string): void {
    const at = now();
    dispute.status = status;
    dispute.updatedAt = at;
    dispute.history.push({ status, timestamp: at, effectiveDate: date(at) });
  }

  function addTransaction(values: Omit<FakeTransaction, 'id'> & { id?: string }): FakeTransaction {
    const transaction = { ...values, id: values.id ?? next('tx') };
    transactions.set(transaction.id, transaction);
    return transaction;
  }

  function addDispute(values: Partial<Omit<FakeDispute, 'id'>> = {}): string {
    const index = disputes.size;
    const at = now();
    const [currency, amount] = money[index % money.length] as [string, string];
    const id = next('dp');
    const card = `card${id}`;
    const charged = new Date(at.getTime() - 10 * day);
    const transaction = addTransaction({
      amount: values.amount ?? amount,
      currency: values.currency ?? currency,
      createdAt: charged,
      status: 'settled',
      type: 'sale',
      card,
      customerId: `customer${index}`,
      disputes: [id],
    });
    // Earlier payments with the same card: two successful, one voided, one disputed itself; and a later one.
    const earlier = (days: number, status: string, disputed: string[] = []) =>
      addTransaction({
        amount: transaction.amount,
        currency: transaction.currency,
        createdAt: new Date(charged.getTime() - days * day),
        status,
        type: 'sale',
        card,
        customerId: transaction.customerId,
        disputes: disputed,
      });
    earlier(30, 'settled');
    earlier(10, 'submitted_for_settlement');
    earlier(5, 'voided');
    earlier(20, 'settled', ['dp_other']);
    earlier(-3, 'settled');
    const dispute: FakeDispute = {
      id,
      kind: index % 5 === 4 ? 'pre_arbitration' : 'chargeback',
      reason: reasons[index % reasons.length] as string,
      status: 'open',
      amount: transaction.amount,
      currency: transaction.currency,
      receivedDate: date(at),
      replyByDate: date(new Date(at.getTime() + 14 * day)),
      createdAt: at,
      updatedAt: at,
      history: [{ status: 'open', timestamp: at, effectiveDate: date(at) }],
      evidence: [],
      transactionId: transaction.id,
      cardType: (cards[index % cards.length] as (typeof cards)[number]).cardType,
      reasonCode: (cards[index % cards.length] as (typeof cards)[number]).code,
      preDisputeProgram: 'none',
      finalized: 0,
      submitted: undefined,
      ...values,
    };
    disputes.set(id, dispute);
    return id;
  }

  function disputeXml(dispute: FakeDispute) {
    const transaction = transactions.get(dispute.transactionId);
    return {
      id: dispute.id,
      amount: dispute.amount,
      'amount-disputed': dispute.amount,
      'amount-won': '0.00',
      'case-number': `CASE-${dispute.id}`,
      'created-at': datetime(dispute.createdAt),
      'currency-iso-code': dispute.currency,
      kind: dispute.kind,
      'merchant-account-id': `${merchantId}_account`,
      reason: dispute.reason,
      'reason-code': orNil(dispute.reasonCode),
      'reason-description': nil,
      'pre-dispute-program': dispute.preDisputeProgram,
      'received-date': typed(dispute.receivedDate, 'date'),
      'reference-number': `REF-${dispute.id}`,
      'reply-by-date': typed(dispute.replyByDate, 'date'),
      status: dispute.status,
      'updated-at': datetime(dispute.updatedAt),
      'status-history': {
        '@_type': 'array',
        'status-history': dispute.history.map((event) => ({
          'effective-date': typed(event.effectiveDate, 'date'),
          status: event.status,
          timestamp: datetime(event.timestamp),
        })),
      },
      evidence: { '@_type': 'array', evidence: dispute.evidence.map(evidenceXml) },
      transaction: {
        id: dispute.transactionId,
        amount: transaction?.amount ?? dispute.amount,
        'created-at': transaction ? transaction.createdAt.toISOString() : nil,
        'order-id': nil,
        'purchase-order-number': nil,
        'payment-instrument-subtype': dispute.cardType,
      },
    };
  }

  function evidenceXml(evidence: FakeEvidence) {
    return {
      id: evidence.id,
      comments: orNil(evidence.comments),
      'created-at': datetime(evidence.createdAt),
      'sent-to-processor-at': nil,
      url: orNil(evidence.url),
      category: orNil(evidence.category),
      'sequence-number': orNil(evidence.sequenceNumber ?? null),
    };
  }

  function transactionXml(transaction: FakeTransaction) {
    return {
      id: transaction.id,
      type: transaction.type,
      status: transaction.status,
      amount: transaction.amount,
      'currency-iso-code': transaction.currency,
      'created-at': datetime(transaction.createdAt),
      'order-id': nil,
      customer: { id: orNil(transaction.customerId) },
      'credit-card': { 'unique-number-identifier': transaction.card, 'card-type': 'Visa' },
      shipping: { 'street-address': '1 Fake Street', locality: 'Chicago', 'postal-code': '60622' },
      disputes: { '@_type': 'array', dispute: transaction.disputes.map((id) => ({ id })) },
      'refund-ids': { '@_type': 'array', item: transaction.refunds ?? [] },
    };
  }

  /** The `<search>` criteria a request carries, by name. */
  function criteria(body: string): Record<string, unknown> {
    const parsed = parser.parse(body) as { search?: Record<string, unknown> | string };
    return typeof parsed.search === 'object' ? parsed.search : {};
  }

  const itemsOf = (value: unknown): string[] => {
    const items = (value as { item?: unknown } | undefined)?.item;
    return (Array.isArray(items) ? items : items === undefined ? [] : [items]).map(String);
  };

  function searchDisputes(request: FakeRequest, body: string): FakeReply {
    const search = criteria(body);
    const unknown = Object.keys(search).filter((name) => name !== 'effective-date');
    if (unknown.length > 0)
      return plainRefusal(`The fake searches by effective_date only, not ${unknown.join(', ')}`);
    const range = (search['effective-date'] ?? {}) as { min?: string; max?: string };
    // Braintree does not document the order of search results; its Control Panel lists newest first.
    const matching = [...disputes.values()]
      .reverse()
      .filter((dispute) =>
        range.min === undefined && range.max === undefined
          ? true
          : dispute.history.some(
              (event) =>
                (range.min === undefined || event.effectiveDate >= range.min) &&
                (range.max === undefined || event.effectiveDate <= range.max),
            ),
      );
    const page = Math.max(1, Number(request.query.get('page') ?? '1') || 1);
    const shown = matching.slice((page - 1) * pageSize, page * pageSize);
    return xmlReply(200, 'disputes', {
      '@_type': 'collection',
      'current-page-number': typed(page, 'integer'),
      'page-size': typed(pageSize, 'integer'),
      'total-items': typed(matching.length, 'integer'),
      ...(shown.length > 0 ? { dispute: shown.map(disputeXml) } : {}),
    });
  }

  function addEvidence(dispute: FakeDispute, body: string): FakeReply {
    const sent = (parser.parse(body) as { evidence?: Record<string, unknown> }).evidence ?? {};
    if (dispute.status !== 'open') {
      return refusal(
        '95701',
        'status',
        'Evidence can only be attached to disputes that are in an Open state',
      );
    }
    const comments = typeof sent.comments === 'string' ? sent.comments : null;
    const uploadId = typeof sent['document-upload-id'] === 'string' ? sent['document-upload-id'] : null;
    const upload = uploadId === null ? undefined : uploads.get(uploadId);
    const category = typeof sent.category === 'string' ? sent.category : null;
    if (comments === null && upload === undefined) {
      return refusal('95703', 'document_upload_id', 'Evidence needs comments or an evidence document');
    }
    if (category !== null && !(upload ? fileCategories : textCategories).has(category)) {
      return refusal('95706', 'category', 'The category you supplied on the evidence record is not valid');
    }
    const sequence = sent['sequence-number'];
    const sequenceNumber = typeof sequence === 'string' && sequence !== '' ? sequence : null;
    if (sequenceNumber !== null && !/^\d+$/.test(sequenceNumber)) {
      return refusal('95707', 'sequence_number', 'Sequence number must be an integer');
    }
    const evidence: FakeEvidence = {
      id: next('ev'),
      comments,
      url: upload ? `https://braintree-fake.example/evidence/${uploadId}/${upload.name}` : null,
      file: upload?.data ?? null,
      category,
      sequenceNumber,
      createdAt: now(),
    };
    dispute.evidence.push(evidence);
    return xmlReply(201, 'evidence', evidenceXml(evidence));
  }

  function uploadDocument(request: FakeRequest): FakeReply {
    const parts = multipartParts(request);
    const kind = parts.find((part) => part.name === 'document_upload[kind]')?.data.toString('utf8');
    const file = parts.find((part) => part.name === 'file');
    const refuse = (code: string, attribute: string, message: string) =>
      refusal(code, attribute, message, 'document-upload');
    if (kind !== 'evidence_document') return refuse('84901', 'kind', 'Kind is invalid');
    if (!file?.filename || file.data.length === 0) return refuse('84906', 'file', 'File is empty');
    if (!/\.(pdf|png|jpe?g)$/i.test(file.filename)) return refuse('84903', 'file', 'File type is invalid');
    if (file.data.length > maxDocumentBytes) {
      return refuse('84902', 'file', 'File size is limited to 4 MB');
    }
    const id = next('doc');
    uploads.set(id, { name: file.filename, data: Buffer.from(file.data) });
    return xmlReply(201, 'document-upload', {
      id,
      kind,
      name: file.filename,
      'content-type': file.contentType ?? 'application/pdf',
      size: typed(file.data.length, 'integer'),
    });
  }

  function searchTransactions(body: string, ids: boolean): FakeReply {
    const search = criteria(body) as Record<string, Record<string, unknown>>;
    const card = search['credit-card-unique-identifier']?.is;
    const types = itemsOf(search.type);
    const statuses = itemsOf(search.status);
    const only = itemsOf(search.ids);
    const created = search['created-at'] as { min?: string; max?: string } | undefined;
    const matching = [...transactions.values()].filter(
      (transaction) =>
        (card === undefined || transaction.card === card) &&
        (created?.min === undefined || transaction.createdAt.getTime() >= Date.parse(created.min)) &&
        (created?.max === undefined || transaction.createdAt.getTime() <= Date.parse(created.max)) &&
        (types.length === 0 || types.includes(transaction.type)) &&
        (statuses.length === 0 || statuses.includes(transaction.status)) &&
        (only.length === 0 || only.includes(transaction.id)),
    );
    if (ids) {
      return xmlReply(200, 'search-results', {
        'page-size': typed(pageSize, 'integer'),
        ids: { '@_type': 'array', item: matching.map((transaction) => transaction.id) },
      });
    }
    return xmlReply(200, 'credit-card-transactions', {
      '@_type': 'collection',
      transaction: matching.slice(0, pageSize).map(transactionXml),
    });
  }

  async function handle(request: FakeRequest): Promise<FakeReply> {
    const body = request.body.toString('utf8');
    const multipart = request.headers['content-type']?.startsWith('multipart/') ?? false;
    calls.push({
      method: request.method,
      path: request.path,
      query: request.query.toString(),
      headers: request.headers,
      body: multipart ? '' : body,
      parts: multipart ? multipartParts(request) : [],
    });
    const credentials = basicCredentials(request);
    if (credentials?.user !== publicKey || credentials.password !== privateKey) return empty(401);
    const prefix = `/merchants/${merchantId}/`;
    if (!request.path.startsWith(prefix)) return empty(403);
    if (!request.headers['x-apiversion']) return empty(426);
    const sendsXml = request.body.length > 0 && !multipart;
    if (sendsXml && !request.headers['content-type']?.startsWith('application/xml')) return empty(415);

    const route = `${request.method} ${request.path.slice(prefix.length)}`;
    if (route === 'POST disputes/advanced_search') return searchDisputes(request, body);
    if (route === 'POST document_uploads') return uploadDocument(request);
    if (route === 'POST transactions/advanced_search_ids') return searchTransactions(body, true);
    if (route === 'POST transactions/advanced_search') return searchTransactions(body, false);
    const transaction = /^GET transactions\/([^/]+)$/.exec(route);
    if (transaction) {
      const found = transactions.get(decodeURIComponent(transaction[1] as string));
      return found ? xmlReply(200, 'transaction', transactionXml(found)) : empty(404);
    }
    const match =
      /^(GET|POST|PUT|DELETE) disputes\/([^/]+)(?:\/(evidence|finalize|accept)(?:\/([^/]+))?)?$/.exec(route);
    const dispute = match ? disputes.get(decodeURIComponent(match[2] as string)) : undefined;
    if (!match || !dispute) return empty(404);
    const action = `${match[1]} ${match[3] ?? ''}`;
    if (action === 'GET ') return xmlReply(200, 'dispute', disputeXml(dispute));
    if (action === 'POST evidence' && match[4] === undefined) return addEvidence(dispute, body);
    if (action === 'DELETE evidence' && match[4] !== undefined) {
      if (dispute.status !== 'open') {
        return refusal(
          '95702',
          'status',
          'Evidence can only be removed from disputes that are in an Open state',
        );
      }
      const before = dispute.evidence.length;
      dispute.evidence = dispute.evidence.filter(
        (evidence) => evidence.id !== decodeURIComponent(match[4] as string),
      );
      return empty(before === dispute.evidence.length ? 404 : 200);
    }
    if (action === 'PUT finalize') {
      if (dispute.status !== 'open') {
        return refusal('95705', 'status', 'Disputes can only be finalized when they are in an Open state');
      }
      dispute.finalized += 1;
      dispute.submitted = {
        text: dispute.evidence.flatMap((evidence) => evidence.comments ?? []).join('\n'),
        files: dispute.evidence.flatMap((evidence) => evidence.file ?? []),
      };
      move(dispute, 'disputed');
      return empty(200);
    }
    if (action === 'PUT accept') {
      if (dispute.status !== 'open') {
        return refusal('95704', 'status', 'Disputes can only be accepted when they are in an Open state');
      }
      accepted.add(dispute.id);
      move(dispute, 'accepted');
      return empty(200);
    }
    return empty(404);
  }

  // Faults the harness injects (429, 503) answer in the same envelope.
  const server = await new FakeServer(handle, (status, message) => ({
    ...plainRefusal(message),
    status,
  })).start();

  const statusOf = { under_review: 'under_review', won: 'won', lost: 'lost' } as const;

  return {
    server,
    merchantId,
    publicKey,
    privateKey,
    pageSize,
    disputes,
    transactions,
    calls,
    addDisputes: (count) => Array.from({ length: count }, () => addDispute()),
    addDispute,
    move(id, to) {
      const dispute = disputes.get(id);
      if (!dispute) throw new Error(`no dispute ${id}`);
      move(dispute, statusOf[to]);
    },
    setStatus(id, status) {
      const dispute = disputes.get(id);
      if (!dispute) throw new Error(`no dispute ${id}`);
      move(dispute, status);
    },
    submissionCount: (id) => disputes.get(id)?.finalized ?? 0,
    // File evidence in a category: the response document is attached without one.
    slotted: (id) =>
      (disputes.get(id)?.evidence ?? []).flatMap((evidence) =>
        evidence.file && evidence.category ? [{ slot: evidence.category, bytes: evidence.file }] : [],
      ),
    // What the disputes hold: an upload never attached belongs to no dispute, and Braintree lists none.
    uploadCount: () =>
      [...disputes.values()].reduce(
        (count, dispute) => count + dispute.evidence.filter((evidence) => evidence.file).length,
        0,
      ),
    submitted: (id) => disputes.get(id)?.submitted,
    accepted: (id) => accepted.has(id),
    reported(id) {
      const dispute = disputes.get(id) as FakeDispute;
      const card = cards.find((known) => known.cardType === dispute.cardType);
      return {
        network: card?.network ?? null,
        networkReasonCode: dispute.reasonCode,
        processorStatus: dispute.status,
      };
    },
    notification(kind, id) {
      const dispute = disputes.get(id);
      const subject = dispute ? { dispute: disputeXml(dispute) } : { check: typed('true', 'boolean') };
      const text = xml('notification', { timestamp: datetime(now()), kind, subject });
      // Ruby's Base64.encode64, which Braintree's own samples use: lines of 60 characters, each ended.
      const payload = (
        Buffer.from(text)
          .toString('base64')
          .match(/.{1,60}/g) ?? []
      )
        .map((line) => `${line}\n`)
        .join('');
      const key = createHash('sha1').update(privateKey).digest();
      const signature = createHmac('sha1', key).update(payload).digest('hex');
      const form = new URLSearchParams({ bt_signature: `${publicKey}|${signature}`, bt_payload: payload });
      return {
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: Buffer.from(form.toString()),
      };
    },
    close: () => server.close(),
  };
}
