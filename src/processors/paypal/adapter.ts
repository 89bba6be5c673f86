import { z } from 'zod';
import {
  type AdapterContext,
  baseUrlOf,
  credentialProblem,
  openHttp,
  readCredentials,
} from '../connection.js';
import type { HttpAnswer } from '../http.js';
import { checkPushAge, pushMaxAgeMs } from '../push-age.js';
import { checkEvidenceLimits, sentAttached, sentDocument, slottedFiles } from '../slot-uploads.js';
import {
  type AcceptDisputeRequest,
  type Capabilities,
  type DisputePage,
  type EvidenceLimits,
  type GetDisputeRequest,
  type ListDisputesRequest,
  type NormalizedDispute,
  type ProcessorAdapter,
  type ProcessorConnection,
  ProcessorError,
  PushRejectedError,
  type PushRequest,
  type PushResult,
  type SubmitEvidenceRequest,
  type SubmitEvidenceResult,
} from '../types.js';
import { PaypalClient, PaypalTokens } from './client.js';
import { carriesDocument, documentName, evidenceForm } from './evidence.js';
import { nextCursor, pageQuery, readCursor, restartSweep } from './listing.js';
import {
  linksSchema,
  type PaypalDispute,
  paypalDisputeSchema,
  paypalEvidenceLimits,
  toNormalizedDispute,
} from './mapping.js';

/**
 * PayPal's Disputes API v1 (https://developer.paypal.com/api/customer-disputes/v1/; docs/architecture.md, "PayPal").
 *
 * Credentials (the JSON document given to `account connect`):
 * - `client_id`, `client_secret`: the REST app's credentials (Apps & Credentials in PayPal's developer
 *   dashboard), with the Disputes feature enabled for the app;
 * - `webhook_id` (optional): the id of the webhook PayPal shows for the URL this service gives the account
 *   (`/processor-hooks/paypal/<account uid>`); without it pushes cannot be verified and are refused, and
 *   the account is polled only.
 *
 * Every call is dispute-level (list, show, provide-evidence, accept-claim), so read-only accounts work the
 * same way: nothing here reads the merchant's transactions.
 */

const hosts = { live: 'https://api-m.paypal.com', test: 'https://api-m.sandbox.paypal.com' };
/** PayPal publishes no rate limits (its 429 is RATE_LIMIT_REACHED); this stays well below what it takes. */
const perSecond = 10;
/**
 * Push verifications have a budget of their own: a forged push that passes the checks made without
 * PayPal (checkTransmission) costs a verification, never a call the account's polls and submissions need.
 */
const verification = { budget: 'push', perSecond: 2 } as const;
/** Full disputes fetched at once for a page of the list (the account's rate limit still paces them). */
const fetchConcurrency = 8;

const credentialsSchema = z.strictObject({
  client_id: z.string().min(1),
  client_secret: z.string().min(1),
  webhook_id: z.string().min(1).optional(),
});

/** `GET /v1/customer/disputes`: summaries, newest created first, and the next page as a HATEOAS link. */
const listSchema = z.object({
  items: z
    .array(z.object({ dispute_id: z.string().min(1) }))
    .optional()
    .default([]),
  links: linksSchema,
});

const verificationSchema = z.object({ verification_status: z.string() });

/** The webhook events about disputes (developer.paypal.com/api/rest/webhooks/event-names/#disputes). */
const disputeEvents = new Set([
  'CUSTOMER.DISPUTE.CREATED',
  'CUSTOMER.DISPUTE.UPDATED',
  'CUSTOMER.DISPUTE.RESOLVED',
]);
/** The transmission headers PayPal signs a webhook with, as verify-webhook-signature names them. */
const transmissionHeaders = {
  auth_algo: 'paypal-auth-algo',
  cert_url: 'paypal-cert-url',
  transmission_id: 'paypal-transmission-id',
  transmission_sig: 'paypal-transmission-sig',
  transmission_time: 'paypal-transmission-time',
} as const;

const acceptNote = 'The merchant accepts this claim.';

