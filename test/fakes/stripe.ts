import { createHash, createHmac } from 'node:crypto';
import type { Network } from '../../src/domain/networks.js';
import type { ContractFake } from '../helpers/adapter-contract.js';
import type { NetworkFacts } from '../helpers/contract-calls.js';
import {
  basicCredentials,
  type FakeReply,
  type FakeRequest,
  FakeServer,
  jsonReply,
  multipartParts,
} from './harness.js';
import { StripeEnhancedEvidenceFake } from './stripe-enhanced-evidence.js';
import { StripeRadar } from './stripe-radar.js';

/**
 * A fake Stripe, modelled on docs.stripe.com/api (disputes, events, files, charges, charge search) and
 * docs.stripe.com/disputes/api, serving every host on one port (files.stripe.com included, as an
 * account's --base-url does):
 * - authentication by secret key as Bearer token or Basic user; a wrong key is 401, a restricted key
 *   (dispute-level access) is 403 on charges, expanded ones included;
 * - `Stripe-Account` selects a connected account's own objects (Connect direct charges);
 * - lists newest first, paged with `starting_after` / `ending_before` and `limit` (1-100), `has_more`;
 * - every change to a dispute records a `charge.dispute.*` event;
 * - `Idempotency-Key` on POSTs: a repeat of the same request replays the saved answer
 *   (`Idempotent-Replayed: true`), another request under the key is refused (400 idempotency_error).
 *   Stripe compares parameters; by default the fake is stricter, as any processor may be, and compares
 *   the bytes (a multipart boundary included): `idempotency: 'parameters'` relaxes it;
 * - files: upload (multipart `purpose` and `file`: PDF, JPEG or PNG of at most 5 MB, else 400), list
 *   (`purpose`, `created[gte]`, newest first), retrieve, and their contents; an evidence file field
 *   takes only a file of purpose `dispute_evidence`;
 * - evidence is refused once a dispute no longer awaits a response; `submit` (default true) sends it on
 *   and moves the dispute to (warning_)under_review; close makes it lost (warning_closed);
 * - errors in Stripe's shape: `{ error: { type, code?, message, param? } }`;
 * - early fraud warnings and refunds: `radar` (stripe-radar.ts).
 * The wording of the fake's refusals is its own; Stripe does not publish every message.
 */

/** The keys the fake takes unless told others, as an operator's credentials file would hold them. */
export const stripeFakeKeys = {
  secretKey: 'sk_test_51FakeRebuttalContractKey000000000000000001',
  restrictedKey: 'rk_test_51FakeRebuttalRestrictedKey00000000000001',
  webhookSecret: 'whsec_FakeRebuttalContractSigningSecret01',
} as const;

/** The credentials file of an account connected to the fake. */
export const stripeFakeCredentials = {
  secret_key: stripeFakeKeys.secretKey,
  webhook_secret: stripeFakeKeys.webhookSecret,
};

export interface StripeFakeOptions {
  secretKey?: string;
  /** A restricted key with dispute-level access only (read-only accounts). */
  restrictedKey?: string;
  webhookSecret?: string;
  /** What a repeated idempotency key is compared on. Default 'bytes'. */
  idempotency?: 'bytes' | 'parameters';
}

type Status =
  | 'warning_needs_response'
  | 'warning_under_review'
  | 'warning_closed'
  | 'needs_response'
  | 'under_review'
  | 'won'
  | 'lost';

export interface NewDispute {
  /** A connected account's id: the dispute is on its direct charge. */
  account?: string;
  status?: Status;
  reason?: string;
  amount?: number;
  currency?: string;
  /** Unix time; 0 when the issuer allows no response. Default two weeks from now. */
  dueBy?: number;
  /** The card's brand and the network's code (payment_method_details.card). Default: the next of `cards`. */
  card?: { brand: string; code: string };
  /** A Visa compliance dispute: its evidence goes only with the fee acknowledged (stripe-enhanced-evidence.ts). */
  visaCompliance?: boolean;
}

type Json = Record<string, unknown>;

interface Dispute {
  json: Json & { id: string; status: Status; metadata: Record<string, string> };
  chargeId: string;
  submissions: number;
  submitted?: { text: string; files: Buffer[]; slots: { slot: string; bytes: Buffer }[] };
  closedByMerchant: boolean;
}

interface Account {
  disputes: Map<string, Dispute>;
  /** Dispute ids in creation order (lists serve them newest first). */
  disputeOrder: string[];
  /** Each dispute's index in disputeOrder. */
  disputePositions: Map<string, number>;
  charges: Map<string, Json & { id: string; created: number }>;
  files: Map<string, { json: Json; data: Buffer }>;
  events: (Json & { id: string; type: string; created: number })[];
  idempotency: Map<string, { fingerprint: string; reply: FakeReply }>;
}

