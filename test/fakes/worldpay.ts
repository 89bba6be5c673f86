import { createHmac } from 'node:crypto';
import type { ContractFake } from '../helpers/adapter-contract.js';
import type { NetworkFacts } from '../helpers/contract-calls.js';
import { FakeServer, jsonReply } from './harness.js';

/**
 * A fake Worldpay for the parts Worldpay publishes: it holds disputed payments, and tells them the way
 * Access Worldpay's Events webhook does (one event per POST, signed in an Event-Signature header of
 * `{keyId}/SHA256/{hex HMAC}` entries, docs.worldpay.com/access/products/events/signature) and the way
 * its portal's dispute list exports them. Worldpay has no dispute API: the server answers every call 404
 * in Access Worldpay's error shape, and nothing is ever submitted or accepted through it.
 *
 * The webhook's event types are Worldpay's dispute statuses in camelCase: `informationRequested` (the
 * published chargeback event) and `chargedBack` (a published payment event) open disputes;
 * `informationSupplied` and `chargebackReversed` follow the Merchant Interface's statuses. An expired
 * dispute has no event: it is only in the export.
 */

export const worldpayFakeCredentials = {
  webhook_key_id: '1',
  webhook_secret: 'wp-events-shared-secret-4f9a2c',
};

type Status =
  | 'INFORMATION_REQUESTED'
  | 'INFORMATION_SUPPLIED'
  | 'CHARGED_BACK'
  | 'CHARGEBACK_REVERSED'
  | 'EXPIRED';

const events: Record<Exclude<Status, 'EXPIRED'>, { classification: string; type: string }> = {
  INFORMATION_REQUESTED: { classification: 'chargeback', type: 'informationRequested' },
  INFORMATION_SUPPLIED: { classification: 'chargeback', type: 'informationSupplied' },
  CHARGED_BACK: { classification: 'payment', type: 'chargedBack' },
  CHARGEBACK_REVERSED: { classification: 'payment', type: 'chargebackReversed' },
};

export interface FakeWorldpayDispute {
  reference: string;
  status: Status;
  /** The Dashboard's cycle: Request for information, First cycle, Second cycle. */
  cycle: string;
  amount: number;
  currency: string;
  reasonCode: string;
  reasonCategory: string;
  /** The card network as the Dispute Resolution Centre's Network column names it. */
  network: string;
  transactionDate: Date;
  dueDate: Date;
  /** When the payment reached its status. */
  changedAt: Date;
}

const currencies = ['GBP', 'EUR', 'USD', 'JPY'];
const minorDigits: Record<string, number> = { GBP: 2, EUR: 2, USD: 2, JPY: 0, KWD: 3 };
const reasons: [code: string, category: string, network: string][] = [
  ['10.4', 'Fraud', 'Visa'],
  ['4855', 'Consumer Disputes', 'Mastercard'],
  ['12.6.1', 'Processing Errors', 'Visa'],
  ['C08', 'Consumer Disputes', 'American Express (AMEX)'],
];

export class WorldpayFake implements ContractFake {
  readonly server = new FakeServer(
    () => jsonReply(404, { errorName: 'endpointNotFound', message: 'Worldpay publishes no dispute API' }),
    (status, message) =>
      jsonReply(status, { errorName: status === 429 ? 'tooManyRequests' : 'internalErrorOccurred', message }),
  );
  readonly credentials: typeof worldpayFakeCredentials;
  readonly disputes = new Map<string, FakeWorldpayDispute>();
  /** Disputes are raised from two days ago, a minute apart. */
  readonly #epoch = Math.floor(Date.now() / 1000) * 1000 - 2 * 86_400_000;
  #next = 0;

  constructor(credentials = worldpayFakeCredentials) {
    this.credentials = credentials;
  }

  addDisputes(count: number): string[] {
    return Array.from({ length: count }, () => this.addDispute().reference);
  }

