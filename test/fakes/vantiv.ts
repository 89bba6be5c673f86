import { XMLBuilder, XMLParser } from 'fast-xml-parser';
import type { ContractFake } from '../helpers/adapter-contract.js';
import type { NetworkFacts } from '../helpers/contract-calls.js';
import { basicCredentials, type FakeReply, type FakeRequest, FakeServer } from './harness.js';

/**
 * A fake of Vantiv's (Worldpay eComm) Chargeback API v2, modelled on the schema and the behaviour the
 * official SDKs' tests show (github.com/Vantiv/cnp-chargeback-sdk-python, -java, -dotNet):
 * - HTTP Basic authentication; a wrong user or password is a 401 with an errorResponse;
 * - `GET /chargebacks/?date=YYYY-MM-DD`: every case with an activity on that day, whole, activities
 *   newest first; no paging; `?actionable=true`: every case in the Merchant queue; `GET /chargebacks/{caseId}`: one case, or 404 "Could not find requested
 *   object."; both want `Accept: application/com.vantivcnp.services-v2+xml`;
 * - `PUT /chargebacks/{caseId}`: a chargebackUpdateRequest; an activity the case's queue does not allow is
 *   a 400 "Cannot perform activity <…> for case <…> in queue <…>"; a represent or respond moves the case
 *   from the Merchant queue to Vantiv's, an acceptance to Merchant Assumed; each is a new activity today,
 *   reported in words ("Merchant Represent");
 * - the document API under `/services/chargebacks/`: `upload/{caseId}/{documentId}` takes the raw file and
 *   answers 200 with a responseCode (000 success; 004 not in the Merchant queue; 005 document already
 *   exists, or file over the size limit; 008 too many documents; 010 not in a valid cycle; 012 for a
 *   case whose documents would pass 10 MB, a limit the iQ guide gives without its code), and
 *   `list/{caseId}` names the case's documents.
 * The response document of a represent is the one its note's first line names (as this service writes
 * it, src/processors/vantiv/evidence.ts); every other document of the case is an evidence file.
 * Cases arrive with an "Assign To Merchant" activity on their day; a batch spreads over the last few days.
 */

const mediaType = 'application/com.vantivcnp.services-v2+xml';
const namespace = 'http://www.vantivcnp.com/chargebacks';
const fileTypes = new Set(['application/pdf', 'image/gif', 'image/jpeg', 'image/png', 'image/tiff']);

export interface FakeActivity {
  activityDate: string;
  activityType: string;
  fromQueue?: string;
  toQueue?: string;
  settlementAmount?: number;
  notes?: string;
}

/** A case as chargeback-api-v2.1.xsd names its fields, in the schema's order. */
export interface FakeCase {
  caseId: string;
  merchantId: string;
  dayIssuedByBank?: string;
  dateReceivedByVantivCnp?: string;
  vantivCnpTxnId?: string;
  cycle: string;
  orderId?: string;
  cardNumberLast4?: string;
  cardType?: string;
  chargebackAmount?: number;
  chargebackCurrencyType?: string;
  originalTxnDay?: string;
  chargebackType?: string;
  reasonCode?: string;
  reasonCodeDescription?: string;
  currentQueue: string;
  acquirerReferenceNumber?: string;
  customerId?: string;
  replyByDay?: string;
  /** Newest first. */
  activity: FakeActivity[];
}

export interface VantivFakeOptions {
  username?: string;
  password?: string;
  /** The merchant new disputes belong to. Default 1288791. */
  merchantId?: string;
  /** Days a batch of added disputes spreads over, ending today. Default 5. */
  spreadDays?: number;
  /** The largest document taken. Default 2 MB (iQ guide; the sandbox says 1 MB). */
  maxDocumentBytes?: number;
  /** Documents per case. Default 50. */
  maxDocuments?: number;
}

/** The most a case's documents weigh together (iQ guide). */
const maxCaseBytes = 10 * 1024 * 1024;

const activityNames: Record<string, string> = {
  ASSIGN_TO_USER: 'Assign To User',
  ADD_NOTE: 'Add Note',
  MERCHANT_ACCEPTS_LIABILITY: 'Merchant Accepts Liability',
  MERCHANT_REPRESENT: 'Merchant Represent',
  MERCHANT_RESPOND: 'Merchant Respond',
  MERCHANT_REQUESTS_ARBITRATION: 'Merchant Requests Arbitration',
};

