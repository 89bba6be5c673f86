import { z } from 'zod';
import { type PastPayment, pastPayment } from '../../domain/evidence.js';
import { choosePastPayments, lookbackStart, windowEnd } from '../../domain/past-payment-choice.js';
import type {
  AlertPage,
  ListAlertsRequest,
  RefundChargeRequest,
  RefundChargeResult,
} from '../alert-types.js';
import { type AdapterContext, credentialProblem, readCredentials } from '../connection.js';
import {
  checkEvidenceLimits,
  type SlotUpload,
  sentDocument,
  sentFile,
  slotUploads,
} from '../slot-uploads.js';
import {
  type AcceptDisputeRequest,
  type Capabilities,
  type DisputePage,
  type EvidenceLimits,
  type GetDisputeRequest,
  type ListDisputesRequest,
  type NormalizedDispute,
  type PastPaymentsRequest,
  type ProcessorAdapter,
  type ProcessorConnection,
  ProcessorError,
  PushRejectedError,
  type PushRequest,
  type PushResult,
  type SubmitEvidenceRequest,
  type SubmitEvidenceResult,
} from '../types.js';
import { IdempotencyConflict, StripeClient } from './client.js';
import { earlyFraudWarningEventTypes, listAlerts, normalizeAlert } from './early-fraud-warnings.js';
import { enhancedEvidence } from './enhanced-evidence.js';
import { evidenceForm, submissionMarker } from './evidence.js';
import { listChanges } from './listing.js';
import {
  awaitingResponse,
  normalizeDispute,
  type StripeCharge,
  type StripeDispute,
  stripeEvidenceLimits,
} from './mapping.js';
import { verifyStripeSignature } from './notifications.js';

/**
 * Stripe (docs.stripe.com/disputes/api). Credentials, as the JSON document given to `account connect`:
 * - `secret_key` (required): the account's secret key (`sk_live_…`, `sk_test_…`) or a restricted key
 *   (`rk_…`); its mode must be the account's. A restricted key needs Disputes and Files write, Events
 *   read, and Charges read unless the account is read-only.
 * - `webhook_secret` (optional): the signing secret of the account's webhook endpoint (`whsec_…`),
 *   needed to take Stripe's pushes.
 *
 * Ingestion polls the disputes, then the dispute events (listing.ts); pushes name disputes to fetch
 * again. Early fraud warnings are polled the same way as alerts (early-fraud-warnings.ts), and refunded
 * through `POST /v1/refunds`; a restricted key then needs Early fraud warnings read and Refunds write. Submission uploads the response PDF and the evidence files of each category with a file field,
 * then updates the dispute with the evidence and `submit=true`, all under idempotency keys derived from
 * the submission's. The update carries Visa CE 3.0's enhanced evidence and a Visa compliance dispute's
 * fee as enhanced-evidence.ts decides.
 */

const credentials = z.object({
  secret_key: z
    .string()
    .regex(
      /^(sk|rk)_(live|test)_\S+$/,
      'must be a secret key (sk_live_…, sk_test_…) or a restricted key (rk_live_…, rk_test_…)',
    ),
  webhook_secret: z.string().startsWith('whsec_', 'must be a webhook signing secret (whsec_…)').optional(),
});
type StripeCredentials = z.infer<typeof credentials>;

const pushedEvent = z.object({
  type: z.string(),
  data: z.object({ object: z.object({ id: z.string().min(1) }) }),
});

export class StripeAdapter implements ProcessorAdapter {
  readonly name = 'stripe';
  readonly evidenceLimits: EvidenceLimits = stripeEvidenceLimits;
  readonly capabilities: Capabilities = {
    list: true,
    get: true,
    submit: 'api',
    fileUpload: true,
    accept: true,
    readOnly: true,
    pastPayments: true,
    push: true,
    kinds: ['chargeback', 'retrieval'],
    alerts: true,
    refund: true,
  };
  readonly #context: AdapterContext;

  constructor(context: AdapterContext = {}) {
    this.#context = context;
  }

  checkCredentials(text: string | null): string | null {
    return credentialProblem(credentials, text);
  }

