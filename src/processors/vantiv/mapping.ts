import { z } from 'zod';
import { closedStates, type DisputeState } from '../../domain/states.js';
import type { kinds } from '../../domain/vocabulary.js';
import { startOfDay, utcDay } from '../dates.js';
import { folded, foldKeys } from '../folded-names.js';
import { type NetworkSpellings, networkReader, reported } from '../network-names.js';
import { networkReason } from '../network-reasons.js';
import { normalizedDispute } from '../normalized.js';
import type { EvidenceLimits, NormalizedDispute } from '../types.js';

/**
 * Vantiv (Worldpay eComm) chargeback cases in this service's vocabulary. Vantiv has no dispute status: a
 * case has a cycle (where it is in the network's life cycle), a queue (who holds it now) and a history of
 * activities, and the state is read from those three (docs/architecture.md, "Vantiv"). Field names follow the
 * Chargeback API schema (chargeback-api-v2.1.xsd in github.com/Vantiv/cnp-chargeback-sdk-python); queue
 * and cycle names follow the iQ Dispute Inbox field definitions
 * (support.worldpay.com/support/iq-reporting-and-analytics-user-guide/content/inbox_and_case_history_t.htm).
 */

type Kind = (typeof kinds)[number];

/** What a queue says about who must act next. */
export type QueueMeaning =
  /** The merchant must represent or accept. */
  | 'merchant'
  /** Vantiv, the network or the issuer is working the case. */
  | 'processing'
  /** The merchant bears the chargeback: accepted, or ruled against. */
  | 'merchant_liable'
  /** Someone else absorbed the chargeback: the merchant keeps the funds. */
  | 'merchant_relieved';

export const queueMeanings: Record<string, QueueMeaning> = {
  Merchant: 'merchant',
  'Merchant Automated': 'merchant',
  Vantiv: 'processing',
  'Vantiv Outgoing': 'processing',
  'Vantiv Error': 'processing',
  'PayPal Hold - Represent': 'processing',
  'Merchant Arbitrate': 'processing',
  'Pre-Arbitrate': 'processing',
  Arbitrate: 'processing',
  'Decision Pending': 'processing',
  'Merchant Assumed': 'merchant_liable',
  'PayPal Hold - Assume': 'merchant_liable',
  // The network's final ruling. A ruling for the merchant comes back as a Chargeback Reversal cycle
  // (read before the queue), so a case that reaches it still in a chargeback cycle was ruled against.
  'Decision Final': 'merchant_liable',
  'Vantiv Assumed': 'merchant_relieved',
  'Network Assumed': 'merchant_relieved',
};

/** Cycles as the API spells them (the SDKs' certification tests) and as iQ lists them. */
export const cycleKinds: Record<string, Kind> = {
  Retrieval: 'retrieval',
  'Retrieval Request': 'retrieval',
  'First Chargeback': 'chargeback',
  Representment: 'chargeback',
  'Chargeback Reversal': 'chargeback',
  'Pre-Arbitration': 'pre_arbitration',
  'VISA Pre-Arbitration/Arbitration': 'pre_arbitration',
  'Issuer Declined Pre-Arbitration': 'pre_arbitration',
  'Arbitration Chargeback': 'pre_arbitration',
  Arbitration: 'pre_arbitration',
};

/** The issuer withdrew its chargeback: the funds went back to the merchant. */
export const reversalCycles: ReadonlySet<string> = new Set(['chargeback reversal']);

/**
 * The merchant's own answers among a case's activities. The API takes them as enum values
 * (MERCHANT_REPRESENT) and reports them in words ("Merchant Represent", in the SDKs' certification tests);
 * both are read through activityKey().
 */
export type MerchantAnswer = 'represented' | 'responded' | 'accepted';

export const merchantAnswers: Record<string, MerchantAnswer> = {
  MERCHANT_REPRESENT: 'represented',
  MERCHANT_REQUESTS_ARBITRATION: 'represented',
  MERCHANT_RESPOND: 'responded',
  MERCHANT_ACCEPTS_LIABILITY: 'accepted',
};

/** "Merchant Represent" and MERCHANT_REPRESENT alike: the enum form. */
export function activityKey(activityType: string): string {
  return activityType
    .trim()
    .toUpperCase()
    .replace(/[^A-Z0-9]+/g, '_');
}

const queuesByName = foldKeys(queueMeanings);
const cyclesByName = foldKeys(cycleKinds);

/** A queue iQ does not list is someone else's work in progress: nothing for the merchant to do yet. */
export function queueMeaning(queue: string | undefined): QueueMeaning {
  return queuesByName.get(folded(queue ?? '')) ?? 'processing';
}

