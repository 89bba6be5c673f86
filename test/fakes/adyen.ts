import { createHash, createHmac } from 'node:crypto';
import type { Network } from '../../src/domain/networks.js';
import type { ContractFake } from '../helpers/adapter-contract.js';
import type { NetworkFacts } from '../helpers/contract-calls.js';
import { type FakeReply, type FakeRequest, FakeServer, jsonReply } from './harness.js';

/**
 * A fake Adyen Disputes API v30 and Standard webhook sender, modelled on docs.adyen.com:
 * - the four calls (retrieveApplicableDefenseReasons, supplyDefenseDocument, defendDispute, acceptDispute)
 *   as JSON POSTs under any path prefix, authenticated by X-API-Key (401 otherwise) and refused for
 *   another merchant account (403), in Adyen's error shape {status, errorCode, message, errorType};
 * - refusals inside a 200 as `disputeServiceResult {success: false, errorMessage}`;
 * - Idempotency-Key as Adyen keeps it: the same key and body answer the first answer again, the same key
 *   with another body is refused (422), a key over 64 characters too;
 * - defense documents: one per document type (a second of a type replaces the first), JPG or TIFF of at
 *   most 10 MB, PDF of at most 2 MB;
 * - the dispute lifecycle: defending moves a dispute to Pending (INFORMATION_SUPPLIED), accepting to
 *   Accepted; a dispute no longer Undefended cannot be defended or accepted again;
 * - webhooks: signed notification batches of up to 100 items describing each dispute's latest event,
 *   and the Dispute transaction details report with one row per event; fraud reports
 *   (NOTIFICATION_OF_FRAUD, `addFraudNotification`) come the same way.
 */

export const adyenFakeCredentials = {
  api_key:
    'AQEyhmfxK4zJbBZDw0m/n3Q5qf3VaY9UCJ1+XWZe9W27jmlZiv4PD4jhfNMofnLr2K5i8/0QwV1bDb7kfNy1WIxIIkxgBw==-test',
  merchant_account: 'RebuttalECOM',
  hmac_key: '44782DEF547AAA06C910C43932B1EB0C71FC68D9D0C057550C48EC2ACF6BA056',
};

type Status = 'Undefended' | 'Pending' | 'Won' | 'Lost' | 'Accepted' | 'Expired';
type Level = 'Required' | 'OneOrMore' | 'Optional' | 'AlternativeRequired';

export interface FakeDefenseReason {
  defenseReasonCode: string;
  documents: [code: string, level: Level][];
}

/** As Adyen's published example answers for a Visa fraud chargeback, after a reason needing two documents. */
export const defaultDefenseReasons: FakeDefenseReason[] = [
  {
    defenseReasonCode: 'GoodsOrServicesProvided',
    documents: [
      ['ProofOfDelivery', 'Required'],
      ['InvoiceOrReceipt', 'Required'],
    ],
  },
  {
    defenseReasonCode: 'SupplyDefenseMaterial',
    documents: [
      ['TIDorInvoice', 'Optional'],
      ['DefenseMaterial', 'Required'],
      ['AlternativeDefenseMaterial', 'AlternativeRequired'],
    ],
  },
];

export interface FakeAdyenEvent {
  eventCode: string;
  status: Status;
  at: Date;
}

export interface FakeAdyenDispute {
  pspReference: string;
  originalReference: string;
  merchantReference: string;
  merchantAccount: string;
  amount: number;
  currency: string;
  paymentMethod: string;
  /** Chargeback codes, or RFI codes for a request for information. */
  reasonCode: string;
  retrieval: boolean;
  defendable: boolean;
  defensePeriodEndsAt: Date;
  paymentDate: Date;
  shopperReference: string | null;
  history: FakeAdyenEvent[];
  defenseReasons: FakeDefenseReason[];
  documents: Map<string, Buffer>;
  defenseReason: string | null;
  defended: number;
  accepted: boolean;
}

/** The schemes disputes rotate through: Adyen's scheme code, the scheme's reason code, and the network here. */
const schemes: [method: string, code: string, network: Network][] = [
  ['visa', '10.4', 'visa'],
  ['mc', '4853', 'mastercard'],
  ['visa', '13.1', 'visa'],
  ['amex', 'F29', 'amex'],
  ['cup', '4515', 'unionpay'],
];
const currencies = ['EUR', 'USD', 'GBP', 'JPY'];
const minorDigits: Record<string, number> = { EUR: 2, USD: 2, GBP: 2, JPY: 0, KWD: 3 };
const allowedTypes = new Set(['image/jpg', 'image/jpeg', 'image/tiff', 'application/pdf']);
const maxBytes = (contentType: string) => (contentType === 'application/pdf' ? 2 : 10) * 1024 * 1024;
/** The generic types, where the response document goes under the fake's reasons; any other is a file's. */
const genericTypes = new Set(['DefenseMaterial', 'AlternativeDefenseMaterial']);

