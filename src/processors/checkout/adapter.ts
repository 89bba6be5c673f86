import { z } from 'zod';
import { type AdapterContext, credentialProblem, openHttp, readCredentials } from '../connection.js';
import type { ProcessorHttp } from '../http.js';
import { checkEvidenceLimits, sentDocument, sentFile, slotUploads } from '../slot-uploads.js';
import type {
  AcceptDisputeRequest,
  Capabilities,
  DisputePage,
  EvidenceLimits,
  GetDisputeRequest,
  ListDisputesRequest,
  NormalizedDispute,
  ProcessorAdapter,
  ProcessorConnection,
  PushRequest,
  PushResult,
  SubmitEvidenceRequest,
  SubmitEvidenceResult,
} from '../types.js';
import { ProcessorError, PushRejectedError } from '../types.js';
import { type EvidenceFile, evidenceTextFields, stagedFiles, stageEvidence } from './evidence.js';
import {
  type CheckoutDispute,
  checkoutDispute,
  checkoutEvidenceLimits,
  documentField,
  needsDetail,
  normalizeDispute,
} from './mapping.js';
import { readNotification } from './notifications.js';

/**
 * Checkout.com, current platform (https://www.checkout.com/docs/risk-management/disputes/disputes-api).
 *
 * Credentials, the JSON document given to `account connect`:
 * - `secret_key` (required): the secret API key, `sk_…` in production or `sk_sbox_…` in the sandbox, sent
 *   as `Authorization: Bearer …`. It needs the disputes scopes (view, provide evidence, accept); an
 *   account connected read-only needs only `disputes:view`.
 * - `webhook_signature_key` (optional): the signature key of the workflow's webhook action. Without it
 *   Checkout.com's pushes cannot be verified and are refused; polling still mirrors everything.
 *
 * Checkout.com publishes no search of payments by card, so past payments are not fetched.
 */

const processor = 'checkout';
const hosts = { live: 'https://api.checkout.com', test: 'https://api.sandbox.checkout.com' };
/** Published: 100 reads and 100 writes a second per account, lower in the sandbox (api-rate-limits). */
const perSecond = { live: 50, test: 20 };
/** `limit` is 1 to 250 on `GET /disputes`; more is refused with 422. */
const maxPageSize = 250;
/**
 * How far each scan reaches back before the newest change the previous one saw. Checkout.com's list may
 * show a change a little after its `last_update` (replicas, clocks between its own servers); re-listing a
 * few minutes is harmless, missing a change is not.
 */
const overlapMs = 5 * 60_000;

const credentialsSchema = z.object({
  secret_key: z
    .string()
    .regex(/^sk_[A-Za-z0-9_-]+$/, 'must be a Checkout.com secret key (sk_… or sk_sbox_…)'),
  webhook_signature_key: z.string().min(1).optional(),
});

const disputePage = z.object({
  total_count: z.number().int().nullish(),
  data: z.array(checkoutDispute).nullish(),
});

/**
 * The listing cursor. `GET /disputes` pages by offset (`skip`) over disputes sorted by `last_update`,
 * newest first, `from` filtering on `last_update`. A scan pages from the top with no `to`:
 * - a dispute that changes meanwhile only ever moves up, to the top. Disputes not yet read keep their
 *   places or move down one (read twice, harmless); none moves up past the offset, so none is skipped.
 *   A fixed `to` would break this: a dispute changing would leave the window, and every dispute behind
 *   it would move up one place, past the offset;
 * - what moved to the top during the scan is newer than the scan's first page, and the next scan starts
 *   at that page's newest `last_update`, less an overlap: it finds them.
 * Checkout.com never deletes a dispute and a `last_update` never goes back, so nothing leaves a scan's
 * list; within one `last_update` its order is assumed stable between calls (not published).
 */
const cursorSchema = z.object({
  /** `from` of the scan: the previous scan's newest change, less the overlap; null: everything kept. */
  from: z.string().nullable(),
  /** The scan under way: the newest `last_update` of its first page, and how many it has read. */
  scan: z.object({ newest: z.string(), skip: z.number().int().min(0) }).nullable(),
});
type Cursor = z.infer<typeof cursorSchema>;

