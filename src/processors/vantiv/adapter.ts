import { z } from 'zod';
import { type AdapterContext, credentialProblem, openHttp, readCredentials } from '../connection.js';
import { shiftDay, utcDay } from '../dates.js';
import type { ProcessorHttp } from '../http.js';
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
  type SubmitEvidenceRequest,
  type SubmitEvidenceResult,
} from '../types.js';
import { uploadDocuments } from './documents.js';
import { documentIdFor, fileDocumentId, noteFor } from './evidence.js';
import {
  activityKey,
  answeredWith,
  type ChargebackCase,
  evidenceLimits,
  kindOf,
  latestActivity,
  merchantAnswers,
  normalizeCase,
  queueMeaning,
  stateOf,
} from './mapping.js';
import { mediaType, readXml, retrievalResponse, updateRequestXml, updateResponse } from './xml.js';

/**
 * Vantiv (Worldpay eComm) through its Chargeback API v2 (docs/architecture.md, "Vantiv"): XML over HTTPS, HTTP
 * Basic authentication, production or sandbox host by the account's mode.
 *
 * Credentials (the JSON document given to `account connect`):
 * - `username`, `password`: the Chargeback API user Worldpay issues;
 * - `merchant_id`: the Vantiv merchant whose cases the account holds. One user may reach several
 *   merchants; only this one's cases are mirrored and answered.
 *
 * Listing: the API has no paging and no "changed since"; it lists the cases waiting on the merchant
 * (`GET /chargebacks/?actionable=true`) and the cases with activity on a given day (`?date=`). A first
 * poll reads the waiting cases (however old), then every day from 30 days back; later polls go on day by
 * day. A page is one listing, or a part of one that holds more than a page, in descending case id order,
 * resumed below the last id read. A poll ends at today's page and leaves the cursor on yesterday: today's
 * activity keeps growing, and Vantiv dates activities on its own US calendar, which runs up to a day
 * behind UTC, so the last two days are read on every poll. Each listing returns cases whole, as they are
 * now, so reading one again is harmless.
 *
 * Submission: each evidence file (each a document of the case: `evidenceLimits` in mapping.ts) and the
 * response PDF are uploaded under names derived from the idempotency key (documents.ts), then the case
 * is represented (`MERCHANT_REPRESENT`; `MERCHANT_RESPOND` for a retrieval request) with a note that
 * names that document. Vantiv takes no idempotency key and represents a case only once (the case then
 * leaves the Merchant queue), so each submission reads the case first: a represent whose note names our
 * document is our earlier attempt, whose answer was lost, and is success; a case answered otherwise is
 * refused without asking Vantiv. Reads may be sent again by the HTTP layer; the upload and the represent
 * are sent once, and a lost answer reaches the submission, which is retried whole and reads the case again.
 */
const processor = 'vantiv';
const hosts = { live: 'https://services.vantivcnp.com', test: 'https://www.testvantivcnp.com/sandbox' };
/** The most disputes the mirror takes in one page (features/mirroring/write.ts): a longer listing is read in parts. */
const partSize = 1000;
/**
 * How far back a first poll reads activity days, after the cases waiting on the merchant. The networks give
 * merchants about 30 days to answer a chargeback (Vantiv's replyByDay comes sooner still), so older days
 * hold cases that can no longer be answered, and reading them, one call a day, would only fetch history.
 */
const firstPollDays = 30;

const credentialsSchema = z.object({
  username: z.string().min(1),
  password: z.string().min(1),
  merchant_id: z
    .union([z.string().regex(/^\d+$/, 'digits'), z.number().int().nonnegative()])
    .transform(String),
});

const dayText = z.string().regex(/^\d{4}-\d{2}-\d{2}$/);
const caseIdText = z.string().regex(/^\d+$/);
/**
 * Where a poll stands: `open`, the cases waiting on the merchant (first polls only), or one activity `day`;
 * `below`, the last case id read when the listing runs over several pages. Read in descending id order and
 * resumed below that id, a listing skips none of the cases it had: a case joining it meanwhile has
 * activity today, and today is read again at the end of every poll.
 */