  addDispute(overrides: Partial<FakeWorldpayDispute> = {}): FakeWorldpayDispute {
    this.#next += 1;
    const n = this.#next;
    const raised = new Date(this.#epoch + n * 60_000);
    const [reasonCode, reasonCategory, network] = reasons[n % reasons.length] as [string, string, string];
    const dispute: FakeWorldpayDispute = {
      reference: `Memory265-${String(n).padStart(6, '0')}`,
      status: 'CHARGED_BACK',
      cycle: 'First cycle',
      amount: 500 + n * 3,
      currency: currencies[n % currencies.length] as string,
      reasonCode,
      reasonCategory,
      network,
      transactionDate: new Date(Date.UTC(2026, 9, 1 + (n % 20))),
      dueDate: new Date(Date.UTC(2026, 11, 1 + (n % 20))),
      changedAt: raised,
      ...overrides,
    };
    this.disputes.set(dispute.reference, dispute);
    return dispute;
  }

  /** Worldpay moves the payment to another dispute status. */
  setStatus(id: string, status: Status, at = new Date()): void {
    const dispute = this.#dispute(id);
    dispute.status = status;
    dispute.changedAt = at;
  }

  move(id: string, to: 'under_review' | 'won' | 'lost'): void {
    const status = {
      under_review: 'INFORMATION_SUPPLIED',
      won: 'CHARGEBACK_REVERSED',
      lost: 'EXPIRED',
    } as const;
    this.setStatus(id, status[to]);
  }

  submissionCount(): number {
    return 0;
  }

  submitted(): undefined {
    return undefined;
  }

  accepted(): boolean {
    return false;
  }

  /** What the events tell (the contract's means of ingestion): the status alone, no network nor code. */
  reported(id: string): NetworkFacts {
    return { network: null, networkReasonCode: null, processorStatus: this.#dispute(id).status };
  }

  /** One webhook per dispute, telling its status now. */
  events(ids: string[]) {
    return ids.map((id) => this.event(id));
  }

  event(id: string) {
    const dispute = this.#dispute(id);
    if (dispute.status === 'EXPIRED') {
      throw new Error(`Access Worldpay sends no event for expired dispute ${id}; it is only in the export`);
    }
    const event = events[dispute.status];
    return this.signed({
      eventId: `evt-${id}-${dispute.changedAt.getTime()}`,
      // Worldpay's timestamps carry no zone: UTC.
      eventTimestamp: dispute.changedAt.toISOString().slice(0, 23),
      eventDetails: {
        classification: event.classification,
        transactionReference: dispute.reference,
        type: event.type,
        date: dispute.transactionDate.toISOString().slice(0, 10),
        amount: { value: dispute.amount, currencyCode: dispute.currency },
        _links: { payment: { href: '' } },
      },
    });
  }

  /** A POST of this body, signed under each of `keys` (keyId, secret), in that order. */
  signed(body: unknown, keys: [keyId: string, secret: string][] = [this.#key]) {
    const bytes = Buffer.from(typeof body === 'string' ? body : JSON.stringify(body));
    const signature = keys
      .map(([keyId, secret]) => `${keyId}/SHA256/${createHmac('sha256', secret).update(bytes).digest('hex')}`)
      .join(',');
    return {
      headers: {
        'content-type': 'application/vnd.worldpay.events-v1.hal+json',
        'event-signature': signature,
      },
      body: bytes,
    };
  }

  /** The portal's dispute export of these disputes. */
  report(ids: string[]): string {
    const header = [
      'Order Code',
      'Reference',
      'MID',
      'Status',
      'Cycle',
      'Reason Category',
      'Reason Code',
      'Network',
      'Chargeback Amount',
      'Currency',
      'Transaction Amount',
      'Transaction Date',
      'Due Date',
      'Status Date',
      'Card Number',
    ];
    const rows = ids.map((id) => {
      const dispute = this.#dispute(id);
      const amount = decimalOf(dispute.amount, dispute.currency);
      return [
        dispute.reference,
        `CB${id.replace(/\D/g, '')}`,
        '4001234',
        dispute.status === 'EXPIRED' ? 'Expired' : dispute.status,
        dispute.cycle,
        dispute.reasonCategory,
        dispute.reasonCode,
        dispute.network,
        amount,
        dispute.currency,
        amount,
        ukDate(dispute.transactionDate),
        ukDate(dispute.dueDate),
        dispute.changedAt.toISOString().slice(0, 10),
        '**** 4242',
      ];
    });
    return [header, ...rows].map((row) => row.join(',')).join('\n');
  }

  close(): Promise<void> {
    return this.server.close();
  }

  get #key(): [string, string] {
    return [this.credentials.webhook_key_id, this.credentials.webhook_secret];
  }

  #dispute(id: string): FakeWorldpayDispute {
    const dispute = this.disputes.get(id);
    if (!dispute) throw new Error(`the fake holds no dispute ${id}`);
    return dispute;
  }
}

function decimalOf(minor: number, currency: string): string {
  const digits = minorDigits[currency] ?? 2;
  if (digits === 0) return String(minor);
  const text = String(minor).padStart(digits + 1, '0');
  return `${text.slice(0, -digits)}.${text.slice(-digits)}`;
}

/** `20/07/2026`, as the UK Dashboard writes dates. */
function ukDate(at: Date): string {
  const [year, month, day] = at.toISOString().slice(0, 10).split('-');
  return `${day}/${month}/${year}`;
}

export async function startWorldpayFake(credentials = worldpayFakeCredentials): Promise<WorldpayFake> {
  const fake = new WorldpayFake(credentials);
  await fake.server.start();
  return fake;
}