/**
 * The networks a batch of disputes rotates through, with a reason code of each: `cardType` as the
 * method of payment codes the SDKs' tests show (`MC`), and the network each is here.
 */
const networks = [
  { cardType: 'VI', reasonCode: '13.1', description: 'Merchandise/Services Not Received', network: 'visa' },
  { cardType: 'MC', reasonCode: '4853', description: 'Cardholder Dispute', network: 'mastercard' },
  { cardType: 'AX', reasonCode: 'F29', description: 'Card Not Present', network: 'amex' },
  {
    cardType: 'VI',
    reasonCode: '10.4',
    description: 'Other Fraud - Card Absent Environment',
    network: 'visa',
  },
  {
    cardType: 'DI',
    reasonCode: 'UA02',
    description: 'Fraud Card Not Present Transaction',
    network: 'discover',
  },
] as const;

const parser = new XMLParser({ ignoreAttributes: true, removeNSPrefix: true, parseTagValue: false });
const builder = new XMLBuilder({ ignoreAttributes: false, attributeNamePrefix: '@_' });

export const today = () => new Date().toISOString().slice(0, 10);

export function addDays(day: string, days: number): string {
  const moment = new Date(`${day}T00:00:00.000Z`);
  moment.setUTCDate(moment.getUTCDate() + days);
  return moment.toISOString().slice(0, 10);
}

function xmlReply(
  status: number,
  root: string,
  content: object,
  headers: Record<string, string> = {},
): FakeReply {
  return {
    status,
    headers: { 'content-type': mediaType, ...headers },
    body: builder.build({
      '?xml': { '@_version': '1.0', '@_encoding': 'UTF-8', '@_standalone': 'yes' },
      [root]: { '@_xmlns': namespace, ...content },
    }),
  };
}

export const errorReply = (status: number, message: string, headers: Record<string, string> = {}) =>
  xmlReply(status, 'errorResponse', { errors: { error: [message] } }, headers);

const withoutUndefined = (value: object) =>
  Object.fromEntries(Object.entries(value).filter(([, inner]) => inner !== undefined));

export class VantivFake implements ContractFake {
  readonly server: FakeServer;
  readonly cases = new Map<string, FakeCase>();
  /** Documents by case, by documentId. */
  readonly documents = new Map<string, Map<string, Buffer>>();
  /** The query of every case listing asked for (`date=…`, `actionable=true`), in order. */
  readonly listings: string[] = [];
  /** Every chargebackUpdateRequest taken, in order. */
  readonly updates: { caseId: string; activityType: string; note: string | undefined }[] = [];
  readonly #byDay = new Map<string, Set<string>>();
  readonly #submissions = new Map<string, { count: number; text: string; files: Buffer[] }>();
  readonly #accepted = new Set<string>();
  readonly #username: string;
  readonly #password: string;
  readonly #merchantId: string;
  readonly #spreadDays: number;
  readonly #maxDocumentBytes: number;
  readonly #maxDocuments: number;
  #sequence = 0;
  #transactions = 82_000_000_000;

  constructor(options: VantivFakeOptions = {}) {
    this.#username = options.username ?? 'rebuttal-user';
    this.#password = options.password ?? 's3cret-password';
    this.#merchantId = options.merchantId ?? '1288791';
    this.#spreadDays = options.spreadDays ?? 5;
    this.#maxDocumentBytes = options.maxDocumentBytes ?? 2 * 1024 * 1024;
    this.#maxDocuments = options.maxDocuments ?? 50;
    this.server = new FakeServer(
      (request) => this.#handle(request),
      (status, message) => errorReply(status, message),
    );
  }