/** A cycle not in the table is read by its words, so a renamed cycle keeps its kind. */
export function kindOf(cycle: string | undefined): Kind {
  const name = folded(cycle ?? '');
  const known = cyclesByName.get(name);
  if (known) return known;
  if (name.includes('retrieval')) return 'retrieval';
  if (name.includes('arb')) return 'pre_arbitration';
  return 'chargeback';
}

/**
 * A case's `cardType`: the method of payment codes of Vantiv's APIs (`VI`, `MC`, `AX`, `DI`, `JC`, `DC`;
 * the SDKs' tests show `MC`), or the network spelled out, as some answers and the iQ screens give it.
 */
export const cardTypes: NetworkSpellings = {
  VI: 'visa',
  Visa: 'visa',
  MC: 'mastercard',
  Mastercard: 'mastercard',
  AX: 'amex',
  Amex: 'amex',
  'American Express': 'amex',
  DI: 'discover',
  Discover: 'discover',
  JC: 'jcb',
  JCB: 'jcb',
  DC: 'diners',
  Diners: 'diners',
  'Diners Club': 'diners',
};
export const networkOf = networkReader(cardTypes);

const day = z.string().regex(/^\d{4}-\d{2}-\d{2}/, 'a date (YYYY-MM-DD)');
const long = z.string().regex(/^-?\d+$/, 'a whole number');
/** Elements are optional in the schema and empty elements (`<cycle/>`) read as ''; both mean absent. */
const optional = <Schema extends z.ZodType>(schema: Schema) =>
  z.preprocess((value) => (value === '' ? undefined : value), schema.optional());

export const activitySchema = z.object({
  activityDate: optional(day),
  activityType: optional(z.string()),
  fromQueue: optional(z.string()),
  toQueue: optional(z.string()),
  settlementAmount: optional(long),
  notes: optional(z.string()),
});
export type Activity = z.infer<typeof activitySchema>;

/** chargebackApiCase: the fields this service reads (the XML parser keeps every value as text). */
export const caseSchema = z.object({
  caseId: long,
  merchantId: optional(long),
  dayIssuedByBank: optional(day),
  dateReceivedByVantivCnp: optional(day),
  vantivCnpTxnId: optional(long),
  cycle: optional(z.string()),
  cardType: optional(z.string()),
  chargebackAmount: optional(long.refine((value) => Number.isSafeInteger(Number(value)), 'a safe integer')),
  chargebackCurrencyType: optional(z.string().regex(/^[A-Za-z]{3}$/, 'an ISO currency code')),
  originalTxnDay: optional(day),
  reasonCode: optional(z.string()),
  currentQueue: optional(z.string()),
  customerId: optional(z.string()),
  replyByDay: optional(day),
  activity: z.array(activitySchema).default([]),
});
export type ChargebackCase = z.infer<typeof caseSchema>;

/**
 * The case's most recent activity. Activities are dated by day only; the API lists them newest first (the
 * Python SDK's certification tests read `activity[0]` as the one just performed), so among activities of
 * the latest day the first listed is the latest.
 */
export function latestActivity(chargebackCase: ChargebackCase): Activity | undefined {
  let latest: Activity | undefined;
  for (const activity of chargebackCase.activity) {
    if (!latest || (activity.activityDate ?? '') > (latest.activityDate ?? '')) latest = activity;
  }
  return latest;
}

/** Whether one of the case's activities is the merchant's answer carrying `marker` in its note. */
export function answeredWith(chargebackCase: ChargebackCase, marker: string): boolean {
  return chargebackCase.activity.some((activity) => {
    const answer = merchantAnswers[activityKey(activity.activityType ?? '')];
    return (answer === 'represented' || answer === 'responded') && (activity.notes ?? '').includes(marker);
  });
}

/**
 * The state of a case on `today` (UTC), in order: a reversed chargeback is won; a queue that settles who
 * bears the chargeback decides; then the merchant's latest answer; then whether the merchant must act.
 * MERCHANT_ACCEPTS_LIABILITY reads as lost: `accepted` is this service's own state (the merchant's
 * decision recorded here), while what Vantiv reports is its outcome, the chargeback standing.
 */