/**
 * Statuses a dispute reaches only once evidence was submitted (POST): seeing one with our document staged
 * means a submission whose answer was lost got through. `expired`, `accepted`, `canceled` and `resolved`
 * follow no submission.
 */
const afterSubmission = new Set<string>([
  'evidence_under_review',
  'won',
  'lost',
  'arbitration_under_review',
  'arbitration_won',
  'arbitration_lost',
]);

export class CheckoutAdapter implements ProcessorAdapter {
  readonly name = processor;
  readonly evidenceLimits: EvidenceLimits = checkoutEvidenceLimits;
  readonly capabilities: Capabilities = {
    list: true,
    get: true,
    submit: 'api',
    fileUpload: true,
    accept: true,
    // Every call here is on the disputes API itself: a key with only the disputes scopes serves.
    readOnly: true,
    pastPayments: false,
    push: true,
    kinds: ['chargeback', 'pre_arbitration'],
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

  async listDisputes({ connection, cursor, limit }: ListDisputesRequest): Promise<DisputePage> {
    const http = this.#open(connection);
    const { from, scan } = readCursor(cursor);
    const size = Math.min(Math.max(1, Math.floor(limit)), maxPageSize);
    const skip = scan?.skip ?? 0;
    const page = await http.json(
      {
        method: 'GET',
        path: 'disputes',
        searchParams: { limit: size, skip, from: from ?? undefined },
        idempotent: true,
      },
      disputePage,
    );
    const items = page.data ?? [];
    const newest = scan?.newest ?? items[0]?.last_update ?? null;
    const read = skip + items.length;
    const more = items.length === size && (page.total_count == null || read < page.total_count);
    const next: Cursor =
      more && newest !== null
        ? { from, scan: { newest, skip: read } }
        : { from: newest === null ? from : before(newest, overlapMs), scan: null };
    return this.#page(http, items, next, more);
  }

  async getDispute({ connection, id }: GetDisputeRequest): Promise<NormalizedDispute | null> {
    const found = await this.#find(this.#open(connection), id, { idempotent: true });
    return found && normalizeDispute(found);
  }

  /**
   * Upload the PDF and the evidence files of each slot (`POST /files`), stage them with the text
   * (`PUT /disputes/{id}/evidence`), then submit (`POST /disputes/{id}/evidence`), after which
   * Checkout.com refuses any change. The files are checked against Checkout.com's limits before anything
   * is sent. It publishes no idempotency key for disputes or files, so each attempt starts from
   * Checkout.com's state: a dispute already under review with this submission's document staged was
   * submitted by an earlier attempt whose answer was lost, and answers success without being sent again;
   * a file already staged is not uploaded again (evidence.ts). Every file's name carries the idempotency
   * key, so it can be recognised. No call is retried inline: the attempt is the unit of retry, and it
   * always starts by reading that state again.
   */
  async submitEvidence(request: SubmitEvidenceRequest): Promise<SubmitEvidenceResult> {
    const { connection, dispute, response, idempotencyKey } = request;
    const uploads = await slotUploads(this.evidenceLimits, request.files, idempotencyKey);
    checkEvidenceLimits(processor, this.evidenceLimits, [
      sentDocument(response.document),
      ...uploads.map(sentFile),
    ]);
    const files: EvidenceFile[] = [
      ...uploads.map(({ slot, filename, bytes, contentType }) => ({
        field: slot,
        filename,
        bytes,
        contentType,
      })),
      {
        field: documentField,
        filename: documentName(response.document.filename, idempotencyKey),
        bytes: response.document.pdf,
        contentType: 'application/pdf',
      },
    ];
    const http = this.#open(connection);
    const path = `disputes/${encodeURIComponent(dispute.id)}/evidence`;
    const current = await this.#find(http, dispute.id, { idempotent: false });
    if (!current) throw unknown(dispute.id);
    const staged = await stagedFiles(http, path, files);
    if (current.status !== 'evidence_required') {
      // Staged is not submitted: only a status that follows a submission says our POST got through.
      const document = staged[documentField];
      if (document && afterSubmission.has(current.status)) return { reference: document };
      throw refusal(`The dispute is ${current.status} at Checkout.com: it takes no evidence.`);
    }
    const evidence = await stageEvidence(http, path, evidenceTextFields(response.evidence), files, staged);
    await http.send({ method: 'POST', path });
    return { reference: evidence[documentField] ?? null };
  }

  /** Accepting twice is refused, so a retry after a lost answer finds the dispute accepted and stops. */
  async acceptDispute({ connection, dispute }: AcceptDisputeRequest): Promise<void> {
    const http = this.#open(connection);
    const current = await this.#find(http, dispute.id, { idempotent: true });
    if (!current) throw unknown(dispute.id);
    if (current.status === 'accepted') return;
    if (current.status !== 'evidence_required') {
      throw refusal(`The dispute is ${current.status} at Checkout.com: it cannot be accepted.`);
    }
    await http.send({ method: 'POST', path: `disputes/${encodeURIComponent(dispute.id)}/accept` });
  }

  /** A push verified with the account's signature key (notifications.ts) names a dispute to fetch. */
  async parsePush({ connection, headers, body }: PushRequest): Promise<PushResult> {
    const { webhook_signature_key: key } = readCredentials(processor, credentialsSchema, connection);
    if (!key) {
      throw new PushRejectedError(
        'The account has no webhook_signature_key: Checkout.com pushes cannot be verified.',
      );
    }
    return readNotification(headers, body, key);
  }

  #open(connection: ProcessorConnection): ProcessorHttp {
    const { secret_key } = readCredentials(processor, credentialsSchema, connection);
    return openHttp(this.#context, connection, {
      processor,
      hosts,
      perSecond: connection.account.livemode ? perSecond.live : perSecond.test,
      headers: { authorization: `Bearer ${secret_key}` },
    });
  }

  /**
   * A page in this service's terms, resolved disputes fetched whole for their reason. It stays in
   * Checkout.com's order, newest change first: one answer never lists a dispute twice, so the order does
   * not change what the mirror writes.
   */
  async #page(
    http: ProcessorHttp,
    items: CheckoutDispute[],
    next: Cursor,
    hasMore: boolean,
  ): Promise<DisputePage> {
    const complete = await Promise.all(
      items.map(async (item) =>
        needsDetail(item) ? ((await this.#find(http, item.id, { idempotent: true })) ?? item) : item,
      ),
    );
    return {
      disputes: complete.map(normalizeDispute),
      nextCursor: JSON.stringify(next),
      hasMore,
    };
  }

  /** The full dispute, or null when Checkout.com knows none of that id. */
  async #find(
    http: ProcessorHttp,
    id: string,
    options: { idempotent: boolean },
  ): Promise<CheckoutDispute | null> {
    const answer = await http.send({
      method: 'GET',
      path: `disputes/${encodeURIComponent(id)}`,
      idempotent: options.idempotent,
      answers: [404],
    });
    if (answer.status === 404) return null;
    return http.read(answer, checkoutDispute, (text) => JSON.parse(text));
  }
}

function readCursor(cursor: string | null): Cursor {
  if (cursor === null) return { from: null, scan: null };
  try {
    return cursorSchema.parse(JSON.parse(cursor));
  } catch {
    throw refusal('The account has a cursor this adapter did not write.');
  }
}

/** A refusal of ours that sending again will not change. */
const refusal = (message: string) => new ProcessorError(processor, message, { retryable: false });

const unknown = (id: string) =>
  new ProcessorError(processor, `Checkout.com knows no dispute ${id}.`, { retryable: false, status: 404 });

const before = (timestamp: string, ms: number) => new Date(Date.parse(timestamp) - ms).toISOString();

/** The document's own name with the idempotency key in it: how a later attempt recognises it. */
const documentName = (filename: string, idempotencyKey: string) =>
  `${filename.replace(/\.pdf$/i, '')}-${idempotencyKey}.pdf`;
