import { z } from 'zod';
import { type AdapterContext, openHttp } from '../connection.js';
import type { HttpAnswer, HttpCall, ProcessorHttp } from '../http.js';
import { type ProcessorConnection, ProcessorError } from '../types.js';
import { stripeEarlyFraudWarning, stripeRefund } from './early-fraud-warnings.js';
import {
  type StripeDispute,
  stripeCharge,
  stripeDispute,
  stripeEvent,
  stripeList,
  stripeSearch,
} from './mapping.js';

/**
 * The Stripe calls the adapter makes, for one connected account: authentication, the pinned API version,
 * `Stripe-Account` for disputes of connected accounts, expansion of charges, idempotency keys, and the
 * shapes of the answers. Every call goes through the one HTTP layer (../http.ts).
 */

/**
 * Every call names the API version its answers are read in, whatever the account's default
 * (docs.stripe.com/api/versioning): the shapes in mapping.ts are this version's. Charge search needs
 * 2020-08-27 or later (docs.stripe.com/search#limitations). Visa CE 3.0's enhanced evidence and verdict
 * need 2024-10-28.acacia or later, the `visa_compliance` fee 2025-06-30.basil, the `prevented` status
 * 2025-08-27.basil (docs/api.md, "What is sent for CE 3.0 and Visa compliance").
 */
export const stripeApiVersion = '2025-08-27.basil';

const hosts = { live: 'https://api.stripe.com', test: 'https://api.stripe.com' };
/** Uploads go to their own host (docs.stripe.com/file-upload); an account's --base-url replaces both. */
const filesHost = 'https://files.stripe.com';

/**
 * Below Stripe's published limits of 100 calls a second in live mode and 25 in a sandbox
 * (docs.stripe.com/rate-limits), leaving room for the merchant's own integration on the same account.
 */
const perSecond = { live: 80, test: 20 };

const disputeList = stripeList(stripeDispute);
const eventList = stripeList(stripeEvent);
const chargeSearch = stripeSearch(stripeCharge);
const warningList = stripeList(stripeEarlyFraudWarning);
const uploadedFile = z.object({ id: z.string().min(1), object: z.literal('file') });
const fileList = stripeList(
  z.object({ id: z.string().min(1), filename: z.string().nullish(), size: z.number().int() }),
);

/** Stripe keeps idempotency keys 24 hours (docs.stripe.com/api/idempotent_requests); an hour's slack. */
const keyLifetimeSeconds = 25 * 3600;
/** How many pages of recent files a search for an upload reads at most. */
const fileSearchPages = 10;

/**
 * Stripe refused a keyed request because the key was first used with another request (400
 * `idempotency_error`): the first request's outcome stands. The caller reads what it was rather than
 * take the refusal as the answer (docs/operations.md, "Faults").
 */
export class IdempotencyConflict extends ProcessorError {
  override readonly name = 'IdempotencyConflict';
}

export interface EventQuery {
  limit: number;
  /** Events newer than this one (the list is newest first: the page just above it). */
  endingBefore?: string;
  /** Events older than this one. */
  startingAfter?: string;
  /** Events created at or after this unix time. */
  createdFrom?: number;
}

export class StripeClient {
  readonly #http: ProcessorHttp;
  readonly #filesUrl: string;
  /** Read-only accounts gave dispute-level access only: their disputes come without the charge. */
  readonly #expandCharges: boolean;