export function stateOf(chargebackCase: ChargebackCase, today: string): DisputeState {
  const retrieval = kindOf(chargebackCase.cycle) === 'retrieval';
  if (reversalCycles.has(folded(chargebackCase.cycle ?? ''))) return 'won';
  const queue = queueMeaning(chargebackCase.currentQueue);
  // A retrieval request moves no money: however it ends, it ends as a closed warning.
  if (queue === 'merchant_liable') return retrieval ? 'warning_closed' : 'lost';
  if (queue === 'merchant_relieved') return retrieval ? 'warning_closed' : 'won';
  const latest = latestActivity(chargebackCase);
  const answer = merchantAnswers[activityKey(latest?.activityType ?? '')];
  if (answer === 'accepted') return retrieval ? 'warning_closed' : 'lost';
  if (answer === 'represented' || answer === 'responded') {
    return retrieval ? 'warning_under_review' : 'under_review';
  }
  if (queue === 'merchant') {
    const replyBy = chargebackCase.replyByDay?.slice(0, 10);
    if (replyBy !== undefined && replyBy < today) return 'response_disabled';
    return retrieval ? 'warning_needs_response' : 'needs_response';
  }
  return retrieval ? 'warning_under_review' : 'under_review';
}

/** The case as this service's dispute, on `now`. Amounts are already minor units (xs:long). */
export function normalizeCase(chargebackCase: ChargebackCase, now: Date): NormalizedDispute {
  const state = stateOf(chargebackCase, utcDay(now));
  const closedOn = latestActivity(chargebackCase)?.activityDate ?? chargebackCase.dateReceivedByVantivCnp;
  return normalizedDispute({
    id: chargebackCase.caseId,
    state,
    reason: networkReason(chargebackCase.reasonCode, networkOf(chargebackCase.cardType)),
    kind: kindOf(chargebackCase.cycle),
    chargedAt: startOfDay(chargebackCase.originalTxnDay),
    disputedAt: startOfDay(chargebackCase.dayIssuedByBank ?? chargebackCase.dateReceivedByVantivCnp),
    dueBy: startOfDay(chargebackCase.replyByDay),
    closedAt: closedStates.includes(state) ? startOfDay(closedOn) : null,
    charge: chargebackCase.vantivCnpTxnId ?? null,
    amount: chargebackCase.chargebackAmount === undefined ? null : Number(chargebackCase.chargebackAmount),
    currency: chargebackCase.chargebackCurrencyType?.toLowerCase() ?? null,
    customer: chargebackCase.customerId ?? null,
    network: networkOf(chargebackCase.cardType),
    networkReasonCode: reported(chargebackCase.reasonCode),
    // Vantiv has no status: the queue that holds the case ("Merchant", "Network Assumed") is its word.
    processorStatus: reported(chargebackCase.currentQueue),
  });
}

/**
 * responseCode of the document calls (chargebackDocumentUploadResponse), as the SDKs' certification tests
 * show them. They come with HTTP 200; every code but 000 is a refusal that sending again will not change.
 * 005 stands both for "Document already exists" and for a file over the size limit ("Filesize exceeds
 * limit of 1MB" in the sandbox), so it is told apart by listing the case's documents.
 */
export const documentCodes = {
  '000': 'Success',
  '004': 'Case Not In Merchant Queue',
  '005': 'Document already exists',
  '008': 'Max Document Limit Per Case Reached',
  '010': 'Case not in valid cycle',
  '012': 'File size over limit',
} as const;

/** Vantiv keeps a case's documents without categories: every evidence file is one of them. */
const caseDocument = 'document';

/**
 * What the document API takes (iQ guide, "Working with support documentation"; docs/architecture.md,
 * "Vantiv"): gif, jpg, pdf, png or tif files, each its own document of the case, at most 2 MB each (1 MB
 * on an Amex case: `amexMaxFileBytes`) and 10 MB for the case, 50 documents (more than a submission
 * carries). Vantiv converts documents to TIFF and documents no page limit, but for Mastercard retrieval
 * responses (4 pages), which depends on the network and the cycle: not checked. Text goes in the
 * represent's note, whose 4,000 characters evidence.ts keeps to; no evidence field has a limit of its own.
 */
export const evidenceLimits: EvidenceLimits = {
  slots: {
    receipt: caseDocument,
    shipping_documentation: caseDocument,
    customer_communication: caseDocument,
    customer_signature: caseDocument,
    refund_policy: caseDocument,
    cancellation_policy: caseDocument,
    service_documentation: caseDocument,
    duplicate_charge_documentation: caseDocument,
    access_activity_log: caseDocument,
    uncategorized: caseDocument,
  },
  types: ['pdf', 'png', 'jpg'],
  maxFileBytes: 2 * 1024 * 1024,
  maxTotalBytes: 10 * 1024 * 1024,
  maxPages: null,
  textLimits: {},
};

/** The largest document on a case of an Amex card (iQ guide). */
export const amexMaxFileBytes = 1024 * 1024;