  /** Chargebacks in the Merchant queue, the i-th of the batch arriving i days ago (modulo the spread). */
  addDisputes(count: number): string[] {
    return Array.from({ length: count }, (_, index) => {
      const network = networks[this.#sequence % networks.length] ?? networks[0];
      return this.addCase({
        day: addDays(today(), -(index % this.#spreadDays)),
        cardType: network.cardType,
        reasonCode: network.reasonCode,
        reasonCodeDescription: network.description,
      }).caseId;
    });
  }

  /** A case arriving on `day` (default today) in the Merchant queue, with any field overridden. */
  addCase(overrides: Partial<FakeCase> & { day?: string } = {}): FakeCase {
    const { day = today(), ...fields } = overrides;
    this.#sequence += 1;
    const caseId = `${this.#merchantId}${String(this.#sequence).padStart(6, '0')}`;
    const chargebackCase: FakeCase = {
      caseId,
      merchantId: this.#merchantId,
      dayIssuedByBank: addDays(day, -2),
      dateReceivedByVantivCnp: day,
      vantivCnpTxnId: String(82_000_000_000_000 + this.#sequence),
      cycle: 'First Chargeback',
      orderId: `order-${this.#sequence}`,
      cardNumberLast4: '0001',
      cardType: 'VISA',
      chargebackAmount: 1000 + this.#sequence * 7,
      chargebackCurrencyType: 'USD',
      originalTxnDay: addDays(day, -20),
      chargebackType: 'D',
      reasonCode: '13.1',
      reasonCodeDescription: 'Merchandise/Services Not Received',
      currentQueue: 'Merchant',
      acquirerReferenceNumber: String(74_000_000_000 + this.#sequence),
      replyByDay: addDays(day, 30),
      activity: [],
      ...fields,
    };
    this.cases.set(caseId, chargebackCase);
    if (chargebackCase.activity.length === 0) {
      this.addActivity(caseId, {
        activityDate: day,
        activityType: 'Assign To Merchant',
        fromQueue: 'Vantiv',
        toQueue: chargebackCase.currentQueue,
        notes: 'Please work this case',
      });
    } else {
      for (const activity of chargebackCase.activity) this.#index(activity.activityDate, caseId);
    }
    return chargebackCase;
  }

  /** A new activity, newest first; one with a toQueue moves the case there. */
  addActivity(caseId: string, activity: FakeActivity): void {
    const chargebackCase = this.#case(caseId);
    chargebackCase.activity.unshift(activity);
    if (activity.toQueue) chargebackCase.currentQueue = activity.toQueue;
    this.#index(activity.activityDate, caseId);
  }

  move(id: string, to: 'under_review' | 'won' | 'lost'): void {
    const chargebackCase = this.#case(id);
    const fromQueue = chargebackCase.currentQueue;
    if (to === 'under_review') {
      // The merchant answered in iQ, outside this service.
      this.addActivity(id, {
        activityDate: today(),
        activityType: 'Merchant Represent',
        fromQueue,
        toQueue: 'Vantiv',
        notes: 'Represented in iQ',
      });
    } else if (to === 'won') {
      chargebackCase.cycle = 'Chargeback Reversal';
      this.addActivity(id, {
        activityDate: today(),
        activityType: 'Chargeback Reversal',
        fromQueue,
        toQueue: 'Decision Final',
        settlementAmount: chargebackCase.chargebackAmount,
      });
    } else {
      this.addActivity(id, {
        activityDate: today(),
        activityType: 'Network Decision',
        fromQueue,
        toQueue: 'Decision Final',
      });
    }
  }

  submissionCount(id: string): number {
    return this.#submissions.get(id)?.count ?? 0;
  }

  submitted(id: string): { text: string; files: Buffer[] } | undefined {
    return this.#submissions.get(id);
  }

  accepted(id: string): boolean {
    return this.#accepted.has(id);
  }

  /** The case's card type and code as it holds them; the queue holding it is its status. */
  reported(id: string): NetworkFacts {
    const found = this.cases.get(id) as FakeCase;
    return {
      network: networks.find((network) => network.cardType === found.cardType)?.network ?? null,
      networkReasonCode: found.reasonCode ?? null,
      processorStatus: found.currentQueue,
    };
  }

  /** The case's documents but its represent's response document: the evidence files, each a document. */
  slotted(id: string): { slot: string; bytes: Buffer }[] {
    const response = this.#responseDocument(id);
    return [...(this.documents.get(id) ?? new Map<string, Buffer>())]
      .filter(([documentId]) => documentId !== response)
      .map(([, bytes]) => ({ slot: 'document', bytes }));
  }

  /** Documents the cases hold (an id a case holds is refused again with 005, so never twice). */
  uploadCount(): number {
    return [...this.documents.values()].reduce((count, documents) => count + documents.size, 0);
  }

  #responseDocument(caseId: string): string | undefined {
    const note = this.updates.find((update) => update.caseId === caseId && update.note)?.note ?? '';
    return /^Rebuttal response document: (\S+)/.exec(note)?.[1];
  }

  close(): Promise<void> {
    return this.server.close();
  }

  #case(caseId: string): FakeCase {
    const found = this.cases.get(caseId);
    if (!found) throw new Error(`the fake holds no case ${caseId}`);
    return found;
  }

  #index(day: string, caseId: string): void {
    const ids = this.#byDay.get(day) ?? new Set<string>();
    ids.add(caseId);
    this.#byDay.set(day, ids);
  }

  #handle(request: FakeRequest): FakeReply {
    const user = basicCredentials(request);
    if (user?.user !== this.#username || user.password !== this.#password) {
      return errorReply(401, 'Unauthorized', { 'www-authenticate': 'Basic realm="Chargeback API"' });
    }
    const { method, path } = request;
    const retrieval = /^\/chargebacks\/?$/.exec(path);
    const one = /^\/chargebacks\/(\d+)$/.exec(path);
    const upload = /^\/services\/chargebacks\/upload\/(\d+)\/([^/]+)$/.exec(path);
    const list = /^\/services\/chargebacks\/list\/(\d+)$/.exec(path);
    if ((retrieval || one || list) && request.headers.accept !== mediaType) {
      return errorReply(406, `Accept must be ${mediaType}`);
    }
    if (retrieval && method === 'GET') return this.#retrieve(request.query);
    if (one?.[1] && method === 'GET') {
      const found = this.cases.get(one[1]);
      return found ? this.#retrievalReply([found]) : errorReply(404, 'Could not find requested object.');
    }
    if (one?.[1] && method === 'PUT') return this.#update(one[1], request);
    if (upload?.[1] && upload[2] && method === 'POST') return this.#upload(upload[1], upload[2], request);
    if (list?.[1] && method === 'GET') return this.#list(list[1]);
    return errorReply(404, 'Could not find requested object.');
  }

  #retrieve(query: URLSearchParams): FakeReply {
    this.listings.push(query.toString());
    if (query.get('actionable') === 'true') {
      return this.#retrievalReply(
        [...this.cases.values()].filter((found) => found.currentQueue === 'Merchant'),
      );
    }
    const date = query.get('date');
    if (!date || !/^\d{4}-\d{2}-\d{2}$/.test(date)) return errorReply(400, 'Invalid date');
    const ids = this.#byDay.get(date) ?? new Set<string>();
    return this.#retrievalReply([...ids].map((id) => this.#case(id)));
  }

  #retrievalReply(cases: FakeCase[]): FakeReply {
    this.#transactions += 1;
    return xmlReply(200, 'chargebackRetrievalResponse', {
      transactionId: this.#transactions,
      chargebackCase: cases.map(({ activity, ...fields }) => ({
        ...withoutUndefined(fields),
        activity: activity.map(withoutUndefined),
      })),
    });
  }

  #update(caseId: string, request: FakeRequest): FakeReply {
    if (request.headers['content-type'] !== mediaType)
      return errorReply(415, `Content-Type must be ${mediaType}`);
    const chargebackCase = this.cases.get(caseId);
    if (!chargebackCase) return errorReply(404, 'Could not find requested object.');
    const parsed = parser.parse(request.body.toString('utf8')) as {
      chargebackUpdateRequest?: { activityType?: string; note?: string };
    };
    const update = parsed.chargebackUpdateRequest;
    const activityName = activityNames[update?.activityType ?? ''];
    if (!update || !activityName) return errorReply(400, 'Invalid chargebackUpdateRequest');
    if ((update.note ?? '').length > 4000) return errorReply(400, 'note is longer than 4000 characters');
    const fromQueue = chargebackCase.currentQueue;
    const toQueue = this.#queueAfter(chargebackCase, update.activityType ?? '');
    if (toQueue === null) {
      return errorReply(
        400,
        `Cannot perform activity <${activityName}> for case <${caseId}> in queue <${fromQueue}>`,
      );
    }
    this.updates.push({ caseId, activityType: update.activityType ?? '', note: update.note });
    this.addActivity(caseId, {
      activityDate: today(),
      activityType: activityName,
      fromQueue,
      ...(toQueue !== fromQueue && { toQueue }),
      ...(update.note !== undefined && { notes: update.note }),
    });
    if (update.activityType === 'MERCHANT_REPRESENT' || update.activityType === 'MERCHANT_RESPOND') {
      const files = [...(this.documents.get(caseId)?.values() ?? [])];
      const count = this.submissionCount(caseId) + 1;
      this.#submissions.set(caseId, { count, text: update.note ?? '', files });
    }
    if (update.activityType === 'MERCHANT_ACCEPTS_LIABILITY') this.#accepted.add(caseId);
    this.#transactions += 1;
    return xmlReply(200, 'chargebackUpdateResponse', { transactionId: this.#transactions });
  }

  /** The queue an activity moves the case to, or null when its queue does not allow it. */
  #queueAfter(chargebackCase: FakeCase, activityType: string): string | null {
    const queue = chargebackCase.currentQueue;
    const retrieval = /retrieval/i.test(chargebackCase.cycle);
    switch (activityType) {
      case 'ADD_NOTE':
      case 'ASSIGN_TO_USER':
        return queue;
      case 'MERCHANT_REPRESENT':
        return queue === 'Merchant' && !retrieval ? 'Vantiv' : null;
      case 'MERCHANT_RESPOND':
        return queue === 'Merchant' && retrieval ? 'Vantiv' : null;
      case 'MERCHANT_ACCEPTS_LIABILITY':
        return queue === 'Merchant' ? 'Merchant Assumed' : null;
      case 'MERCHANT_REQUESTS_ARBITRATION':
        return queue === 'Merchant' && /arb/i.test(chargebackCase.cycle) ? 'Merchant Arbitrate' : null;
      default:
        return null;
    }
  }

  #documentReply(caseId: string, code: string, message: string, documentIds: string[] = []): FakeReply {
    return xmlReply(200, 'chargebackDocumentUploadResponse', {
      merchantId: this.cases.get(caseId)?.merchantId ?? this.#merchantId,
      caseId,
      documentId: documentIds,
      responseCode: code,
      responseMessage: message,
    });
  }

  #upload(caseId: string, documentId: string, request: FakeRequest): FakeReply {
    const chargebackCase = this.cases.get(caseId);
    if (!chargebackCase) return errorReply(404, 'Could not find requested object.');
    if (!fileTypes.has(request.headers['content-type'] ?? ''))
      return errorReply(400, 'Unsupported file type');
    if (chargebackCase.currentQueue !== 'Merchant') {
      return this.#documentReply(caseId, '004', 'Case Not In Merchant Queue');
    }
    if (chargebackCase.cycle === 'Chargeback Reversal') {
      return this.#documentReply(caseId, '010', 'Case not in valid cycle');
    }
    const documents = this.documents.get(caseId) ?? new Map<string, Buffer>();
    if (documents.has(documentId)) return this.#documentReply(caseId, '005', 'Document already exists');
    if (request.body.length > this.#maxDocumentBytes) {
      return this.#documentReply(caseId, '005', 'Filesize exceeds limit of 2MB');
    }
    if (documents.size >= this.#maxDocuments) {
      return this.#documentReply(caseId, '008', 'Max Document Limit Per Case Reached');
    }
    const held = [...documents.values()].reduce((sum, document) => sum + document.length, 0);
    if (held + request.body.length > maxCaseBytes) {
      return this.#documentReply(caseId, '012', 'Documents exceed the case limit of 10MB');
    }
    documents.set(documentId, request.body);
    this.documents.set(caseId, documents);
    return this.#documentReply(caseId, '000', 'Success', [documentId]);
  }

  #list(caseId: string): FakeReply {
    const chargebackCase = this.cases.get(caseId);
    if (!chargebackCase) return errorReply(404, 'Could not find requested object.');
    if (chargebackCase.currentQueue !== 'Merchant') {
      return this.#documentReply(caseId, '004', 'Case Not In Merchant Queue');
    }
    return this.#documentReply(caseId, '000', 'Success', [...(this.documents.get(caseId)?.keys() ?? [])]);
  }
}

export async function startVantivFake(options: VantivFakeOptions = {}): Promise<VantivFake> {
  const fake = new VantivFake(options);
  await fake.server.start();
  return fake;
}