  constructor(context: AdapterContext, connection: ProcessorConnection, secretKey: string) {
    const livemode = connection.account.livemode;
    this.#http = openHttp(context, connection, {
      processor: 'stripe',
      hosts,
      perSecond: livemode ? perSecond.live : perSecond.test,
      headers: { authorization: `Bearer ${secretKey}`, 'stripe-version': stripeApiVersion },
    });
    this.#filesUrl = `${(connection.baseUrl ?? filesHost).replace(/\/+$/, '')}/v1/files`;
    this.#expandCharges = !connection.readOnly;
  }

  /**
   * The dispute now, with its charge expanded when asked and the account allows; null when Stripe knows
   * no such dispute. `retry: false` leaves a lost answer to the caller's own retry.
   */
  async retrieveDispute(
    id: string,
    account: string | null,
    options: { withCharge: boolean; retry?: boolean },
  ): Promise<StripeDispute | null> {
    const answer = await this.#http.send({
      method: 'GET',
      path: `v1/disputes/${encodeURIComponent(id)}`,
      searchParams: options.withCharge && this.#expandCharges ? { 'expand[]': 'charge' } : undefined,
      headers: onBehalfOf(account),
      idempotent: options.retry ?? true,
      answers: [404],
    });
    if (answer.status === 404) return null;
    return this.#http.read(answer, stripeDispute, JSON.parse);
  }

  /** One page of the account's disputes, newest first (docs.stripe.com/api/disputes/list). */
  listDisputes(query: { limit: number; startingAfter: string | null }) {
    const params = new URLSearchParams({ limit: String(query.limit) });
    if (query.startingAfter) params.set('starting_after', query.startingAfter);
    if (this.#expandCharges) params.append('expand[]', 'data.charge');
    return this.#http.json(
      { method: 'GET', path: 'v1/disputes', searchParams: params, idempotent: true },
      disputeList,
    );
  }

  /** One page of the account's events of these types, newest first (docs.stripe.com/api/events/list). */
  listEvents(query: EventQuery, types: readonly string[]) {
    const params = new URLSearchParams({ limit: String(query.limit) });
    for (const type of types) params.append('types[]', type);
    if (query.endingBefore) params.set('ending_before', query.endingBefore);
    if (query.startingAfter) params.set('starting_after', query.startingAfter);
    if (query.createdFrom !== undefined) params.set('created[gte]', String(query.createdFrom));
    return this.#http.json(
      { method: 'GET', path: 'v1/events', searchParams: params, idempotent: true },
      eventList,
    );
  }

  /**
   * One page of the account's early fraud warnings created since `createdFrom`, newest first, their
   * charges expanded where the account allows (docs.stripe.com/api/early_fraud_warnings/list).
   */
  listEarlyFraudWarnings(query: { limit: number; startingAfter: string | null; createdFrom: number }) {
    const params = new URLSearchParams({ limit: String(query.limit) });
    params.set('created[gte]', String(query.createdFrom));
    if (query.startingAfter) params.set('starting_after', query.startingAfter);
    if (this.#expandCharges) params.append('expand[]', 'data.charge');
    return this.#http.json(
      { method: 'GET', path: 'v1/radar/early_fraud_warnings', searchParams: params, idempotent: true },
      warningList,
    );
  }

  /** The warning now, its charge expanded where the account allows; null when Stripe knows none. */
  async retrieveEarlyFraudWarning(id: string) {
    const answer = await this.#http.send({
      method: 'GET',
      path: `v1/radar/early_fraud_warnings/${encodeURIComponent(id)}`,
      searchParams: this.#expandCharges ? { 'expand[]': 'charge' } : undefined,
      idempotent: true,
      answers: [404],
    });
    if (answer.status === 404) return null;
    return this.#http.read(answer, stripeEarlyFraudWarning, JSON.parse);
  }

  /**
   * Refunds what remains of a charge, as fraudulent (docs.stripe.com/api/refunds/create), under the
   * caller's key: a repeat within Stripe's 24 hours gets the first refund back, so a lost answer is sent
   * again at once. Stripe's refusal (`charge_already_refunded`, `charge_disputed`, ...) is a permanent
   * error naming Stripe's code and message, read from its whole answer.
   */
  async createRefund(charge: string, idempotencyKey: string) {
    const answer = await this.#http.send({
      method: 'POST',
      path: 'v1/refunds',
      form: { charge, reason: 'fraudulent' },
      headers: { 'idempotency-key': idempotencyKey },
      idempotent: true,
      answers: [400, 402, 404, 409],
    });
    if (answer.status < 300) return this.#http.read(answer, stripeRefund, JSON.parse);
    if (answer.status === 409) throw this.#stillRunning(answer);
    const said = stripeErrorOf(answer.body);
    const Refusal = said?.type === 'idempotency_error' ? IdempotencyConflict : ProcessorError;
    const words = [said?.code, said?.message?.slice(0, 200)].filter(Boolean).join(': ');
    throw new Refusal(
      'stripe',
      `Stripe refused the refund${words ? `: ${words}` : ''}`.replace(/\.?$/, '.'),
      {
        retryable: false,
        status: answer.status,
        excerpt: this.#http.excerpt(answer.body),
        ...(said?.code || said?.type ? { code: said.code ?? said.type } : {}),
      },
    );
  }

  /**
   * Uploads a dispute evidence file, the response document or an evidence file of a slot
   * (docs.stripe.com/file-upload), the same bytes under the same key on every attempt (multipart.ts).
   */
  async uploadEvidenceFile(file: {
    bytes: Buffer;
    contentType: string;
    filename: string;
    idempotencyKey: string;
    account: string | null;
  }): Promise<string> {
    const uploaded = await this.#keyed(
      {
        method: 'POST',
        path: this.#filesUrl,
        multipart: [
          { name: 'purpose', value: 'dispute_evidence' },
          { name: 'file', value: file.bytes, filename: file.filename, contentType: file.contentType },
        ],
        headers: onBehalfOf(file.account),
      },
      file.idempotencyKey,
      uploadedFile,
    );
    return uploaded.id;
  }

  /**
   * The evidence file an earlier request under a conflicting key uploaded: the file of this name and size
   * among the account's dispute evidence files of the keys' lifetime, newest first; null when none is.
   */
  async findEvidenceFile(file: { filename: string; size: number; account: string | null }) {
    const since = Math.floor(Date.now() / 1000) - keyLifetimeSeconds;
    let startingAfter: string | undefined;
    for (let pages = 0; pages < fileSearchPages; pages++) {
      const page = await this.#http.json(
        {
          method: 'GET',
          path: this.#filesUrl,
          searchParams: {
            purpose: 'dispute_evidence',
            'created[gte]': since,
            limit: 100,
            starting_after: startingAfter,
          },
          headers: onBehalfOf(file.account),
          idempotent: true,
        },
        fileList,
      );
      const found = page.data.find((each) => each.filename === file.filename && each.size === file.size);
      if (found) return found.id;
      if (!page.has_more || page.data.length === 0) return null;
      startingAfter = page.data.at(-1)?.id;
    }
    return null;
  }

  /** Updates a dispute: evidence, metadata, submit (docs.stripe.com/api/disputes/update). */
  updateDispute(id: string, form: Record<string, string>, idempotencyKey: string, account: string | null) {
    return this.#keyed(
      {
        method: 'POST',
        path: `v1/disputes/${encodeURIComponent(id)}`,
        form,
        headers: onBehalfOf(account),
      },
      idempotencyKey,
      stripeDispute,
    );
  }

  /** Concedes a dispute (docs.stripe.com/api/disputes/close); a repeat under the same key is replayed. */
  closeDispute(id: string, idempotencyKey: string, account: string | null) {
    return this.#keyed(
      {
        method: 'POST',
        path: `v1/disputes/${encodeURIComponent(id)}/close`,
        headers: onBehalfOf(account),
        idempotent: true,
      },
      idempotencyKey,
      stripeDispute,
    );
  }

  retrieveCharge(id: string, account: string | null) {
    return this.#http.json(
      {
        method: 'GET',
        path: `v1/charges/${encodeURIComponent(id)}`,
        headers: onBehalfOf(account),
        idempotent: true,
      },
      stripeCharge,
    );
  }

  /** Charges matching a search query (docs.stripe.com/api/charges/search, docs.stripe.com/search). */
  searchCharges(query: string, limit: number, account: string | null) {
    return this.#http.json(
      {
        method: 'GET',
        path: 'v1/charges/search',
        searchParams: { query, limit },
        headers: onBehalfOf(account),
        idempotent: true,
      },
      chargeSearch,
    );
  }

  /**
   * A write under Stripe's idempotency key (docs.stripe.com/api/idempotent_requests): a repeat gets the
   * first answer again. A 409 means a request with the same key is still running at Stripe: worth
   * sending again shortly, unlike other refusals. A 400 `idempotency_error` is an IdempotencyConflict.
   */
  async #keyed<Schema extends z.ZodType>(
    call: HttpCall,
    idempotencyKey: string,
    schema: Schema,
  ): Promise<z.infer<Schema>> {
    let answer: HttpAnswer;
    try {
      answer = await this.#http.send({
        ...call,
        headers: { ...call.headers, 'idempotency-key': idempotencyKey },
        answers: [409],
      });
    } catch (error) {
      if (!(error instanceof ProcessorError) || error.code !== 'idempotency_error') throw error;
      throw new IdempotencyConflict('stripe', error.message, {
        retryable: false,
        status: 400,
        ...(error.excerpt === undefined ? {} : { excerpt: error.excerpt }),
        code: error.code,
      });
    }
    if (answer.status === 409) throw this.#stillRunning(answer);
    return this.#http.read(answer, schema, JSON.parse);
  }

  #stillRunning(answer: HttpAnswer): ProcessorError {
    return new ProcessorError('stripe', 'Stripe is still handling a request with the same idempotency key.', {
      retryable: true,
      status: 409,
      excerpt: this.#http.excerpt(answer.body),
    });
  }
}

/**
 * Calls about a connected account's own objects (Connect direct charges) name the account
 * (docs.stripe.com/connect/authentication).
 */
const onBehalfOf = (account: string | null): Record<string, string> =>
  account ? { 'stripe-account': account } : {};

/** Stripe's error (`{ error: { type, code, message } }`, docs.stripe.com/api/errors), where the answer is one. */
function stripeErrorOf(body: string): { type?: string; code?: string; message?: string } | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    return undefined;
  }
  const read = z
    .object({
      error: z.object({
        type: z.string().optional(),
        code: z.string().optional(),
        message: z.string().optional(),
      }),
    })
    .safeParse(parsed);
  return read.success ? read.data.error : undefined;
}