const cursorSchema = z.union([
  z.object({ open: z.literal(true), below: caseIdText.optional() }),
  z.object({ day: dayText, below: caseIdText.optional() }),
]);
type Cursor = z.infer<typeof cursorSchema>;

export class VantivAdapter implements ProcessorAdapter {
  readonly name = processor;
  readonly evidenceLimits: EvidenceLimits = evidenceLimits;
  readonly capabilities: Capabilities = {
    list: true,
    get: true,
    submit: 'api',
    fileUpload: true,
    accept: true,
    // Only the Chargeback API is ever called: a user limited to it serves every capability.
    readOnly: true,
    pastPayments: false,
    push: false,
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

  /** One listing, or part of one; `limit` is outgrown by a day's cases, read by one call. */
  async listDisputes({ connection, cursor }: ListDisputesRequest): Promise<DisputePage> {
    const { http, merchantId } = this.#open(connection);
    const now = new Date();
    const today = utcDay(now);
    const from = readCursor(cursor) ?? { open: true };
    // A cursor ahead of today (the clock moved back) reads today.
    const at: Cursor = 'day' in from && from.day > today ? { day: today } : from;
    const answer = await http.send({
      method: 'GET',
      path: 'chargebacks/',
      searchParams: 'day' in at ? { date: at.day } : { actionable: 'true' },
      idempotent: true,
    });
    const cases = readXml(http, answer, retrievalResponse)
      .chargebackRetrievalResponse.chargebackCase.filter(
        (found) =>
          ofMerchant(found, merchantId) && (at.below === undefined || compareIds(found.caseId, at.below) < 0),
      )
      .sort((a, b) => compareIds(b.caseId, a.caseId));
    const page = cases.slice(0, partSize);
    const last = page.at(-1);
    const next: Cursor | null =
      cases.length > partSize && last
        ? { ...at, below: last.caseId }
        : !('day' in at)
          ? { day: shiftDay(today, -firstPollDays) }
          : at.day < today
            ? { day: shiftDay(at.day, 1) }
            : null;
    return {
      disputes: page.map((found) => normalizeCase(found, now)),
      nextCursor: JSON.stringify(next ?? { day: shiftDay(today, -1) }),
      hasMore: next !== null,
    };
  }

  async getDispute({ connection, id }: GetDisputeRequest): Promise<NormalizedDispute | null> {
    const { http, merchantId } = this.#open(connection);
    // Case ids are numbers (xs:long): anything else names no case.
    if (!/^\d+$/.test(id)) return null;
    const found = await fetchCase(http, id);
    return found && ofMerchant(found, merchantId) ? normalizeCase(found, new Date()) : null;
  }

  async submitEvidence({
    connection,
    dispute,
    response,
    files,
    idempotencyKey,
  }: SubmitEvidenceRequest): Promise<SubmitEvidenceResult> {
    const { pdf } = response.document;
    // Each file is a document of its own: none merged.
    const slotted = [...slottedFiles(evidenceLimits, files).values()].flat();
    const sent = [...slotted.map(sentAttached), sentDocument(response.document)];
    checkEvidenceLimits(processor, evidenceLimits, sent);
    const { http, merchantId } = this.#open(connection);
    const documentId = documentIdFor(idempotencyKey);
    const chargebackCase = await caseToAnswer(http, dispute.id, merchantId);
    if (answeredWith(chargebackCase, documentId)) return { reference: documentId };
    refuseUnanswerable(chargebackCase);
    await uploadDocuments(http, chargebackCase, { idempotencyKey, pdf, files: slotted, sent });
    const retrieval = kindOf(chargebackCase.cycle) === 'retrieval';
    await update(http, chargebackCase.caseId, {
      activityType: retrieval ? 'MERCHANT_RESPOND' : 'MERCHANT_REPRESENT',
      note: noteFor(
        documentId,
        response.evidence,
        slotted.map((file) => ({ documentId: fileDocumentId(idempotencyKey, file), file })),
      ),
    });
    return { reference: documentId };
  }

  /** Moves the case to the Merchant Assumed queue; a case already there is left as it is. */
  async acceptDispute({ connection, dispute, idempotencyKey }: AcceptDisputeRequest): Promise<void> {
    const { http, merchantId } = this.#open(connection);
    const chargebackCase = await caseToAnswer(http, dispute.id, merchantId);
    const latest = merchantAnswers[activityKey(latestActivity(chargebackCase)?.activityType ?? '')];
    if (latest === 'accepted' || queueMeaning(chargebackCase.currentQueue) === 'merchant_liable') return;
    refuseUnanswerable(chargebackCase);
    await update(http, chargebackCase.caseId, {
      activityType: 'MERCHANT_ACCEPTS_LIABILITY',
      note: `Liability accepted through Rebuttal (${idempotencyKey}).`,
    });
  }

  #open(connection: ProcessorConnection) {
    const credentials = readCredentials(processor, credentialsSchema, connection);
    const basic = Buffer.from(`${credentials.username}:${credentials.password}`).toString('base64');
    const http = openHttp(this.#context, connection, {
      processor,
      hosts,
      // Vantiv publishes no rate limit for the Chargeback API; five a second stays well clear of abuse.
      perSecond: 5,
      headers: { authorization: `Basic ${basic}`, accept: mediaType },
    });
    return { http, merchantId: credentials.merchant_id };
  }
}