const apiVersion = '2024-06-20';
/**
 * The cards disputes rotate through, as `payment_method_details.card` carries them (brand and the
 * network's code, docs.stripe.com/api/disputes/object), with the network each brand is here (a brand of
 * no network of ours, Cartes Bancaires, has none).
 */
const cards: { brand: string; code: string; network: Network | null }[] = [
  { brand: 'visa', code: '10.4', network: 'visa' },
  { brand: 'mastercard', code: '4837', network: 'mastercard' },
  { brand: 'amex', code: 'F29', network: 'amex' },
  { brand: 'cartes_bancaires', code: '4501', network: null },
];
const textFields = new Set([
  'access_activity_log',
  'billing_address',
  'cancellation_policy_disclosure',
  'cancellation_rebuttal',
  'customer_email_address',
  'customer_name',
  'customer_purchase_ip',
  'duplicate_charge_explanation',
  'duplicate_charge_id',
  'product_description',
  'refund_policy_disclosure',
  'refund_refusal_explanation',
  'service_date',
  'shipping_address',
  'shipping_carrier',
  'shipping_date',
  'shipping_tracking_number',
  'uncategorized_text',
]);
const longTextFields = new Set([
  'access_activity_log',
  'cancellation_policy_disclosure',
  'cancellation_rebuttal',
  'duplicate_charge_explanation',
  'product_description',
  'refund_policy_disclosure',
  'refund_refusal_explanation',
  'uncategorized_text',
]);
const fileFields = new Set([
  'cancellation_policy',
  'customer_communication',
  'customer_signature',
  'duplicate_charge_documentation',
  'receipt',
  'refund_policy',
  'service_documentation',
  'shipping_documentation',
  'uncategorized_file',
]);
const contentTypes: Record<string, string> = {
  pdf: 'application/pdf',
  jpg: 'image/jpeg',
  png: 'image/png',
};
const awaiting: readonly Status[] = ['needs_response', 'warning_needs_response'];
const afterSubmit: Partial<Record<Status, Status>> = {
  needs_response: 'under_review',
  warning_needs_response: 'warning_under_review',
};
const afterClose: Partial<Record<Status, Status>> = {
  needs_response: 'lost',
  warning_needs_response: 'warning_closed',
};

export const stripeError = (
  status: number,
  error: { type: string; message: string; code?: string; param?: string },
  headers: Record<string, string> = {},
): FakeReply => jsonReply(status, { error }, headers);

const refuse = (message: string, extra: { code?: string; param?: string } = {}) =>
  stripeError(400, { type: 'invalid_request_error', message, ...extra });
const missing = (what: string, id: string, param?: string) =>
  stripeError(param ? 400 : 404, {
    type: 'invalid_request_error',
    code: 'resource_missing',
    message: `No such ${what}: '${id}'`,
    ...(param ? { param } : {}),
  });

/** Stripe's error shape for what the harness injects (429, 5xx). */
const errorShape = (status: number, message: string): FakeReply =>
  status === 429
    ? stripeError(429, { type: 'invalid_request_error', code: 'rate_limit', message })
    : stripeError(status, { type: 'api_error', message });

