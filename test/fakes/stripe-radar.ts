import type { FakeReply, FakeRequest, FakeServer } from './harness.js';
import { jsonReply } from './harness.js';

/**
 * The fake Stripe's early fraud warnings and refunds (stripe.ts routes `/v1/radar/*` and `/v1/refunds`
 * here), modelled on docs.stripe.com/api/early_fraud_warnings and docs.stripe.com/api/refunds:
 * - warnings listed newest first (`limit`, `starting_after` / `ending_before`, `charge`, `created[gte]`),
 *   retrieved by id, `expand[]=charge` / `data.charge` giving the charge;
 * - every change raises a `radar.early_fraud_warning.created` / `.updated` event in the account's events;
 * - `actionable` is true while the charge is neither disputed nor fully refunded;
 * - `POST /v1/refunds` (`charge`, `reason`, optional `amount`) refunds what remains: a fully refunded
 *   charge is refused (`charge_already_refunded`), a disputed one too (`charge_disputed`), an unknown one
 *   (`resource_missing`). The Idempotency-Key is honoured by stripe.ts as Stripe does: the same key gives
 *   the same refund back. `loseRefundReplies` makes the fake refund, then lose the answer.
 */

type Json = Record<string, unknown>;
type Charge = Json & { id: string; created: number; amount: number; currency: string };

/** What the radar needs of the fake Stripe (stripe.ts). */
export interface RadarHooks {
  now(): number;
  /** A fresh unique suffix for an id. */
  next(): string;
  /** Makes a succeeded charge on the account. */
  newCharge(account: string, values: { amount: number; currency: string }): Json & { id: string };
  findCharge(account: string, id: string): (Json & { id: string }) | undefined;
  /** Records an event about `object` in the account's events. */
  record(account: string, type: string, object: Json): void;
  /** The account's events, oldest first. */
  events(account: string): readonly (Json & { id: string; type: string })[];
  sign(body: Buffer, timestamp?: number): { headers: Record<string, string>; body: Buffer };
  server(): FakeServer;
  /** Stripe's list page (stripe.ts), or its refusal. */
  page<T>(
    items: T[],
    idOf: (item: T) => string,
    request: FakeRequest,
    what: string,
  ): { items: T[]; hasMore: boolean } | FakeReply;
  refuse(status: number, error: { type: string; message: string; code?: string; param?: string }): FakeReply;
}

export interface NewWarning {
  /** A connected account's id. */
  account?: string;
  /** An existing charge of the account; default a new one of `amount` and `currency`. */
  charge?: string;
  amount?: number;
  currency?: string;
  fraudType?: string;
  /** Unix time; default now. */
  created?: number;
}

interface Warning {
  account: string;
  json: Json & { id: string; charge: string; actionable: boolean; created: number };
}

export const fraudTypes = [
  'card_never_received',
  'fraudulent_card_application',
  'made_with_counterfeit_card',
  'made_with_lost_card',
  'made_with_stolen_card',
  'misc',
  'unauthorized_use_of_card',
] as const;

export class StripeRadar {
  readonly #hooks: RadarHooks;
  /** Every warning in creation order. */
  readonly #warnings: Warning[] = [];
  /** Refunds by id, with their account. */
  readonly #refunds = new Map<string, { account: string; json: Json & { charge: string; amount: number } }>();

  constructor(hooks: RadarHooks) {
    this.#hooks = hooks;
  }