  listDisputes(request: ListDisputesRequest): Promise<DisputePage> {
    return listChanges(this.#client(request.connection), request, this.#context.logger);
  }

  listAlerts(request: ListAlertsRequest): Promise<AlertPage> {
    const client = this.#client(request.connection);
    return listAlerts(client, request, !request.connection.readOnly, this.#context.logger);
  }

  /**
   * Refunds the alert's charge in full (what remains of it), as fraudulent, under the alert's key. A
   * read-only account gave no access to refunds: refused before any call.
   */
  async refundCharge(request: RefundChargeRequest): Promise<RefundChargeResult> {
    if (request.connection.readOnly) {
      throw refusal('The account is connected read-only: this service cannot refund its charges.');
    }
    const refund = await this.#client(request.connection).createRefund(
      request.charge,
      request.idempotencyKey,
    );
    // A refund Stripe could not make at once ends `failed` or `canceled` (docs.stripe.com/refunds#failed-refunds).
    if (refund.status === 'failed' || refund.status === 'canceled') {
      throw refusal(
        `Stripe's refund ${refund.id} ${refund.status}: ${refund.failure_reason ?? 'no reason given'}.`,
      );
    }
    return { refund: refund.id };
  }

  async getDispute(request: GetDisputeRequest): Promise<NormalizedDispute | null> {
    const dispute = await this.#client(request.connection).retrieveDispute(request.id, null, {
      withCharge: true,
    });
    return dispute && normalizeDispute(dispute);
  }

  /**
   * Uploads the PDF and each slotted evidence file, then submits the evidence with them. The files are
   * checked against Stripe's limits before anything is sent. Stripe refuses evidence once a dispute has
   * left needs_response, so the dispute is read first: one already carrying this submission's marker was
   * submitted by an earlier attempt whose answer was lost (after Stripe's idempotency keys expire, 24
   * hours, a repeat would be refused rather than replayed); one no longer awaiting a response is not
   * asked again. No call of a submission is repeated inline: a lost answer surfaces as a transient error
   * and the submission job's retry starts over from the read, under the same keys.
   */
  async submitEvidence(request: SubmitEvidenceRequest): Promise<SubmitEvidenceResult> {
    const { dispute, response, idempotencyKey } = request;
    const uploads = await slotUploads(this.evidenceLimits, request.files, idempotencyKey);
    checkEvidenceLimits('stripe', this.evidenceLimits, [
      sentDocument(response.document),
      ...uploads.map(sentFile),
    ]);
    const client = this.#client(request.connection);
    const current = await client.retrieveDispute(dispute.id, dispute.accountId, {
      withCharge: false,
      retry: false,
    });
    if (!current) throw refusal(`Stripe knows no dispute '${dispute.id}'.`, 404);
    if (current.metadata?.[submissionMarker] === idempotencyKey) return { reference: fileOf(current) };
    if (!awaitingResponse.includes(current.status)) {
      throw refusal(
        `Stripe takes evidence only while a dispute awaits a response; '${dispute.id}' is ${current.status}.`,
      );
    }
    // Before any upload: a Visa compliance dispute whose fee the organisation refuses is not answered.
    const enhanced = enhancedEvidence(request, current);
    if ('refused' in enhanced) throw refusal(enhanced.refused);
    if (enhanced.skipped) {
      this.#context.logger?.warn(
        { dispute: dispute.id, reason: enhanced.skipped },
        'Visa CE 3.0 qualified, but no enhanced evidence is sent to Stripe',
      );
    }
    // The uploads and the update are the steps of one submission: each key is derived from the
    // submission's own, so a retry reuses the files uploaded before and replays an update that went through.
    const fileId = await this.#upload(client, dispute.accountId, {
      filename: `${response.document.filename.replace(/\.pdf$/i, '')}-${idempotencyKey}.pdf`,
      bytes: response.document.pdf,
      contentType: 'application/pdf',
      idempotencyKey: `${idempotencyKey}-document`,
    });
    const slots: Record<string, string> = {};
    for (const upload of uploads) {
      slots[upload.slot] = await this.#upload(client, dispute.accountId, {
        ...upload,
        idempotencyKey: uploadKey(idempotencyKey, upload),
      });
    }
    const form = { ...evidenceForm(response.evidence, fileId, slots, idempotencyKey), ...enhanced.form };
    try {
      const updated = await client.updateDispute(dispute.id, form, idempotencyKey, dispute.accountId);
      return { reference: fileOf(updated) ?? fileId };
    } catch (error) {
      if (!(error instanceof IdempotencyConflict)) throw error;
      // The key went with another update first: what the dispute holds now says whether it was ours.
      const now = await client.retrieveDispute(dispute.id, dispute.accountId, { withCharge: false });
      if (now?.metadata?.[submissionMarker] === idempotencyKey) return { reference: fileOf(now) ?? fileId };
      throw error;
    }
  }

  /**
   * Uploads one file under its key. Its name carries the submission's key, so when Stripe refuses the key
   * as first used by another request (the same file encoded otherwise), the file that request made is
   * found by its name and size and used; without such a file the refusal stands. (The document's key is
   * `-document`, not the `-file` of versions that named the file without the key: an upload one of them
   * made is then no conflict, at worst a second file.)
   */
  async #upload(
    client: StripeClient,
    account: string | null,
    file: { filename: string; bytes: Buffer; contentType: string; idempotencyKey: string },
  ) {
    try {
      return await client.uploadEvidenceFile({ ...file, account });
    } catch (error) {
      if (!(error instanceof IdempotencyConflict)) throw error;
      const found = await client.findEvidenceFile({
        filename: file.filename,
        size: file.bytes.length,
        account,
      });
      if (found) return found;
      throw error;
    }
  }

  /** Closes the dispute: Stripe records it lost (docs.stripe.com/api/disputes/close). */
  async acceptDispute(request: AcceptDisputeRequest): Promise<void> {
    const { dispute, idempotencyKey } = request;
    await this.#client(request.connection).closeDispute(dispute.id, idempotencyKey, dispute.accountId);
  }

  /**
   * Successful charges made with the disputed charge's card in the 365 days before it, neither disputed
   * nor refunded, found by the card's fingerprint (docs.stripe.com/search#query-fields-for-charges). For
   * a Visa fraud dispute the charges in Visa CE 3.0's window (120 to 365 days before) are searched apart
   * and chosen first (domain/past-payment-choice.ts), so that recent charges cannot crowd them out.
   * Read-only accounts gave no access to charges: none are looked up.
   */
  async pastPayments(request: PastPaymentsRequest): Promise<PastPayment[]> {
    const { dispute, connection, limit } = request;
    if (connection.readOnly || !dispute.charge || limit < 1) return [];
    const client = this.#client(connection);
    const charge = await client.retrieveCharge(dispute.charge, dispute.accountId);
    const fingerprint = charge.payment_method_details?.card?.fingerprint;
    // Fingerprints are alphanumeric; anything else would not be a value in a search query.
    if (!fingerprint || !/^[A-Za-z0-9]+$/.test(fingerprint)) return [];
    const chargedAt = new Date(charge.created * 1000);
    const seconds = (date: Date) => Math.floor(date.getTime() / 1000);
    const search = async (from: number, until: number) => {
      const query = [
        `payment_method_details.card.fingerprint:"${fingerprint}"`,
        'status:"succeeded"',
        'disputed:"false"',
        'refunded:"false"',
        `created>=${from}`,
        `created<${until}`,
      ].join(' AND ');
      return (await client.searchCharges(query, Math.min(limit, 100), dispute.accountId)).data;
    };
    const since = seconds(lookbackStart(chargedAt));
    let found: StripeCharge[];
    if (request.compellingEvidence) {
      const recent = seconds(windowEnd(chargedAt));
      found = await search(since, recent);
      if (found.length < limit) found = [...found, ...(await search(recent, charge.created))];
    } else {
      found = await search(since, charge.created);
    }
    // `refunded` is a full refund; a partly refunded charge is left out too.
    const kept = found.flatMap((earlier) => {
      const payment =
        earlier.id === charge.id || (earlier.amount_refunded ?? 0) > 0 ? null : pastPaymentOf(earlier);
      return payment ? [{ payment, at: new Date(earlier.created * 1000) }] : [];
    });
    return choosePastPayments(kept, chargedAt, limit, request.compellingEvidence ?? false);
  }

  /**
   * A Stripe webhook: verified with the endpoint's signing secret, and for a dispute event the dispute
   * to fetch again (the event's own snapshot may be older than another event delivered before it). An
   * early fraud warning event gives the warning as it is now, fetched with its charge for the amount, for
   * the same reason: a `created` event delivered after an `updated` one must not make the alert
   * actionable again. A warning Stripe no longer knows gives none.
   */
  async parsePush(request: PushRequest): Promise<PushResult> {
    const secret = this.#credentials(request.connection).webhook_secret;
    if (!secret) throw new PushRejectedError("The account's credentials have no webhook_secret.");
    const now = Math.floor(Date.now() / 1000);
    verifyStripeSignature(request.headers['stripe-signature'], request.body, secret, now);
    let event: z.infer<typeof pushedEvent>;
    try {
      event = pushedEvent.parse(JSON.parse(request.body.toString('utf8')));
    } catch {
      throw new PushRejectedError('The push is not a Stripe event.');
    }
    const refresh = event.type.startsWith('charge.dispute.') ? [event.data.object.id] : [];
    if (!(earlyFraudWarningEventTypes as readonly string[]).includes(event.type)) {
      return { refresh, disputes: [] };
    }
    const warning = await this.#client(request.connection).retrieveEarlyFraudWarning(event.data.object.id);
    const alerts = warning ? [normalizeAlert(warning, !request.connection.readOnly)] : [];
    return { refresh, disputes: [], alerts };
  }

  #credentials(connection: ProcessorConnection): StripeCredentials {
    return readCredentials('stripe', credentials, connection);
  }

  #client(connection: ProcessorConnection): StripeClient {
    const { secret_key: key } = this.#credentials(connection);
    // One key serves one mode (docs.stripe.com/keys): a test key on a live account would mirror test data.
    if (/^(sk|rk)_live_/.test(key) !== connection.account.livemode) {
      throw refusal(
        `The account is in ${connection.account.livemode ? 'live' : 'test'} mode but its key is not.`,
      );
    }
    return new StripeClient(this.#context, connection, key);
  }
}