export class StripeFake implements ContractFake {
  readonly server: FakeServer;
  readonly secretKey: string;
  readonly restrictedKey: string;
  readonly webhookSecret: string;
  /** Every request handled, with its body, for tests of what went over the wire. */
  readonly received: FakeRequest[] = [];
  /** Runs before each request is handled: a test's way to change the account between two calls. */
  beforeHandling: ((request: FakeRequest) => void) | undefined;
  /** Visa CE 3.0 and compliance evidence: eligibility, checks, and what each dispute received. */
  readonly enhanced = new StripeEnhancedEvidenceFake();
  readonly #accounts = new Map<string, Account>();
  readonly #idempotency: 'bytes' | 'parameters';
  #sequence = 0;
  /** Early fraud warnings and refunds (stripe-radar.ts). */
  readonly radar = new StripeRadar({
    now: () => this.now(),
    next: () => this.#next(),
    newCharge: (account, values) =>
      this.#charge(this.#account(account), {
        ...values,
        created: this.now(),
        fingerprint: `fp${this.#next()}`,
      }),
    findCharge: (account, id) =>
      this.#account(account).charges.get(id) as ReturnType<StripeFake['chargeOf']> & {
        amount: number;
        currency: string;
      },
    record: (account, type, object) => this.#recordEvent(this.#account(account), type, object),
    events: (account) => this.events(account),
    sign: (body, timestamp) => this.sign(body, timestamp),
    server: () => this.server,
    page: (items, idOf, request, what) => page(newestFirstOf(items, idOf), request, what),
    refuse: (status, error) => stripeError(status, error),
  });

  constructor(options: StripeFakeOptions = {}) {
    this.secretKey = options.secretKey ?? stripeFakeKeys.secretKey;
    this.restrictedKey = options.restrictedKey ?? stripeFakeKeys.restrictedKey;
    this.webhookSecret = options.webhookSecret ?? stripeFakeKeys.webhookSecret;
    this.#idempotency = options.idempotency ?? 'bytes';
    this.server = new FakeServer((request) => this.#handle(request), errorShape);
  }

  /** Stripe's clock, by which objects and events are stamped. */
  now(): number {
    return Math.floor(Date.now() / 1000);
  }

  addDisputes(count: number, options: NewDispute = {}): string[] {
    const account = this.#account(options.account ?? '');
    const ids: string[] = [];
    for (let index = 0; index < count; index++) {
      const created = this.now();
      const amount = options.amount ?? 1000 + (this.#sequence % 9000);
      const currency = options.currency ?? 'usd';
      const fingerprint = `fp${this.#next()}`;
      const disputed = this.#charge(account, {
        created: created - 2 * 86_400,
        amount,
        currency,
        fingerprint,
      });
      disputed.disputed = true;
      // Two earlier payments with the same card, and one that failed: past payments to find.
      this.#charge(account, { created: created - 40 * 86_400, amount: 2500, currency, fingerprint });
      this.#charge(account, { created: created - 20 * 86_400, amount: 3500, currency, fingerprint });
      this.#charge(account, { created: created - 10 * 86_400, amount: 999, currency, fingerprint }).status =
        'failed';
      const status = options.status ?? 'needs_response';
      const card = options.card ?? (cards[this.#sequence % cards.length] as (typeof cards)[number]);
      const id = `du_${this.#next()}`;
      const withdrawn = status.startsWith('warning_') ? [] : [this.#transaction(-amount, 1500, currency)];
      const dispute: Dispute = {
        chargeId: disputed.id,
        submissions: 0,
        closedByMerchant: false,
        json: {
          id,
          object: 'dispute',
          amount,
          balance_transactions: withdrawn,
          charge: disputed.id,
          created,
          currency,
          evidence: Object.fromEntries([...textFields, ...fileFields].map((field) => [field, null])),
          evidence_details: {
            due_by: options.dueBy ?? created + 14 * 86_400,
            has_evidence: false,
            past_due: false,
            submission_count: 0,
          },
          is_charge_refundable: false,
          livemode: false,
          metadata: {},
          payment_intent: null,
          payment_method_details: {
            card: { brand: card.brand, case_type: 'chargeback', network_reason_code: card.code },
            type: 'card',
          },
          reason: options.reason ?? 'fraudulent',
          status,
        },
      };
      this.enhanced.opened(dispute.json, options);
      account.disputes.set(id, dispute);
      account.disputePositions.set(id, account.disputeOrder.length);
      account.disputeOrder.push(id);
      this.#record(account, dispute, 'charge.dispute.created');
      if (withdrawn.length > 0) this.#record(account, dispute, 'charge.dispute.funds_withdrawn');
      ids.push(id);
    }
    return ids;
  }

  move(id: string, to: 'under_review' | 'won' | 'lost'): void {
    const { account, dispute } = this.#find(id);
    dispute.json.status = to;
    if (to === 'won') {
      const amount = dispute.json.amount as number;
      (dispute.json.balance_transactions as Json[]).push(
        this.#transaction(amount, -1500, dispute.json.currency as string),
      );
      this.#record(account, dispute, 'charge.dispute.funds_reinstated');
    }
    this.#record(
      account,
      dispute,
      to === 'under_review' ? 'charge.dispute.updated' : 'charge.dispute.closed',
    );
  }

  /** A succeeded charge with the dispute's card, `days` before its disputed charge (a past payment to name). */
  addPriorCharge(id: string, days: number): Json & { id: string; created: number } {
    const { account, dispute } = this.#find(id);
    const disputed = account.charges.get(dispute.chargeId) as Json & { id: string; created: number };
    const card = (disputed.payment_method_details as { card: { fingerprint: string } }).card;
    return this.#charge(account, {
      created: disputed.created - days * 86_400,
      amount: 1999,
      currency: disputed.currency as string,
      fingerprint: card.fingerprint,
    });
  }

  /** Sets text evidence fields of a dispute as Stripe fills them (`customer_purchase_ip`, …). */
  setEvidence(id: string, evidence: Record<string, string>): void {
    Object.assign(this.#find(id).dispute.json.evidence as Json, evidence);
  }

  submissionCount(id: string): number {
    return this.#find(id).dispute.submissions;
  }

  /** How many files of this name the accounts hold. */
  filesNamed(filename: string): number {
    let count = 0;
    for (const account of this.#accounts.values()) {
      for (const file of account.files.values()) if (file.json.filename === filename) count += 1;
    }
    return count;
  }

  submitted(id: string): { text: string; files: Buffer[] } | undefined {
    return this.#find(id).dispute.submitted;
  }

  /** The evidence file fields of the dispute's submission but `uncategorized_file`, with their files' bytes. */
  slotted(id: string): { slot: string; bytes: Buffer }[] {
    return this.#find(id).dispute.submitted?.slots ?? [];
  }

  /** How many files the accounts hold, each upload one (a replayed upload makes none). */
  uploadCount(): number {
    let count = 0;
    for (const account of this.#accounts.values()) count += account.files.size;
    return count;
  }

  accepted(id: string): boolean {
    return this.#find(id).dispute.closedByMerchant;
  }

  reported(id: string): NetworkFacts {
    const { json } = this.#find(id).dispute;
    const { brand, network_reason_code } = (json.payment_method_details as { card: Json }).card;
    return {
      network: cards.find((card) => card.brand === brand)?.network ?? null,
      networkReasonCode: network_reason_code as string,
      processorStatus: json.status,
    };
  }

  /** The dispute as Stripe serves it now. */
  dispute(id: string): Json {
    return structuredClone(this.#find(id).dispute.json);
  }

  /** Another charge with the disputed charge's card, `days` before it (a past payment to find), to change at will. */
  addEarlierCharge(id: string, days: number): Json & { id: string; created: number } {
    const { account, dispute } = this.#find(id);
    const disputed = account.charges.get(dispute.chargeId) as unknown as {
      created: number;
      currency: string;
      payment_method_details: { card: { fingerprint: string } };
    };
    const { fingerprint } = disputed.payment_method_details.card;
    const values = { created: disputed.created - days * 86_400, amount: 1200, currency: disputed.currency };
    return this.#charge(account, { ...values, fingerprint });
  }

  /** The disputed charge of a dispute. */
  chargeOf(id: string): Json & { id: string; created: number } {
    const { account, dispute } = this.#find(id);
    return account.charges.get(dispute.chargeId) as Json & { id: string; created: number };
  }

  /** The dispute events of an account, oldest first. */
  events(account = ''): readonly (Json & { id: string; type: string; created: number })[] {
    return this.#account(account).events;
  }

  /** Forgets the events created before `at`, as Stripe does after 30 days. */
  pruneEventsBefore(at: number, account = ''): void {
    const events = this.#account(account).events;
    const kept = events.filter((event) => event.created >= at);
    events.splice(0, events.length, ...kept);
  }

  /** The webhook Stripe would POST about the dispute's latest change, signed with the endpoint's secret. */
  signedEvent(id: string, timestamp = this.now()): { headers: Record<string, string>; body: Buffer } {
    const { account } = this.#find(id);
    const event = account.events.findLast(
      (candidate) => (candidate.data as Json & { object: Json }).object.id === id,
    );
    return this.sign(Buffer.from(JSON.stringify(event)), timestamp);
  }

  sign(body: Buffer, timestamp = this.now()): { headers: Record<string, string>; body: Buffer } {
    const signature = createHmac('sha256', this.webhookSecret)
      .update(`${timestamp}.`)
      .update(body)
      .digest('hex');
    return { headers: { 'stripe-signature': `t=${timestamp},v1=${signature}` }, body };
  }

  async start(): Promise<this> {
    await this.server.start();
    return this;
  }

  close(): Promise<void> {
    return this.server.close();
  }

  #next(): string {
    this.#sequence += 1;
    return `Fk${this.#sequence.toString().padStart(10, '0')}`;
  }

  #account(id: string): Account {
    let account = this.#accounts.get(id);
    if (!account) {
      account = {
        disputes: new Map(),
        disputeOrder: [],
        disputePositions: new Map(),
        charges: new Map(),
        files: new Map(),
        events: [],
        idempotency: new Map(),
      };
      this.#accounts.set(id, account);
    }
    return account;
  }

  #find(id: string): { account: Account; dispute: Dispute } {
    for (const account of this.#accounts.values()) {
      const dispute = account.disputes.get(id);
      if (dispute) return { account, dispute };
    }
    throw new Error(`the fake holds no dispute ${id}`);
  }

  #charge(
    account: Account,
    values: { created: number; amount: number; currency: string; fingerprint: string },
  ): Json & { id: string; created: number } {
    const id = `ch_${this.#next()}`;
    const charge = {
      id,
      object: 'charge',
      amount: values.amount,
      amount_captured: values.amount,
      currency: values.currency,
      created: values.created,
      customer: 'cus_FakeAda',
      description: `Order for ${id}`,
      disputed: false,
      refunded: false,
      amount_refunded: 0,
      status: 'succeeded',
      receipt_email: 'ada@example.com',
      statement_descriptor: null,
      calculated_statement_descriptor: 'REBUTTAL SHOP',
      billing_details: { name: 'Ada Lovelace', email: 'ada@example.com', address: { postal_code: '94107' } },
      shipping: {
        address: {
          line1: '1 Analytical Way',
          line2: null,
          city: 'London',
          state: null,
          postal_code: 'N1 9GU',
          country: 'GB',
        },
      },
      payment_method_details: {
        card: {
          brand: 'visa',
          last4: '4242',
          fingerprint: values.fingerprint,
          checks: { address_line1_check: 'pass', address_postal_code_check: 'fail', cvc_check: 'pass' },
        },
        type: 'card',
      },
    };
    account.charges.set(id, charge);
    return charge;
  }

  #transaction(amount: number, fee: number, currency: string): Json {
    return {
      id: `txn_${this.#next()}`,
      object: 'balance_transaction',
      amount,
      fee,
      net: amount - fee,
      currency,
      created: this.now(),
      type: 'adjustment',
      reporting_category: 'dispute',
    };
  }

  #record(account: Account, dispute: Dispute, type: string): void {
    this.#recordEvent(account, type, structuredClone(dispute.json));
  }

  #recordEvent(account: Account, type: string, object: Json): void {
    account.events.push({
      id: `evt_${this.#next()}`,
      object: 'event',
      api_version: apiVersion,
      created: this.now(),
      data: { object },
      livemode: false,
      pending_webhooks: 0,
      type,
    });
  }

  async #handle(request: FakeRequest): Promise<FakeReply> {
    this.received.push(request);
    this.beforeHandling?.(request);
    const key = apiKeyOf(request);
    if (!key) {
      return stripeError(401, {
        type: 'invalid_request_error',
        message: 'You did not provide an API key. Provide it in the Authorization header.',
      });
    }
    if (key !== this.secretKey && key !== this.restrictedKey) {
      return stripeError(401, {
        type: 'invalid_request_error',
        message: `Invalid API Key provided: ${key.slice(0, 8)}****${key.slice(-4)}`,
      });
    }
    const restricted = key === this.restrictedKey;
    const account = this.#account(headerOf(request, 'stripe-account') ?? '');
    const touchesCharges =
      request.path.startsWith('/v1/charges') ||
      request.path === '/v1/refunds' ||
      request.query.getAll('expand[]').some((path) => path.endsWith('charge'));
    if (restricted && touchesCharges) {
      return stripeError(403, {
        type: 'invalid_request_error',
        message: `The provided key '${key.slice(0, 8)}****${key.slice(-4)}' does not have the required permissions for this endpoint.`,
      });
    }
    const idempotencyKey = request.method === 'POST' ? headerOf(request, 'idempotency-key') : undefined;
    if (idempotencyKey === undefined) return this.#route(account, request);
    const fingerprint = this.#idempotency === 'bytes' ? bytesFingerprintOf(request) : fingerprintOf(request);
    const saved = account.idempotency.get(idempotencyKey);
    if (saved && saved.fingerprint !== fingerprint) {
      return stripeError(400, {
        type: 'idempotency_error',
        message: `Keys for idempotent requests can only be used with the same parameters they were first used with. Try using a key other than '${idempotencyKey}' if you meant to execute a different request.`,
      });
    }
    if (saved) return { ...saved.reply, headers: { ...saved.reply.headers, 'idempotent-replayed': 'true' } };
    const reply = await this.#route(account, request);
    account.idempotency.set(idempotencyKey, { fingerprint, reply });
    return reply;
  }

  #route(account: Account, request: FakeRequest): FakeReply {
    const { method, path } = request;
    const [, , collection, id, action] = path.split('/');
    if (method === 'GET' && path === '/v1/disputes') return this.#listDisputes(account, request);
    if (method === 'GET' && path === '/v1/events') return this.#listEvents(account, request);
    if (method === 'POST' && path === '/v1/files') return this.#upload(account, request);
    if (method === 'GET' && path === '/v1/files') return this.#listFiles(account, request);
    if (collection === 'files' && id && method === 'GET') {
      const file = account.files.get(id);
      if (!file) return missing('file', id);
      if (!action) return jsonReply(200, file.json);
      if (action === 'contents') {
        return {
          status: 200,
          headers: { 'content-type': contentTypes[String(file.json.type)] ?? '' },
          body: file.data,
        };
      }
    }
    if (method === 'GET' && path === '/v1/charges/search') return this.#searchCharges(account, request);
    const radar = this.radar.route(headerOf(request, 'stripe-account') ?? '', request);
    if (radar) return radar;
    if (collection === 'disputes' && id && !action) {
      if (method === 'GET') return this.#retrieveDispute(account, id, request);
      if (method === 'POST') return this.#updateDispute(account, id, request);
    }
    if (collection === 'disputes' && id && action === 'close' && method === 'POST') {
      return this.#closeDispute(account, id);
    }
    if (collection === 'charges' && id && !action && method === 'GET') {
      const charge = account.charges.get(id);
      return charge ? jsonReply(200, charge) : missing('charge', id);
    }
    return stripeError(404, {
      type: 'invalid_request_error',
      message: `Unrecognized request URL (${method}: ${path}).`,
    });
  }

  #disputeJson(account: Account, dispute: Dispute, expandCharge: boolean): Json {
    return expandCharge ? { ...dispute.json, charge: account.charges.get(dispute.chargeId) } : dispute.json;
  }

  #listDisputes(account: Account, request: FakeRequest): FakeReply {
    // A view newest first over the creation order, without copying it: 50,000 disputes page in O(limit).
    const order = account.disputeOrder;
    const newestFirst = {
      length: order.length,
      at: (index: number) => account.disputes.get(order[order.length - 1 - index] as string) as Dispute,
      indexOf: (id: string) => {
        const position = account.disputePositions.get(id);
        return position === undefined ? -1 : order.length - 1 - position;
      },
    };
    const paged = page(newestFirst, request, 'dispute');
    if ('status' in paged) return paged;
    const expand = request.query.getAll('expand[]').includes('data.charge');
    return jsonReply(200, {
      object: 'list',
      url: '/v1/disputes',
      has_more: paged.hasMore,
      data: paged.items.map((dispute) => this.#disputeJson(account, dispute, expand)),
    });
  }

  #listEvents(account: Account, request: FakeRequest): FakeReply {
    const types = request.query.getAll('types[]');
    const type = request.query.get('type');
    const from = request.query.get('created[gte]');
    const newestFirst = account.events
      .filter(
        (event) =>
          (types.length === 0 || types.includes(event.type)) &&
          (type === null || event.type === type) &&
          (from === null || event.created >= Number(from)),
      )
      .reverse();
    const paged = page(
      newestFirstOf(newestFirst, (event) => event.id),
      request,
      'event',
    );
    if ('status' in paged) return paged;
    return jsonReply(200, { object: 'list', url: '/v1/events', has_more: paged.hasMore, data: paged.items });
  }

  #retrieveDispute(account: Account, id: string, request: FakeRequest): FakeReply {
    const dispute = account.disputes.get(id);
    if (!dispute) return missing('dispute', id);
    return jsonReply(
      200,
      this.#disputeJson(account, dispute, request.query.getAll('expand[]').includes('charge')),
    );
  }

  #updateDispute(account: Account, id: string, request: FakeRequest): FakeReply {
    const dispute = account.disputes.get(id);
    if (!dispute) return missing('dispute', id);
    const params = new URLSearchParams(request.body.toString('utf8'));
    const evidence: Record<string, string> = {};
    for (const [name, value] of params) {
      const field = /^evidence\[(\w+)\]$/.exec(name)?.[1];
      if (field !== undefined) {
        if (!textFields.has(field) && !fileFields.has(field)) {
          return refuse(`Received unknown parameter: ${name}`, { param: name });
        }
        evidence[field] = value;
      } else if (
        !/^metadata\[\w+\]$/.test(name) &&
        !name.startsWith('evidence[enhanced_evidence]') &&
        name !== 'submit' &&
        name !== 'expand[]'
      ) {
        return refuse(`Received unknown parameter: ${name}`, { param: name });
      }
    }
    const submit = (params.get('submit') ?? 'true') === 'true';
    const changesEvidence = Object.keys(evidence).length > 0 || params.has('submit');
    if (changesEvidence && !awaiting.includes(dispute.json.status)) {
      return refuse(`The evidence of dispute ${id} can no longer be updated: it is ${dispute.json.status}.`);
    }
    let combined = 0;
    for (const [field, value] of Object.entries(evidence)) {
      if (fileFields.has(field)) {
        if (account.files.get(value)?.json.purpose !== 'dispute_evidence') {
          return missing('file upload', value, `evidence[${field}]`);
        }
      } else {
        if (longTextFields.has(field) && value.length > 20_000) {
          return refuse(`evidence[${field}] is longer than 20000 characters.`, {
            param: `evidence[${field}]`,
          });
        }
        combined += value.length;
      }
    }
    if (combined > 150_000) return refuse('The combined evidence text is longer than 150000 characters.');
    const enhanced = this.enhanced.update(
      dispute.json,
      params,
      account.charges,
      dispute.chargeId,
      changesEvidence && submit,
    );
    if (typeof enhanced !== 'function') return enhanced;
    enhanced();

    const stored = dispute.json.evidence as Record<string, string | null>;
    Object.assign(stored, evidence);
    for (const [name, value] of params) {
      const key = /^metadata\[(\w+)\]$/.exec(name)?.[1];
      if (key === undefined) continue;
      if (value === '') delete dispute.json.metadata[key];
      else dispute.json.metadata[key] = value;
    }
    const details = dispute.json.evidence_details as Json;
    details.has_evidence = Object.values(stored).some((value) => value !== null);
    if (changesEvidence && submit) {
      dispute.json.status = afterSubmit[dispute.json.status] ?? dispute.json.status;
      details.submission_count = (details.submission_count as number) + 1;
      dispute.submissions += 1;
      dispute.submitted = {
        text: [...textFields]
          .map((field) => stored[field])
          .filter(Boolean)
          .join('\n'),
        files: [...fileFields]
          .map((field) => stored[field])
          .filter((file): file is string => Boolean(file))
          .map((file) => account.files.get(file)?.data as Buffer),
        slots: [...fileFields]
          .filter((field) => field !== 'uncategorized_file' && stored[field])
          .map((field) => ({
            slot: field,
            bytes: account.files.get(stored[field] as string)?.data as Buffer,
          })),
      };
    }
    this.#record(account, dispute, 'charge.dispute.updated');
    return jsonReply(200, dispute.json);
  }

  #closeDispute(account: Account, id: string): FakeReply {
    const dispute = account.disputes.get(id);
    if (!dispute) return missing('dispute', id);
    const closed = afterClose[dispute.json.status];
    if (!closed) return refuse(`Dispute ${id} cannot be closed: it is ${dispute.json.status}.`);
    dispute.json.status = closed;
    dispute.closedByMerchant = true;
    this.#record(account, dispute, 'charge.dispute.closed');
    return jsonReply(200, dispute.json);
  }

  #upload(account: Account, request: FakeRequest): FakeReply {
    const parts = multipartParts(request);
    const purpose = parts.find((part) => part.name === 'purpose')?.data.toString('utf8');
    const file = parts.find((part) => part.name === 'file');
    if (!purpose) return refuse('Missing required param: purpose.', { param: 'purpose' });
    if (!file) return refuse('Missing required param: file.', { param: 'file' });
    const type = fileTypeOf(file.data);
    if (!type) return refuse('The file must be a PDF, JPEG or PNG.', { param: 'file' });
    if (file.data.length > 5 * 1024 * 1024) return refuse('The file is larger than 5 MB.', { param: 'file' });
    const created = this.now();
    const json = {
      id: `file_${this.#next()}`,
      object: 'file',
      created,
      expires_at: created + 270 * 86_400,
      filename: file.filename ?? 'upload',
      purpose,
      size: file.data.length,
      title: null,
      type,
      url: null,
    };
    account.files.set(json.id, { json, data: file.data });
    return jsonReply(200, json);
  }

  #listFiles(account: Account, request: FakeRequest): FakeReply {
    const purpose = request.query.get('purpose');
    const from = Number(request.query.get('created[gte]') ?? 0);
    const files = [...account.files.values()]
      .filter(({ json }) => (purpose === null || json.purpose === purpose) && Number(json.created) >= from)
      .reverse();
    const paged = page(
      newestFirstOf(files, (file) => String(file.json.id)),
      request,
      'file',
    );
    if ('status' in paged) return paged;
    const data = paged.items.map((file) => file.json);
    return jsonReply(200, { object: 'list', url: '/v1/files', has_more: paged.hasMore, data });
  }

  /** The few clauses of Stripe's search query language a dispute tool needs (docs.stripe.com/search). */
  #searchCharges(account: Account, request: FakeRequest): FakeReply {
    const query = request.query.get('query') ?? '';
    const tests: ((charge: Json) => boolean)[] = [];
    for (const clause of query.split(' AND ')) {
      const exact = /^([\w.]+):"([^"]*)"$/.exec(clause);
      const numeric = /^(created|amount)([<>]=?)(\d+)$/.exec(clause);
      if (exact) {
        const [, field, value] = exact as unknown as [string, string, string];
        const fields = [
          'payment_method_details.card.fingerprint',
          'status',
          'disputed',
          'refunded',
          'customer',
        ];
        if (!fields.includes(field)) {
          return refuse(`Field '${field}' is not supported in this query.`, { param: 'query' });
        }
        tests.push((charge) => String(valueAt(charge, field)) === value);
      } else if (numeric) {
        const [, field, operator, bound] = numeric as unknown as [string, string, string, string];
        tests.push((charge) => compare(Number(charge[field]), operator, Number(bound)));
      } else {
        return refuse(`The search query could not be parsed near '${clause}'.`, { param: 'query' });
      }
    }
    const limit = Number(request.query.get('limit') ?? 10);
    const found = [...account.charges.values()]
      .filter((charge) => tests.every((test) => test(charge)))
      .sort((a, b) => b.created - a.created);
    return jsonReply(200, {
      object: 'search_result',
      url: '/v1/charges/search',
      has_more: found.length > limit,
      next_page: null,
      data: found.slice(0, limit),
    });
  }
}