/** The case, or null when Vantiv knows none by that id (404, "Could not find requested object."). */
async function fetchCase(http: ProcessorHttp, caseId: string): Promise<ChargebackCase | null> {
  const answer = await http.send({
    method: 'GET',
    path: `chargebacks/${caseId}`,
    answers: [404],
    idempotent: true,
  });
  if (answer.status === 404) return null;
  const { chargebackCase } = readXml(http, answer, retrievalResponse).chargebackRetrievalResponse;
  return chargebackCase.find((found) => found.caseId === caseId) ?? null;
}

/** The case a submission or an acceptance is about, read afresh; a case of another merchant is refused. */
async function caseToAnswer(
  http: ProcessorHttp,
  caseId: string,
  merchantId: string,
): Promise<ChargebackCase> {
  const found = /^\d+$/.test(caseId) ? await fetchCase(http, caseId) : null;
  if (!found) {
    throw new ProcessorError(processor, `Vantiv knows no chargeback case ${caseId}.`, {
      retryable: false,
      status: 404,
    });
  }
  if (!ofMerchant(found, merchantId)) {
    throw new ProcessorError(processor, `Case ${caseId} is not a case of merchant ${merchantId}.`, {
      retryable: false,
    });
  }
  return found;
}

/** Only a case waiting on the merchant can be answered; Vantiv refuses the rest, so it is not asked. */
function refuseUnanswerable(chargebackCase: ChargebackCase): void {
  const state = stateOf(chargebackCase, utcDay(new Date()));
  // Past its reply-by day a case in the Merchant queue is Vantiv's to refuse or still take.
  const answerable = ['needs_response', 'warning_needs_response', 'response_disabled'].includes(state);
  if (answerable) return;
  throw new ProcessorError(
    processor,
    `Case ${chargebackCase.caseId} can no longer be answered: it is in the ${chargebackCase.currentQueue ?? 'unknown'} queue (${state}).`,
    { retryable: false },
  );
}

async function update(
  http: ProcessorHttp,
  caseId: string,
  request: { activityType: string; note: string },
): Promise<void> {
  const answer = await http.send({
    method: 'PUT',
    path: `chargebacks/${caseId}`,
    headers: { 'content-type': mediaType },
    body: updateRequestXml(request),
  });
  readXml(http, answer, updateResponse);
}

/** A case without a merchantId is the user's to see; one of another merchant is not this account's. */
function ofMerchant(chargebackCase: ChargebackCase, merchantId: string): boolean {
  const owner = chargebackCase.merchantId;
  return owner === undefined || owner.replace(/^0+/, '') === merchantId.replace(/^0+/, '');
}

/** Case ids (xs:long, as text) in numeric order. */
function compareIds(a: string, b: string): number {
  return a.length - b.length || (a < b ? -1 : a > b ? 1 : 0);
}

/** A cursor this adapter cannot read (none, or an older form) starts over: pages read again are harmless. */
function readCursor(cursor: string | null): Cursor | null {
  if (cursor === null) return null;
  try {
    const checked = cursorSchema.safeParse(JSON.parse(cursor));
    return checked.success ? checked.data : null;
  } catch {
    return null;
  }
}