export class PaypalAdapter implements ProcessorAdapter {
  readonly name = 'paypal';
  readonly evidenceLimits: EvidenceLimits = paypalEvidenceLimits;
  readonly capabilities: Capabilities = {
    list: true,
    get: true,
    submit: 'api',
    fileUpload: true,
    accept: true,
    readOnly: true,
    // The Disputes API shows the disputed transaction only; past payments with the same card are not in it.
    pastPayments: false,
    push: true,
    kinds: ['chargeback', 'pre_arbitration', 'retrieval'],
    alerts: false,
    refund: false,
  };
  readonly #context: AdapterContext;
  readonly #tokens = new PaypalTokens();

  constructor(context: AdapterContext = {}) {
    this.#context = context;
  }

  checkCredentials(credentials: string | null): string | null {
    return credentialProblem(credentialsSchema, credentials);
  }

  /**
   * One page of a sweep of the disputes updated since the cursor (listing.ts says why this is complete).
   * The list gives summaries without the transaction, buyer or outcome, so each listed dispute is fetched
   * in full: the mirror overwrites every processor-owned column with what a page says.
   */
  async listDisputes({ connection, cursor, limit }: ListDisputesRequest): Promise<DisputePage> {
    const client = this.#client(connection);
    let position = readCursor(cursor, Date.now());
    let answer: HttpAnswer;
    try {
      answer = await this.#listPage(client, pageQuery(position, limit));
    } catch (error) {
      // A page token PayPal no longer takes (a cursor committed long ago): the sweep starts over from its
      // lower bound, which repeats disputes but misses none.
      if (!(error instanceof ProcessorError && error.status === 400 && position.next)) throw error;
      position = restartSweep(position, Date.now());
      answer = await this.#listPage(client, pageQuery(position, limit));
    }
    const page = client.http.read(answer, listSchema, (body) => JSON.parse(body));
    const fetched = await mapConcurrently(page.items, fetchConcurrency, (item) =>
      this.#fetch(client, item.dispute_id),
    );
    const next = nextCursor(position, page.links, answer.headers.date);
    return {
      // A dispute listed but gone by the time it is fetched is no longer PayPal's to report.
      disputes: fetched
        .filter((dispute): dispute is PaypalDispute => dispute !== null)
        .map(toNormalizedDispute),
      nextCursor: next.cursor,
      hasMore: next.hasMore,
    };
  }

  async getDispute({ connection, id }: GetDisputeRequest): Promise<NormalizedDispute | null> {
    const dispute = await this.#fetch(this.#client(connection), id);
    return dispute && toNormalizedDispute(dispute);
  }

  /**
   * PayPal takes evidence in one call, while the dispute is WAITING_FOR_SELLER_RESPONSE and shows the
   * `provide-evidence` link, and refuses it afterwards. So the dispute is read first: when it already holds
   * this submission's document (an earlier attempt got through but its answer was lost) that is success;
   * when PayPal no longer takes evidence it is not asked. The call carries the idempotency key as
   * PayPal-Request-Id, which PayPal deduplicates POSTs on (developer.paypal.com/reference/guidelines/
   * idempotency). Neither call is repeated within this attempt: a lost answer goes back to the submission
   * job, whose next attempt starts again with the read. The evidence files travel in the same call, so a
   * retry cannot send one twice; PayPal's file limits are checked before anything is asked.
   */
  async submitEvidence(request: SubmitEvidenceRequest): Promise<SubmitEvidenceResult> {
    const slotted = slottedFiles(this.evidenceLimits, request.files);
    checkEvidenceLimits(this.name, this.evidenceLimits, [
      ...[...slotted.values()].flat().map(sentAttached),
      sentDocument(request.response.document),
    ]);
    const client = this.#client(request.connection);
    const { id } = request.dispute;
    const dispute = await this.#existing(client, id, { idempotent: false });
    if (carriesDocument(dispute, documentName(request))) return { reference: null };
    if (dispute.status !== 'WAITING_FOR_SELLER_RESPONSE' || !hasLink(dispute, 'provide-evidence')) {
      throw refusal(`PayPal takes no evidence for dispute ${id} now (status ${dispute.status}).`);
    }
    await client.send({
      method: 'POST',
      path: `${disputePath(id)}/provide-evidence`,
      headers: { 'paypal-request-id': request.idempotencyKey },
      multipart: evidenceForm(request, slotted),
    });
    return { reference: null };
  }