export async function startStripeFake(options: StripeFakeOptions = {}): Promise<StripeFake> {
  return new StripeFake(options).start();
}

/** A page of a newest-first list, as Stripe pages it (docs.stripe.com/api/pagination). */
/** A list newest first, read by position: arrays, or a view over another order. */
interface NewestFirst<T> {
  length: number;
  at(index: number): T;
  indexOf(id: string): number;
}

/** An array as a NewestFirst list, by each item's id. */
function newestFirstOf<T>(items: T[], idOf: (item: T) => string): NewestFirst<T> {
  return {
    length: items.length,
    at: (index) => items[index] as T,
    indexOf: (id) => items.findIndex((item) => idOf(item) === id),
  };
}

function page<T>(
  newestFirst: NewestFirst<T>,
  request: FakeRequest,
  what: string,
): { items: T[]; hasMore: boolean } | FakeReply {
  const limit = Number(request.query.get('limit') ?? 10);
  if (!Number.isInteger(limit) || limit < 1 || limit > 100) {
    return refuse('This value must be between 1 and 100.', { param: 'limit' });
  }
  const after = request.query.get('starting_after');
  const before = request.query.get('ending_before');
  if (after !== null && before !== null) {
    return refuse('You may only specify one of these parameters: ending_before, starting_after.');
  }
  const slice = (from: number, to: number) =>
    Array.from({ length: Math.max(0, Math.min(to, newestFirst.length) - from) }, (_, i) =>
      newestFirst.at(from + i),
    );
  const anchor = after ?? before;
  if (anchor === null) return { items: slice(0, limit), hasMore: newestFirst.length > limit };
  const at = newestFirst.indexOf(anchor);
  if (at < 0) return missing(what, anchor, after !== null ? 'starting_after' : 'ending_before');
  if (after !== null) {
    return { items: slice(at + 1, at + 1 + limit), hasMore: at + 1 + limit < newestFirst.length };
  }
  return { items: slice(Math.max(0, at - limit), at), hasMore: at - limit > 0 };
}

