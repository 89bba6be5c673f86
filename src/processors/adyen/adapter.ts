import { createHash } from 'node:crypto';
import { z } from 'zod';
import { type AdapterContext, credentialProblem, openHttp, readCredentials } from '../connection.js';
import type { ProcessorHttp } from '../http.js';
import { checkEvidenceLimits, sentDocument, sentFile, slotUploads } from '../slot-uploads.js';
import {
  type AcceptDisputeRequest,
  type Capabilities,
  type EvidenceLimits,
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
import { defenseFor, disputeFromEvent, evidenceLimits, pdfLimitBytes } from './mapping.js';
import {
  alertOf,
  eventOf,
  isDisputeEvent,
  isFraudNotification,
  notificationSchema,
  unsignedAttributes,
  verifies,
} from './notifications.js';
import { readAdyenReport } from './report.js';

/**
 * Adyen, through its Disputes API v30 (docs.adyen.com/risk-management/disputes-api): JSON POST calls that
 * defend or accept a dispute. Adyen publishes no call that lists or fetches disputes: they arrive by its
 * Standard webhooks (parsePush) or its Dispute transaction details report (`dispute import`).
 *
 * Credentials (the JSON document given to `account connect`):
 * - `api_key`: an API credential's key with the "API dispute management" role, sent as X-API-Key;
 * - `merchant_account`: the merchant account whose disputes these are (merchantAccountCode);
 * - `hmac_key`: the HMAC key of the Standard webhook, in hex as the Customer Area shows it.
 */

const processor = 'adyen';

const credentialsSchema = z.object({
  api_key: z.string().min(1),
  merchant_account: z.string().min(1),
  hmac_key: z
    .string()
    .regex(/^(?:[0-9a-fA-F]{2})+$/, 'must be the webhook HMAC key in hex, as the Customer Area shows it'),
});
type Credentials = z.infer<typeof credentialsSchema>;

/** The live host may carry a merchant-specific prefix: an account's `--base-url` replaces both. */
const hosts = {
  live: 'https://ca-live.adyen.com/ca/services/DisputeService/v30',
  test: 'https://ca-test.adyen.com/ca/services/DisputeService/v30',
};

/** Adyen publishes no Disputes API rate limit; a modest pace per account. */
const perSecond = 10;

/** Adyen's longest Idempotency-Key (docs.adyen.com/development-resources/api-idempotency). */
const idempotencyKeyLength = 64;

const resultSchema = z.object({ success: z.boolean(), errorMessage: z.string().optional() });
const answerSchema = z.object({ disputeServiceResult: resultSchema });
const reasonsSchema = answerSchema.extend({
  defenseReasons: z
    .array(
      z.object({
        defenseReasonCode: z.string(),
        defenseDocumentTypes: z
          .array(z.object({ defenseDocumentTypeCode: z.string(), requirementLevel: z.string() }))
          .default([]),
      }),
    )
    .default([]),
});

export class AdyenAdapter implements ProcessorAdapter {
  readonly name = processor;
  readonly evidenceLimits: EvidenceLimits = evidenceLimits;
  readonly capabilities: Capabilities = {
    list: false,
    get: false,
    submit: 'api',
    fileUpload: true,
    accept: true,
    // Every call is a dispute call: an API credential with only the dispute role is enough.
    readOnly: true,
    pastPayments: false,
    push: true,
    kinds: ['chargeback', 'pre_arbitration', 'retrieval'],
    alerts: false,
    refund: false,
  };
  readonly #context: AdapterContext;

  constructor(context: AdapterContext = {}) {
    this.#context = context;
  }

  checkCredentials(credentials: string | null): string | null {
    return credentialProblem(credentialsSchema, credentials);
  }

  /**
   * Supplies the response PDF as one defense document, with the evidence files Adyen has a type for
   * (`evidenceLimits` in mapping.ts) as a document of that type (several merged into one PDF), in one
   * call, then defends
   * (docs/architecture.md, "Adyen"): Adyen takes no free text, and the PDF holds the whole response. Each
   * step carries an Idempotency-Key derived from the submission's, so a submission sent again after a lost
   * answer, from the first step, gets Adyen's first answer to each step back instead of a second document
   * or a second defense. The calls are not retried inline: the submission job retries the whole sequence,
   * which the keys make safe. Files over Adyen's limits are refused before the first call.
   */
  async submitEvidence(request: SubmitEvidenceRequest): Promise<SubmitEvidenceResult> {
    const { connection, dispute, response, idempotencyKey } = request;
    const credentials = readCredentials(processor, credentialsSchema, connection);
    const { pdf } = response.document;
    // Adyen keeps one document a type: several files of one type go merged into one PDF.
    const uploads = await slotUploads(evidenceLimits, request.files, idempotencyKey);
    checkEvidenceLimits(processor, evidenceLimits, uploads.map(sentFile));
    // A PDF's limit is lower than a JPG's (`evidenceLimits` in mapping.ts), the response document's too.
    checkEvidenceLimits(processor, { ...evidenceLimits, maxFileBytes: pdfLimitBytes }, [
      ...uploads.filter((upload) => upload.type === 'pdf').map(sentFile),
      sentDocument(response.document),
    ]);
    const http = this.#http(connection, credentials);
    const target = { merchantAccountCode: credentials.merchant_account, disputePspReference: dispute.id };
    const { defenseReasons } = await this.#post(
      http,
      'retrieveApplicableDefenseReasons',
      target,
      stepKey(idempotencyKey, 'reasons'),
      reasonsSchema,
    );
    const fileTypes = uploads.map(({ slot }) => slot);
    const defense = defenseFor(defenseReasons, fileTypes);
    if (!defense) {
      const files = fileTypes.length === 0 ? '' : ` and the evidence files' types (${fileTypes.join(', ')})`;
      throw new ProcessorError(
        processor,
        `No defense reason Adyen offers for dispute ${dispute.id} can be met with one document${files} ` +
          `(offered: ${defenseReasons.map((reason) => reason.defenseReasonCode).join(', ') || 'none'}); ` +
          'defend it in the Customer Area.',
        { retryable: false },
      );
    }
    const documents = [
      { defenseDocumentTypeCode: defense.documentType, contentType: 'application/pdf', content: pdf },
      ...uploads.map(({ slot, contentType, bytes }) => ({
        defenseDocumentTypeCode: slot,
        contentType,
        content: bytes,
      })),
    ].map((document) => ({ ...document, content: document.content.toString('base64') }));
    await this.#post(
      http,
      'supplyDefenseDocument',
      { ...target, defenseDocuments: documents },
      stepKey(idempotencyKey, 'supply'),
      answerSchema,
    );
    await this.#post(
      http,
      'defendDispute',
      { ...target, defenseReasonCode: defense.reason },
      stepKey(idempotencyKey, 'defend'),
      answerSchema,
    );
    this.#context.logger?.info(
      { processor, dispute: dispute.id, defenseReason: defense.reason, documentType: defense.documentType },
      'adyen dispute defended',
    );
    return { reference: null };
  }

  async acceptDispute(request: AcceptDisputeRequest): Promise<void> {
    const credentials = readCredentials(processor, credentialsSchema, request.connection);
    await this.#post(
      this.#http(request.connection, credentials),
      'acceptDispute',
      { merchantAccountCode: credentials.merchant_account, disputePspReference: request.dispute.id },
      stepKey(request.idempotencyKey, 'accept'),
      answerSchema,
    );
  }

  /**
   * A Standard webhook batch: every item must carry a valid HMAC signature or the whole batch is refused
   * (Adyen sends it again). The HMAC covers only some fields of an item, and Adyen publishes no call that
   * fetches a dispute: what it does not cover is marked unsigned, and only fills what is not known. A
   * NOTIFICATION_OF_FRAUD item is an alert. Items of other merchant accounts (a company-level webhook)
   * and other events are acknowledged and left out. Adyen expects `[accepted]` back.
   */
  async parsePush(request: PushRequest): Promise<PushResult> {
    const credentials = readCredentials(processor, credentialsSchema, request.connection);
    const type = String(request.headers['content-type'] ?? '');
    if (!/^application\/json\b/i.test(type)) {
      throw new PushRejectedError(
        `the webhook is not sent as JSON (content type '${type}'); choose JSON in its Customer Area settings`,
      );
    }
    let body: unknown;
    try {
      body = JSON.parse(request.body.toString('utf8'));
    } catch {
      throw new PushRejectedError('the body is not JSON');
    }
    const read = notificationSchema.safeParse(body);
    if (!read.success) {
      const issue = read.error.issues[0];
      throw new PushRejectedError(`not an Adyen notification (${issue?.path.join('.')}: ${issue?.message})`);
    }
    const live = read.data.live === 'true';
    if (live !== request.connection.account.livemode) {
      throw new PushRejectedError(
        `a ${live ? 'live' : 'test'} notification for a ${live ? 'test' : 'live'} account`,
      );
    }
    const items = read.data.notificationItems.map((wrapper) => wrapper.NotificationRequestItem);
    const forged = items.findIndex((item) => !verifies(item, credentials.hmac_key));
    if (forged >= 0) {
      throw new PushRejectedError(`notification item ${forged + 1} does not carry a valid HMAC signature`);
    }
    const ours = items.filter((item) => item.merchantAccountCode === credentials.merchant_account);
    const disputes: NormalizedDispute[] = ours
      .filter(isDisputeEvent)
      .map((item) => disputeFromEvent(eventOf(item)));
    const alerts = ours.filter(isFraudNotification).map(alertOf);
    this.#context.logger?.debug(
      { processor, items: items.length, disputes: disputes.length, alerts: alerts.length },
      'adyen push read',
    );
    return {
      refresh: [],
      disputes,
      ...(alerts.length > 0 ? { alerts } : {}),
      unsigned: unsignedAttributes,
      reply: { contentType: 'text/plain', body: '[accepted]' },
    };
  }

  readReport(csv: string): NormalizedDispute[] {
    return readAdyenReport(csv);
  }

  #http(connection: ProcessorConnection, credentials: Credentials): ProcessorHttp {
    return openHttp(this.#context, connection, {
      processor,
      hosts,
      perSecond,
      headers: { 'x-api-key': credentials.api_key },
    });
  }

  /**
   * One Disputes API call. Adyen answers a refusal with 200 and `disputeServiceResult.success: false`: a
   * refusal it documents as final (an expired or undefendable dispute) is permanent, any other may pass.
   */
  async #post<Schema extends z.ZodType<z.infer<typeof answerSchema>>>(
    http: ProcessorHttp,
    path: string,
    json: Record<string, unknown>,
    idempotencyKey: string,
    schema: Schema,
  ): Promise<z.infer<Schema>> {
    const answer = await http.send({
      method: 'POST',
      path,
      json,
      headers: { 'idempotency-key': idempotencyKey },
    });
    const read = http.read(answer, schema, (body) => JSON.parse(body));
    const { success, errorMessage } = read.disputeServiceResult;
    if (!success) {
      const message = errorMessage ?? 'no message';
      // Permanent whatever the message: a retry goes out under the same Idempotency-Key, and Adyen
      // answers it with this same refusal.
      throw new ProcessorError(processor, `Adyen refused ${path}: ${message}`, {
        retryable: false,
        status: answer.status,
        excerpt: http.excerpt(answer.body),
      });
    }
    return read;
  }
}

/**
 * The Idempotency-Key of one step of a submission or acceptance: the same on every retry, different for
 * each step, and within Adyen's 64 characters (a longer key is replaced by a digest of itself).
 */
export function stepKey(key: string, step: string): string {
  const plain = `${key}-${step}`;
  if (plain.length <= idempotencyKeyLength) return plain;
  const digest = createHash('sha256').update(key).digest('hex');
  return `${digest.slice(0, idempotencyKeyLength - step.length - 1)}-${step}`;
}