  /**
   * `accept-claim`: the dispute closes in the buyer's favour and PayPal refunds the buyer. A full refund is
   * asked for where `allowed_response_options` offers one; otherwise PayPal's default applies. Accepting
   * an already accepted dispute (a lost answer) succeeds without a second call.
   */
  async acceptDispute({
    connection,
    dispute: reference,
    idempotencyKey,
  }: AcceptDisputeRequest): Promise<void> {
    const client = this.#client(connection);
    const dispute = await this.#existing(client, reference.id, { idempotent: true });
    if (dispute.status === 'RESOLVED' && dispute.dispute_outcome?.outcome_code === 'ACCEPTED') return;
    if (!hasLink(dispute, 'accept-claim')) {
      throw refusal(
        `PayPal does not let dispute ${reference.id} be accepted now (status ${dispute.status}).`,
      );
    }
    const refund = dispute.allowed_response_options?.accept_claim?.accept_claim_types?.includes('REFUND');
    await client.send({
      method: 'POST',
      path: `${disputePath(reference.id)}/accept-claim`,
      headers: { 'paypal-request-id': idempotencyKey },
      json: { note: acceptNote, ...(refund && { accept_claim_type: 'REFUND' }) },
      idempotent: true,
    });
  }

  /**
   * PayPal signs webhooks with a certificate, not a shared secret; PayPal itself verifies a delivery:
   * `POST /v1/notifications/verify-webhook-signature` with the transmission headers, the webhook's id and
   * the event answers `verification_status` SUCCESS or FAILURE. A verified dispute event names the
   * dispute to fetch again; other events are acknowledged and ignored.
   */
  async parsePush({ connection, headers, body }: PushRequest): Promise<PushResult> {
    const credentials = readCredentials(this.name, credentialsSchema, connection);
    if (!credentials.webhook_id) {
      throw new PushRejectedError(
        'The account has no webhook_id in its credentials: PayPal pushes cannot be verified.',
      );
    }
    const transmission = readTransmission(headers);
    const event = readEvent(body);
    const verdict = await this.#client(connection, verification).json(
      {
        method: 'POST',
        path: 'v1/notifications/verify-webhook-signature',
        json: { ...transmission, webhook_id: credentials.webhook_id, webhook_event: event.raw },
        idempotent: true,
      },
      verificationSchema,
    );
    if (verdict.verification_status !== 'SUCCESS') {
      throw new PushRejectedError('PayPal did not verify the webhook signature.');
    }
    if (!disputeEvents.has(event.type)) return { refresh: [], disputes: [] };
    if (!event.disputeId) throw new PushRejectedError(`The ${event.type} event names no dispute.`);
    return { refresh: [event.disputeId], disputes: [] };
  }

  /** The account's client; with a `budget`, its calls count against a rate limit of their own. */
  #client(
    connection: ProcessorConnection,
    limit: { budget?: string; perSecond: number } = { perSecond },
  ): PaypalClient {
    const credentials = readCredentials(this.name, credentialsSchema, connection);
    const http = openHttp(this.#context, connection, {
      processor: this.name,
      hosts,
      ...limit,
      headers: { accept: 'application/json' },
    });
    return new PaypalClient(
      http,
      this.#tokens,
      connection.account.uid,
      credentials,
      baseUrlOf(connection, hosts),
    );
  }

  #listPage(client: PaypalClient, query: Record<string, string>): Promise<HttpAnswer> {
    return client.send({
      method: 'GET',
      path: 'v1/customer/disputes',
      searchParams: query,
      idempotent: true,
    });
  }

  /** The dispute in full; null when PayPal knows no such dispute. */
  async #fetch(client: PaypalClient, id: string, { idempotent = true } = {}): Promise<PaypalDispute | null> {
    const answer = await client.send({ method: 'GET', path: disputePath(id), idempotent, answers: [404] });
    if (answer.status === 404) return null;
    return client.http.read(answer, paypalDisputeSchema, (body) => JSON.parse(body));
  }

  async #existing(
    client: PaypalClient,
    id: string,
    options: { idempotent: boolean },
  ): Promise<PaypalDispute> {
    const dispute = await this.#fetch(client, id, options);
    if (dispute) return dispute;
    throw new ProcessorError(this.name, `PayPal knows no dispute ${id}.`, { retryable: false, status: 404 });
  }
}