const refusal = (message: string, status?: number) =>
  new ProcessorError('stripe', message, { retryable: false, ...(status === undefined ? {} : { status }) });

/**
 * An upload's idempotency key: the submission's and the file's id, or for files merged into one the slot,
 * which a submission's files fill the same way on every attempt.
 */
const uploadKey = (submission: string, upload: SlotUpload) => {
  const [only] = upload.files;
  return upload.files.length === 1 && only ? `${submission}-${only.id}` : `${submission}-${upload.slot}`;
};

const fileOf = (dispute: StripeDispute): string | null => {
  const file = dispute.evidence?.uncategorized_file;
  return file ? (typeof file === 'string' ? file : file.id) : null;
};

/** A charge as a past payment of the evidence (docs/api.md, "The dispute object"); null if it does not fit one. */
function pastPaymentOf(charge: StripeCharge): PastPayment | null {
  const customer = typeof charge.customer === 'object' ? charge.customer?.id : charge.customer;
  const email = charge.billing_details?.email || charge.receipt_email;
  const address = charge.shipping?.address;
  const shipping = address
    ? [
        address.line1,
        address.line2,
        [address.postal_code, address.city].filter(Boolean).join(' '),
        address.state,
        address.country,
      ]
        .filter(Boolean)
        .join(', ')
    : '';
  const candidate = {
    id: charge.id,
    amount: charge.amount,
    currency: charge.currency.toLowerCase(),
    charged_at: charge.created,
    ...(charge.description ? { item_description: charge.description.slice(0, 1000) } : {}),
    ...(customer ? { user_id: customer } : {}),
    ...(shipping ? { shipping_address: shipping.slice(0, 1000) } : {}),
    ...(email ? { email } : {}),
  };
  const checked = pastPayment.safeParse(candidate);
  return checked.success ? checked.data : null;
}