type Handler = (dispute: FakeAdyenDispute, body: Record<string, unknown>) => Record<string, unknown>;

const adyenError = (status: number, message: string, errorCode?: string): FakeReply =>
  jsonReply(status, {
    status,
    errorCode: errorCode ?? (status === 403 ? '010' : '000'),
    message,
    errorType: status === 401 || status === 403 ? 'security' : status >= 500 ? 'internal' : 'validation',
  });

const result = (errorMessage?: string) =>
  errorMessage ? { success: false, errorMessage } : { success: true };

/** `2026-10-01T10:15:30+01:00`: Adyen's dates carry the offset of the platform's clock (CET here). */
export function adyenDate(at: Date): string {
  return `${new Date(at.getTime() + 3_600_000).toISOString().slice(0, 19)}+01:00`;
}

export class AdyenFake implements ContractFake {
  readonly server: FakeServer;
  readonly credentials: typeof adyenFakeCredentials;
  readonly disputes = new Map<string, FakeAdyenDispute>();
  /** Every call's parsed body and headers, in order (the harness keeps method and path only). */
  readonly calls: { path: string; headers: FakeRequest['headers']; body: Record<string, unknown> }[] = [];
  /** Calls carried out, not replayed from an idempotency key. */
  executed = 0;
  /** Documents stored by calls carried out (a replayed call stores none). */
  #storedDocuments = 0;
  /** Refusals to answer the next time each call is carried out (`success: false` with this message). */
  readonly refusals = new Map<string, string>();
  readonly #replies = new Map<string, { fingerprint: string; reply: FakeReply }>();
  /** Disputes are raised from two days ago, a minute apart, on whole seconds (Adyen's dates have no ms). */
  readonly #epoch = Math.floor(Date.now() / 1000) * 1000 - 2 * 86_400_000;
  #next = 0;