  /** Adds warnings, each on its own new charge (or on `charge`), and their `created` events. */
  addWarnings(count: number, options: NewWarning = {}): string[] {
    const account = options.account ?? '';
    const ids: string[] = [];
    for (let index = 0; index < count; index++) {
      const charge =
        (options.charge && this.#charge(account, options.charge)) ||
        (this.#hooks.newCharge(account, {
          amount: options.amount ?? 1000 + ((this.#warnings.length * 137) % 9000),
          currency: options.currency ?? 'usd',
        }) as Charge);
      const warning: Warning = {
        account,
        json: {
          id: `issfr_${this.#hooks.next()}`,
          object: 'radar.early_fraud_warning',
          actionable: false,
          charge: charge.id,
          created: options.created ?? this.#hooks.now(),
          fraud_type: options.fraudType ?? fraudTypes[this.#warnings.length % fraudTypes.length],
          livemode: false,
          payment_intent: null,
        },
      };
      warning.json.actionable = this.#actionable(warning);
      this.#warnings.push(warning);
      this.#hooks.record(account, 'radar.early_fraud_warning.created', structuredClone(warning.json));
      ids.push(warning.json.id);
    }
    return ids;
  }

  /** The warning as Stripe serves it now. */
  warning(id: string): Json & { id: string; charge: string; actionable: boolean } {
    return structuredClone(this.#find(id).json);
  }

  /** The charge of a warning. */
  chargeOf(id: string): Charge {
    const warning = this.#find(id);
    return this.#charge(warning.account, warning.json.charge) as Charge;
  }

  /** A dispute arrives for the warning's charge: the warning stops being actionable. */
  disputeCharge(id: string): void {
    const warning = this.#find(id);
    this.chargeOf(id).disputed = true;
    this.#refresh(warning.account, warning.json.charge);
  }

  /** The refunds made of a charge, oldest first. */
  refundsOf(charge: string): Json[] {
    return [...this.#refunds.values()].filter((refund) => refund.json.charge === charge).map((r) => r.json);
  }

  /** How many refunds the fake has made, a replayed one not counted. */
  get refundCount(): number {
    return this.#refunds.size;
  }

  /** The next `times` refunds are made, and their answers lost on the way back (the connection closes). */
  loseRefundReplies(times = 1): void {
    this.#hooks.server().inject({
      kind: 'drop-after',
      times,
      match: (request) => request.method === 'POST' && request.path === '/v1/refunds',
    });
  }

  /** The webhook Stripe would POST about the warning's latest change, signed. */
  signedEvent(id: string, timestamp?: number): { headers: Record<string, string>; body: Buffer } {
    const warning = this.#find(id);
    const event = this.#hooks
      .events(warning.account)
      .findLast((candidate) => (candidate.data as { object: Json }).object.id === id);
    return this.#hooks.sign(Buffer.from(JSON.stringify(event)), timestamp);
  }

  /** The reply to a radar or refund request; undefined for any other path. */
  route(account: string, request: FakeRequest): FakeReply | undefined {
    const { method, path } = request;
    if (method === 'GET' && path === '/v1/radar/early_fraud_warnings') return this.#list(account, request);
    const one = /^\/v1\/radar\/early_fraud_warnings\/([^/]+)$/.exec(path)?.[1];
    if (method === 'GET' && one) {
      const warning = this.#warnings.find((each) => each.account === account && each.json.id === one);
      if (!warning) return this.#missing('early fraud warning', one);
      return jsonReply(200, this.#json(warning, request.query.getAll('expand[]').includes('charge')));
    }
    if (method === 'POST' && path === '/v1/refunds') return this.#refund(account, request);
    return undefined;
  }

  #list(account: string, request: FakeRequest): FakeReply {
    const charge = request.query.get('charge');
    const from = request.query.get('created[gte]');
    const newestFirst = this.#warnings
      .filter(
        (warning) =>
          warning.account === account &&
          (charge === null || warning.json.charge === charge) &&
          (from === null || warning.json.created >= Number(from)),
      )
      .reverse();
    const paged = this.#hooks.page(newestFirst, (warning) => warning.json.id, request, 'early fraud warning');
    if ('status' in paged) return paged;
    const expand = request.query.getAll('expand[]').includes('data.charge');
    return jsonReply(200, {
      object: 'list',
      url: '/v1/radar/early_fraud_warnings',
      has_more: paged.hasMore,
      data: paged.items.map((warning) => this.#json(warning, expand)),
    });
  }

  #refund(account: string, request: FakeRequest): FakeReply {
    const params = new URLSearchParams(request.body.toString('utf8'));
    for (const name of params.keys()) {
      if (
        !['charge', 'reason', 'amount', 'payment_intent'].includes(name) &&
        !/^metadata\[\w+\]$/.test(name)
      ) {
        return this.#invalid(`Received unknown parameter: ${name}`, { param: name });
      }
    }
    const reason = params.get('reason');
    if (reason !== null && !['duplicate', 'fraudulent', 'requested_by_customer'].includes(reason)) {
      return this.#invalid(`Invalid reason: must be one of duplicate, fraudulent, or requested_by_customer`, {
        param: 'reason',
      });
    }
    const id = params.get('charge');
    if (!id)
      return this.#invalid(
        'One of the following params should be provided for this request: payment_intent or charge.',
      );
    const charge = this.#charge(account, id);
    if (!charge) return this.#missing('charge', id, 'charge');
    const refunded = Number(charge.amount_refunded ?? 0);
    if (refunded >= charge.amount) {
      return this.#invalid(`Charge ${id} has already been refunded.`, { code: 'charge_already_refunded' });
    }
    if (charge.disputed === true) {
      return this.#invalid(`Charge ${id} has been charged back; refunds are not possible.`, {
        code: 'charge_disputed',
      });
    }
    const amount = params.has('amount') ? Number(params.get('amount')) : charge.amount - refunded;
    if (!Number.isInteger(amount) || amount < 1 || amount > charge.amount - refunded) {
      return this.#invalid(
        `Refund amount (${params.get('amount')}) is greater than unrefunded amount on charge.`,
        {
          param: 'amount',
        },
      );
    }
    const json = {
      id: `re_${this.#hooks.next()}`,
      object: 'refund',
      amount,
      charge: id,
      created: this.#hooks.now(),
      currency: charge.currency,
      reason,
      status: 'succeeded',
      failure_reason: null,
    };
    this.#refunds.set(json.id, { account, json });
    charge.amount_refunded = refunded + amount;
    charge.refunded = refunded + amount >= charge.amount;
    this.#refresh(account, id);
    return jsonReply(200, json);
  }

  /** The warnings of a charge whose actionable changed record an `updated` event. */
  #refresh(account: string, charge: string): void {
    for (const warning of this.#warnings) {
      if (warning.account !== account || warning.json.charge !== charge) continue;
      const actionable = this.#actionable(warning);
      if (actionable === warning.json.actionable) continue;
      warning.json.actionable = actionable;
      this.#hooks.record(account, 'radar.early_fraud_warning.updated', structuredClone(warning.json));
    }
  }

  /** "An EFW is actionable if it has not received a dispute and has not been fully refunded." */
  #actionable(warning: Warning): boolean {
    const charge = this.#charge(warning.account, warning.json.charge);
    return !!charge && charge.disputed !== true && Number(charge.amount_refunded ?? 0) < charge.amount;
  }

  /** A charge as the fake Stripe holds it: `amount` and `currency` always set. */
  #charge(account: string, id: string): Charge | undefined {
    return this.#hooks.findCharge(account, id) as Charge | undefined;
  }

  #json(warning: Warning, expandCharge: boolean): Json {
    if (!expandCharge) return warning.json;
    return { ...warning.json, charge: this.#charge(warning.account, warning.json.charge) };
  }

  #find(id: string): Warning {
    const warning = this.#warnings.find((each) => each.json.id === id);
    if (!warning) throw new Error(`the fake holds no early fraud warning ${id}`);
    return warning;
  }

  #invalid(message: string, extra: { code?: string; param?: string } = {}): FakeReply {
    return this.#hooks.refuse(400, { type: 'invalid_request_error', message, ...extra });
  }

  #missing(what: string, id: string, param?: string): FakeReply {
    return this.#hooks.refuse(param ? 400 : 404, {
      type: 'invalid_request_error',
      code: 'resource_missing',
      message: `No such ${what}: '${id}'`,
      ...(param ? { param } : {}),
    });
  }
}