const disputePath = (id: string) => `v1/customer/disputes/${encodeURIComponent(id)}`;

const hasLink = (dispute: PaypalDispute, rel: string) => dispute.links.some((link) => link.rel === rel);

/** PayPal's state forbids the action: asking would only earn its 422, and asking again would not help. */
const refusal = (message: string) => new ProcessorError('paypal', message, { retryable: false });

function readTransmission(headers: PushRequest['headers']): Record<keyof typeof transmissionHeaders, string> {
  const fields = Object.entries(transmissionHeaders).map(([field, header]) => {
    const value = headers[header];
    return { field, header, value: Array.isArray(value) ? value[0] : value };
  });
  const missing = fields.filter(({ value }) => !value).map(({ header }) => header);
  if (missing.length > 0)
    throw new PushRejectedError(`The push lacks PayPal's ${missing.join(', ')} header(s).`);
  const transmission = Object.fromEntries(fields.map(({ field, value }) => [field, value])) as Record<
    keyof typeof transmissionHeaders,
    string
  >;
  checkTransmission(transmission);
  return transmission;
}

/**
 * What can be refused without asking PayPal: verifying costs up to two calls to PayPal (a token and the
 * verification), so a forged push must not reach them where it can be told without them. PayPal signs with
 * SHA256withRSA, serves its certificates from its own hosts, and retries a push for at most 3 days
 * (push-age.ts).
 */
function checkTransmission(transmission: Record<keyof typeof transmissionHeaders, string>): void {
  if (transmission.auth_algo !== 'SHA256withRSA') {
    throw new PushRejectedError(
      `The push is signed with ${transmission.auth_algo}, not PayPal's SHA256withRSA.`,
    );
  }
  let certHost: string;
  try {
    const url = new URL(transmission.cert_url);
    if (url.protocol !== 'https:') throw new Error('not https');
    certHost = url.hostname;
  } catch {
    throw new PushRejectedError('The push names no https certificate URL.');
  }
  if (certHost !== 'paypal.com' && !certHost.endsWith('.paypal.com')) {
    throw new PushRejectedError(`The push's certificate is not PayPal's (${certHost}).`);
  }
  checkPushAge(new Date(transmission.transmission_time), pushMaxAgeMs.paypal);
}

const eventSchema = z.object({
  event_type: z.string(),
  resource: z.object({ dispute_id: z.string().min(1).optional() }).optional(),
});

/** The event as sent (verification needs it whole) and what this service reads of it. */
function readEvent(body: Buffer): { raw: unknown; type: string; disputeId: string | undefined } {
  let raw: unknown;
  try {
    raw = JSON.parse(body.toString('utf8'));
  } catch {
    throw new PushRejectedError('The push is not JSON.');
  }
  const event = eventSchema.safeParse(raw);
  if (!event.success) throw new PushRejectedError('The push is not a PayPal webhook event.');
  return { raw, type: event.data.event_type, disputeId: event.data.resource?.dispute_id };
}

/** `work` over `items`, at most `limit` at a time, results in the order of the items. */
async function mapConcurrently<Item, Result>(
  items: readonly Item[],
  limit: number,
  work: (item: Item) => Promise<Result>,
): Promise<Result[]> {
  const results: Result[] = new Array(items.length);
  let next = 0;
  let failed = false;
  const worker = async () => {
    while (next < items.length && !failed) {
      const index = next++;
      try {
        results[index] = await work(items[index] as Item);
      } catch (error) {
        // The page fails as a whole; the other workers take no more items.
        failed = true;
        throw error;
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return results;
}
