import { z } from 'zod';
import { type AdapterContext, credentialProblem, readCredentials } from '../connection.js';
import { checkPushAge, pushMaxAgeMs } from '../push-age.js';
import {
  type Capabilities,
  type EvidenceLimits,
  type NormalizedDispute,
  type ProcessorAdapter,
  PushRejectedError,
  type PushRequest,
  type PushResult,
  type SubmitEvidenceRequest,
  type SubmitEvidenceResult,
} from '../types.js';
import { disputeFromRecord, eventSchema, eventTime, isDisputeEvent, recordOfEvent } from './mapping.js';
import { verifySignature } from './notifications.js';
import { readWorldpayReport } from './report.js';

/**
 * Worldpay (Access Worldpay). Worldpay publishes no API to list, fetch, answer or accept disputes
 * (docs/architecture.md, "Worldpay"): disputes arrive by its Events webhook (parsePush) or the dispute list exported
 * from its portal (`dispute import`), and a response is a package the merchant uploads in the Worldpay
 * Dashboard (submit: portal). This adapter makes no HTTP calls.
 *
 * Credentials (the JSON document given to `account connect`), from the Implementation Manager who
 * enables the Event-Signature header (docs.worldpay.com/access/products/events/signature):
 * - `webhook_key_id`: the numeric keyId the signatures to check carry;
 * - `webhook_secret`: the shared secret of that key.
 */

const processor = 'worldpay';

/**
 * What the Worldpay Dashboard's upload form takes (help.worldpay.com/submitting-evidence): PDF and JPG
 * files of at most 2 MB, at most 10 a submission, sent once. Nothing goes through an API, so there are no
 * slots: every file is in the response document too, and these limits only tell the preview where the
 * merchant's upload of the package and its files will be refused (docs/api.md, "Files").
 */
export const worldpayEvidenceLimits: EvidenceLimits = {
  slots: {},
  types: ['pdf', 'jpg'],
  maxFileBytes: 2 * 1024 * 1024,
  maxTotalBytes: null,
  maxPages: null,
  maxFiles: 10,
  textLimits: {},
};

const credentialsSchema = z.object({
  webhook_key_id: z
    .union([
      z.string().regex(/^\d+$/, 'must be the numeric keyId of the signing key'),
      z.number().int().min(0),
    ])
    .transform(String),
  webhook_secret: z.string().min(1),
});

export class WorldpayAdapter implements ProcessorAdapter {
  readonly name = processor;
  readonly evidenceLimits: EvidenceLimits = worldpayEvidenceLimits;
  readonly capabilities: Capabilities = {
    list: false,
    get: false,
    submit: 'portal',
    fileUpload: false,
    accept: false,
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

  /** Nothing is sent: the response package waits for the merchant to upload it in the Dashboard. */
  async submitEvidence(_request: SubmitEvidenceRequest): Promise<SubmitEvidenceResult> {
    return { reference: null, delivery: 'portal' };
  }

  /**
   * One Events webhook: its Event-Signature header holds one or more `{keyId}/SHA256/{hex HMAC}`, in any
   * order; the one under our key id must be the HMAC of the exact body under the shared secret, and the
   * event within Worldpay's retries of it (push-age.ts). Events that are not a dispute's (authorized,
   * settled, ...) are acknowledged and left out.
   */
  async parsePush(request: PushRequest): Promise<PushResult> {
    const credentials = readCredentials(processor, credentialsSchema, request.connection);
    verifySignature(request.headers['event-signature'], request.body, credentials);
    let body: unknown;
    try {
      body = JSON.parse(request.body.toString('utf8'));
    } catch {
      throw new PushRejectedError('the body is not JSON');
    }
    const read = eventSchema.safeParse(body);
    if (!read.success) {
      const issue = read.error.issues[0];
      throw new PushRejectedError(`not a Worldpay event (${issue?.path.join('.')}: ${issue?.message})`);
    }
    // The signature covers eventTimestamp, and Worldpay retries with the first body: an event older than
    // its retries is a replay, refused even though it verifies.
    checkPushAge(eventTime(read.data), pushMaxAgeMs.worldpay);
    const disputes: NormalizedDispute[] = [];
    if (isDisputeEvent(read.data)) {
      const record = recordOfEvent(read.data);
      if (!record) throw new PushRejectedError(`event ${read.data.eventId} has a date that cannot be read`);
      disputes.push(disputeFromRecord(record));
    }
    this.#context.logger?.debug({ processor, disputes: disputes.length }, 'worldpay push read');
    return { refresh: [], disputes };
  }

  readReport(csv: string): NormalizedDispute[] {
    return readWorldpayReport(csv);
  }
}