function apiKeyOf(request: FakeRequest): string | undefined {
  const header = request.headers.authorization;
  if (header?.startsWith('Bearer ')) return header.slice(7);
  return basicCredentials(request)?.user;
}

function headerOf(request: FakeRequest, name: string): string | undefined {
  const value = request.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

/**
 * What Stripe compares a repeated idempotency key on: the parameters, not the bytes (each encoding of a
 * multipart body has its own boundary).
 */
function fingerprintOf(request: FakeRequest): string {
  const hash = createHash('sha256').update(`${request.method} ${request.path}\n`);
  const type = request.headers['content-type'] ?? '';
  if (type.startsWith('multipart/form-data')) {
    for (const part of multipartParts(request))
      hash.update(`${part.name}=${part.filename ?? ''}:`).update(part.data);
  } else {
    const params = [...new URLSearchParams(request.body.toString('utf8'))].sort(([a], [b]) =>
      a < b ? -1 : 1,
    );
    hash.update(JSON.stringify(params));
  }
  return hash.digest('hex');
}

/** What a strict processor compares a repeated idempotency key on: the request's every byte. */
function bytesFingerprintOf(request: FakeRequest): string {
  return createHash('sha256')
    .update(`${request.method} ${request.path}\n${request.headers['content-type'] ?? ''}\n`)
    .update(request.body)
    .digest('hex');
}

function fileTypeOf(data: Buffer): string | undefined {
  if (data.subarray(0, 4).toString('latin1') === '%PDF') return 'pdf';
  if (data[0] === 0xff && data[1] === 0xd8) return 'jpg';
  if (data.subarray(1, 4).toString('latin1') === 'PNG') return 'png';
  return undefined;
}

function valueAt(object: Json, path: string): unknown {
  let value: unknown = object;
  for (const key of path.split('.')) value = (value as Json | null | undefined)?.[key];
  return value;
}

function compare(value: number, operator: string, bound: number): boolean {
  if (operator === '<') return value < bound;
  if (operator === '<=') return value <= bound;
  if (operator === '>') return value > bound;
  return value >= bound;
}