  constructor(credentials = adyenFakeCredentials) {
    this.credentials = credentials;
    this.server = new FakeServer((request) => this.#handle(request), adyenError);
  }

  addDisputes(count: number): string[] {
    return Array.from({ length: count }, () => this.addDispute().pspReference);
  }

  addDispute(overrides: Partial<FakeAdyenDispute> = {}): FakeAdyenDispute {
    this.#next += 1;
    const n = this.#next;
    const [paymentMethod, reasonCode] = schemes[n % schemes.length] as [string, string, Network];
    const currency = currencies[n % currencies.length] as string;
    const raised = new Date(this.#epoch + n * 60_000);
    const dispute: FakeAdyenDispute = {
      pspReference: `99${String(n).padStart(14, '0')}`,
      originalReference: `88${String(n).padStart(14, '0')}`,
      merchantReference: `order-${n}`,
      merchantAccount: this.credentials.merchant_account,
      amount: 1000 + n * 7,
      currency,
      paymentMethod,
      reasonCode,
      retrieval: false,
      defendable: true,
      defensePeriodEndsAt: new Date(raised.getTime() + 20 * 86_400_000),
      paymentDate: new Date(raised.getTime() - 30 * 86_400_000),
      shopperReference: `shopper-${n}`,
      history: [],
      defenseReasons: defaultDefenseReasons,
      documents: new Map(),
      defenseReason: null,
      defended: 0,
      accepted: false,
      ...overrides,
    };
    if (dispute.history.length === 0) {
      const eventCode = dispute.retrieval ? 'REQUEST_FOR_INFORMATION' : 'NOTIFICATION_OF_CHARGEBACK';
      dispute.history.push({ eventCode, status: 'Undefended', at: raised });
    }
    this.disputes.set(dispute.pspReference, dispute);
    return dispute;
  }

  /**
   * An issuer's fraud report (NOTIFICATION_OF_FRAUD: Visa TC40, Mastercard SAFE) on a payment: its
   * notification item and its report row come as a dispute's do, with its own PSP reference.
   */
  addFraudNotification(overrides: Partial<FakeAdyenDispute> = {}): FakeAdyenDispute {
    return this.addDispute({
      history: [{ eventCode: 'NOTIFICATION_OF_FRAUD', status: 'Undefended', at: new Date(this.#epoch) }],
      defendable: false,
      ...overrides,
    });
  }

  /** The processor moves the dispute on: a new event in its history. */
  record(id: string, eventCode: string, status: Status, at = new Date()): void {
    this.#dispute(id).history.push({ eventCode, status, at });
  }

  move(id: string, to: 'under_review' | 'won' | 'lost'): void {
    if (to === 'under_review') this.record(id, 'INFORMATION_SUPPLIED', 'Pending');
    else if (to === 'won') this.record(id, 'CHARGEBACK_REVERSED', 'Won');
    else this.record(id, 'CHARGEBACK', 'Lost');
  }

  submissionCount(id: string): number {
    return this.#dispute(id).defended;
  }

  /** What Adyen holds of a defended dispute: its documents, and the text they carry. */
  submitted(id: string): { text: string; files: Buffer[] } | undefined {
    const dispute = this.#dispute(id);
    if (dispute.defended === 0) return undefined;
    const files = [...dispute.documents.values()];
    return { text: files.map((file) => file.toString('latin1')).join('\n'), files };
  }

  accepted(id: string): boolean {
    return this.#dispute(id).accepted;
  }

  /** The scheme and its code from the latest event's additionalData; its event code is the status. */
  reported(id: string): NetworkFacts {
    const dispute = this.#dispute(id);
    return {
      network: schemes.find(([method]) => method === dispute.paymentMethod)?.[2] ?? null,
      networkReasonCode: dispute.reasonCode,
      processorStatus: (dispute.history.at(-1) as FakeAdyenEvent).eventCode,
    };
  }

  /** The dispute's documents of a type other than the generic defense material: the evidence files. */
  slotted(id: string): { slot: string; bytes: Buffer }[] {
    return [...this.#dispute(id).documents]
      .filter(([code]) => !genericTypes.has(code))
      .map(([slot, bytes]) => ({ slot, bytes }));
  }

  uploadCount(): number {
    return this.#storedDocuments;
  }

  /** Standard webhooks describing each dispute's latest event, signed, in batches of `batch` items. */
  notifications(ids: string[], options: { batch?: number; live?: boolean } = {}) {
    const batch = options.batch ?? 100;
    const pushes: { headers: Record<string, string>; body: Buffer }[] = [];
    for (let at = 0; at < ids.length; at += batch) {
      const items = ids.slice(at, at + batch).map((id) => this.notificationItem(id));
      pushes.push(this.push(items, options.live ?? false));
    }
    return pushes;
  }

  /** The webhook telling one dispute's latest event. */
  notification(id: string) {
    return this.push([this.notificationItem(id)]);
  }

  /** A webhook POST carrying these items, as Adyen sends it. */
  push(items: Record<string, unknown>[], live = false) {
    const body = {
      live: String(live),
      notificationItems: items.map((item) => ({ NotificationRequestItem: item })),
    };
    return { headers: { 'content-type': 'application/json' }, body: Buffer.from(JSON.stringify(body)) };
  }

  /** One notification item for the dispute's latest event, signed with the merchant's HMAC key. */
  notificationItem(id: string): Record<string, unknown> {
    const dispute = this.#dispute(id);
    const event = dispute.history.at(-1) as FakeAdyenEvent;
    const codes = dispute.retrieval
      ? { rfiReasonCode: dispute.reasonCode, rfiSchemeCode: dispute.paymentMethod }
      : { chargebackReasonCode: dispute.reasonCode, chargebackSchemeCode: dispute.paymentMethod };
    const item = {
      additionalData: {
        ...codes,
        defensePeriodEndsAt: adyenDate(dispute.defensePeriodEndsAt),
        defendable: String(dispute.defendable),
        disputeStatus: event.status,
        ...(dispute.shopperReference && { shopperReference: dispute.shopperReference }),
      },
      amount: { currency: dispute.currency, value: dispute.amount },
      eventCode: event.eventCode,
      eventDate: adyenDate(event.at),
      merchantAccountCode: dispute.merchantAccount,
      merchantReference: dispute.merchantReference,
      originalReference: dispute.originalReference,
      paymentMethod: dispute.paymentMethod,
      pspReference: dispute.pspReference,
      reason: 'Other Fraud-Card Absent Environment',
      success: 'true',
    };
    return this.sign(item);
  }

  /** Adds `additionalData.hmacSignature` as Adyen computes it (verify-hmac-signatures). */
  sign(item: Record<string, unknown>, key = this.credentials.hmac_key): Record<string, unknown> {
    const amount = item.amount as { currency?: string; value?: number } | undefined;
    const data = [
      item.pspReference,
      item.originalReference,
      item.merchantAccountCode,
      item.merchantReference,
      amount?.value,
      amount?.currency,
      item.eventCode,
      item.success,
    ]
      .map((value) => (value === undefined ? '' : String(value)))
      .join(':');
    const hmacSignature = createHmac('sha256', Buffer.from(key, 'hex')).update(data).digest('base64');
    return { ...item, additionalData: { ...(item.additionalData as object), hmacSignature } };
  }

  /** The Dispute transaction details report: a row per event of each dispute, in the standard columns. */
  report(ids: string[]): string {
    const header = [
      'Company Account',
      'Merchant Account',
      'Psp Reference',
      'Merchant Reference',
      'Payment Method',
      'Record Date',
      'Record Date TimeZone',
      'Dispute Currency',
      'Dispute Amount',
      'Record Type',
      'Dispute PSP Reference',
      'Dispute Reason',
      'RFI Scheme Code',
      'RFI Reason Code',
      'CB Scheme Code',
      'CB Reason Code',
      'Payment Date',
      'Payment Date TimeZone',
      'Dispute Date',
      'Dispute Date TimeZone',
      'Dispute End Date',
      'Dispute End Date TimeZone',
      'Shopper Interaction',
    ];
    const rows = ids.flatMap((id) => {
      const dispute = this.#dispute(id);
      const raised = (dispute.history[0] as FakeAdyenEvent).at;
      return dispute.history.map((event) => [
        'RebuttalCompany',
        dispute.merchantAccount,
        dispute.originalReference,
        dispute.merchantReference,
        dispute.paymentMethod,
        reportDate(event.at),
        'CET',
        dispute.currency,
        decimalOf(dispute.amount, dispute.currency),
        event.eventCode.toLowerCase().replace(/(?:^|_)([a-z])/g, (_, letter: string) => letter.toUpperCase()),
        dispute.pspReference,
        'Other Fraud-Card Absent Environment, "card not present"',
        dispute.retrieval ? dispute.paymentMethod : '',
        dispute.retrieval ? dispute.reasonCode : '',
        dispute.retrieval ? '' : dispute.paymentMethod,
        dispute.retrieval ? '' : dispute.reasonCode,
        reportDate(dispute.paymentDate),
        'CET',
        reportDate(raised),
        'CET',
        reportDate(dispute.defensePeriodEndsAt),
        'CET',
        'Ecommerce',
      ]);
    });
    return [header, ...rows].map((row) => row.map(csvField).join(',')).join('\r\n');
  }

  close(): Promise<void> {
    return this.server.close();
  }

  #dispute(id: string): FakeAdyenDispute {
    const dispute = this.disputes.get(id);
    if (!dispute) throw new Error(`the fake holds no dispute ${id}`);
    return dispute;
  }

  #handle(request: FakeRequest): FakeReply {
    const call = request.path.split('/').at(-1) ?? '';
    if (request.method !== 'POST' || !Object.hasOwn(this.#calls, call)) {
      return adyenError(404, 'Not found', '000');
    }
    if (request.headers['x-api-key'] !== this.credentials.api_key) {
      return adyenError(401, 'HTTP Status Response - Unauthorized');
    }
    let body: Record<string, unknown>;
    try {
      body = JSON.parse(request.body.toString('utf8'));
    } catch {
      return adyenError(400, 'Structure of the request is invalid', '702');
    }
    this.calls.push({ path: call, headers: request.headers, body });
    const key = request.headers['idempotency-key'];
    if (typeof key !== 'string') return this.#execute(call, body);
    if (key.length > 64) return adyenError(422, 'Idempotency key exceeds 64 characters', '000');
    const fingerprint = createHash('sha256').update(call).update(request.body).digest('hex');
    const known = this.#replies.get(key);
    if (known && known.fingerprint !== fingerprint) {
      return adyenError(422, 'request already processed or in progress', '704');
    }
    if (known) return known.reply;
    const reply = this.#execute(call, body);
    this.#replies.set(key, { fingerprint, reply });
    return reply;
  }

  #execute(call: string, body: Record<string, unknown>): FakeReply {
    this.executed += 1;
    if (body.merchantAccountCode !== this.credentials.merchant_account) return adyenError(403, 'Not allowed');
    const dispute = this.disputes.get(String(body.disputePspReference));
    if (!dispute) return jsonReply(200, { disputeServiceResult: result('Dispute not found.') });
    const refusal = this.refusals.get(call);
    if (refusal) {
      this.refusals.delete(call);
      return jsonReply(200, { disputeServiceResult: result(refusal) });
    }
    const handler = (this.#calls as Record<string, Handler>)[call] as Handler;
    return jsonReply(200, handler(dispute, body));
  }

  readonly #calls = {
    retrieveApplicableDefenseReasons: (dispute: FakeAdyenDispute) => ({
      defenseReasons: dispute.defenseReasons.map((reason) => ({
        defenseDocumentTypes: reason.documents.map(([code, level]) => ({
          available: dispute.documents.has(code),
          defenseDocumentTypeCode: code,
          requirementLevel: level,
        })),
        defenseReasonCode: reason.defenseReasonCode,
        satisfied: satisfied(reason, dispute.documents),
      })),
      disputeServiceResult: result(),
    }),
    supplyDefenseDocument: (dispute: FakeAdyenDispute, body: Record<string, unknown>) => {
      const refusal = this.#unanswerable(dispute);
      if (refusal) return { disputeServiceResult: result(refusal) };
      const offered = new Set(
        dispute.defenseReasons.flatMap((reason) => reason.documents.map(([code]) => code)),
      );
      const documents = (body.defenseDocuments ?? []) as Record<string, string>[];
      for (const document of documents) {
        const code = document.defenseDocumentTypeCode ?? '';
        if (!offered.has(code))
          return { disputeServiceResult: result(`Invalid defense document type: ${code}`) };
        if (!allowedTypes.has(document.contentType ?? '')) {
          return { disputeServiceResult: result(`Invalid content type: ${document.contentType}`) };
        }
        const content = Buffer.from(document.content ?? '', 'base64');
        if (content.length > maxBytes(document.contentType ?? ''))
          return { disputeServiceResult: result('Document is too large.') };
        dispute.documents.set(code, content);
        this.#storedDocuments += 1;
      }
      return { disputeServiceResult: result() };
    },
    defendDispute: (dispute: FakeAdyenDispute, body: Record<string, unknown>) => {
      const refusal = this.#unanswerable(dispute);
      if (refusal) return { disputeServiceResult: result(refusal) };
      const reason = dispute.defenseReasons.find(
        (offer) => offer.defenseReasonCode === body.defenseReasonCode,
      );
      if (!reason) return { disputeServiceResult: result('Invalid defense reason code.') };
      if (!satisfied(reason, dispute.documents)) {
        return {
          disputeServiceResult: result('Defense material is not sufficient for this defense reason.'),
        };
      }
      dispute.defended += 1;
      dispute.defenseReason = reason.defenseReasonCode;
      dispute.history.push({ eventCode: 'INFORMATION_SUPPLIED', status: 'Pending', at: new Date() });
      return { disputeServiceResult: result() };
    },
    acceptDispute: (dispute: FakeAdyenDispute) => {
      const refusal = this.#unanswerable(dispute);
      if (refusal) return { disputeServiceResult: result(refusal) };
      dispute.accepted = true;
      dispute.history.push({ eventCode: 'DISPUTE_DEFENSE_PERIOD_ENDED', status: 'Accepted', at: new Date() });
      return { disputeServiceResult: result() };
    },
  };

  /** Adyen's refusals for a dispute that can no longer be answered (docs/architecture.md, "Adyen"). */
  #unanswerable(dispute: FakeAdyenDispute): string | null {
    if (dispute.defensePeriodEndsAt.getTime() < Date.now()) return 'Dispute expired.';
    const status = (dispute.history.at(-1) as FakeAdyenEvent).status;
    return !dispute.defendable || status !== 'Undefended' ? 'Dispute is not defendable.' : null;
  }
}

function satisfied(reason: FakeDefenseReason, documents: Map<string, Buffer>): boolean {
  const at = (level: Level) => reason.documents.filter(([, each]) => each === level).map(([code]) => code);
  if (at('AlternativeRequired').some((code) => documents.has(code))) return true;
  const oneOrMore = at('OneOrMore');
  return (
    at('Required').every((code) => documents.has(code)) &&
    (oneOrMore.length === 0 || oneOrMore.some((code) => documents.has(code)))
  );
}

/** `2026-10-01 10:30:00` in CET, as the report writes dates. */
function reportDate(at: Date): string {
  return new Date(at.getTime() + 3_600_000).toISOString().slice(0, 19).replace('T', ' ');
}

function decimalOf(minor: number, currency: string): string {
  const digits = minorDigits[currency] ?? 2;
  if (digits === 0) return String(minor);
  const text = String(minor).padStart(digits + 1, '0');
  return `${text.slice(0, -digits)}.${text.slice(-digits)}`;
}

function csvField(value: string): string {
  return /[",\r\n]/.test(value) ? `"${value.replaceAll('"', '""')}"` : value;
}

export async function startAdyenFake(credentials = adyenFakeCredentials): Promise<AdyenFake> {
  const fake = new AdyenFake(credentials);
  await fake.server.start();
  return fake;
}
