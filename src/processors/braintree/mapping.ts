import { z } from 'zod';
import { decimalToMinorUnits } from '../../domain/money.js';
import { closedStates, type DisputeState } from '../../domain/states.js';
import type { kinds, ProcessorResolution, Reason } from '../../domain/vocabulary.js';
import { momentOf, startOfDay } from '../dates.js';
import { type NetworkSpellings, networkReader, reported } from '../network-names.js';
import { normalizedDispute } from '../normalized.js';
import type { EvidenceLimits, NormalizedDispute } from '../types.js';
import type { XmlValue } from './xml.js';

/**
 * Braintree's dispute object (gateway API, XML) in this service's vocabulary. Sources:
 * https://developer.paypal.com/braintree/docs/reference/response/dispute/ and the SDKs' Dispute classes
 * (braintree_ruby `dispute.rb`, braintree_python `dispute.py`), whose values are the lower-case forms the
 * XML carries (the GraphQL API spells the same values upper-case).
 */

export const braintreeStatuses = [
  'open',
  'disputed',
  'under_review',
  'accepted',
  'auto_accepted',
  'expired',
  'won',
  'lost',
] as const;
export type BraintreeStatus = (typeof braintreeStatuses)[number];

export const braintreeKinds = ['chargeback', 'pre_arbitration', 'retrieval'] as const;
export type BraintreeKind = (typeof braintreeKinds)[number];

/**
 * Status → state, for disputes and for retrievals (requests for information, this service's warning_*
 * states). Only processor-decided states (never `submitted` or `accepted`, which are this service's own):
 * - DISPUTED (the merchant finalized its evidence; the bank decides) and UNDER_REVIEW (PayPal reviews it
 *   internally) are both `under_review`;
 * - ACCEPTED and AUTO_ACCEPTED (Braintree accepts on the merchant's behalf once the reply-by date passes)
 *   and EXPIRED all leave the funds with the cardholder: `lost`. A dispute accepted through this service
 *   shows `accepted` here until Braintree's own ACCEPTED arrives and decides it as `lost`;
 * - a retrieval never moves funds: any decided status closes it (`warning_closed`).
 */
export const statusStates: Record<BraintreeStatus, { dispute: DisputeState; retrieval: DisputeState }> = {
  open: { dispute: 'needs_response', retrieval: 'warning_needs_response' },
  disputed: { dispute: 'under_review', retrieval: 'warning_under_review' },
  under_review: { dispute: 'under_review', retrieval: 'warning_under_review' },
  accepted: { dispute: 'lost', retrieval: 'warning_closed' },
  auto_accepted: { dispute: 'lost', retrieval: 'warning_closed' },
  expired: { dispute: 'lost', retrieval: 'warning_closed' },
  won: { dispute: 'won', retrieval: 'warning_closed' },
  lost: { dispute: 'lost', retrieval: 'warning_closed' },
};

/** Braintree's reasons (docs/architecture.md, "Braintree"); one it adds later is `general`, as networks' unknown codes. */
export const reasonTable: Record<string, Reason> = {
  cancelled_recurring_transaction: 'subscription_canceled',
  credit_not_processed: 'credit_not_processed',
  duplicate: 'duplicate',
  fraud: 'fraudulent',
  general: 'general',
  invalid_account: 'incorrect_account_details',
  not_recognized: 'unrecognized',
  product_not_received: 'product_not_received',
  product_unsatisfactory: 'product_unacceptable',
  retrieval: 'retrieved',
  transaction_amount_differs: 'transaction_amount_differs',
};

/**
 * The disputed transaction's `payment-instrument-subtype`: the card type as Braintree names card types
 * (the SDKs' CreditCard::CardType: `Visa`, `MasterCard`, `American Express`, ...). Maestro cards are
 * Mastercard's and follow its chargeback rules. Other instruments (a PayPal account) and card types of
 * no listed network have none.
 */
export const cardTypes: NetworkSpellings = {
  Visa: 'visa',
  MasterCard: 'mastercard',
  Maestro: 'mastercard',
  'UK Maestro': 'mastercard',
  'American Express': 'amex',
  Discover: 'discover',
  JCB: 'jcb',
  'China UnionPay': 'unionpay',
  'Diners Club': 'diners',
};
const networkOf = networkReader(cardTypes);

export const kindTable: Record<BraintreeKind, (typeof kinds)[number]> = {
  chargeback: 'chargeback',
  pre_arbitration: 'pre_arbitration',
  retrieval: 'retrieval',
};

const datePattern = /^\d{4}-\d{2}-\d{2}$/;
const decimalPattern = /^-?\d+(\.\d+)?$/;

const lowerCase = (value: unknown) => (typeof value === 'string' ? value.toLowerCase() : value);
/** A list element: `type="array"` reads as a list already; a bare single child is a list of one. */
export const list = <Item extends z.ZodType>(item: Item) =>
  z.preprocess((value) => (value == null ? [] : Array.isArray(value) ? value : [value]), z.array(item));
const text = z.string();
const date = z.string().regex(datePattern, 'must be a date (YYYY-MM-DD)');
const moment = z.string().refine((value) => !Number.isNaN(Date.parse(value)), 'must be a date and time');
const decimal = z.string().regex(decimalPattern, 'must be a decimal amount');

const statusEvent = z.object({
  status: z.preprocess(lowerCase, z.string()).nullish(),
  timestamp: moment.nullish(),
  'effective-date': date.nullish(),
});

/** One piece of evidence: text evidence has `comments`, file evidence a `url` naming the file uploaded. */
export const braintreeEvidence = z.object({
  id: text,
  comments: text.nullish(),
  url: text.nullish(),
  'created-at': moment.nullish(),
  'sent-to-processor-at': text.nullish(),
  category: text.nullish(),
  /** Groups categorized evidence of one prior transaction (CE 3.0: compelling-evidence.ts). */
  'sequence-number': z
    .union([text, z.number()])
    .nullish()
    .transform((value) => (value === null || value === undefined ? null : String(value))),
});
export type BraintreeEvidence = z.infer<typeof braintreeEvidence>;

export const braintreeDispute = z
  .object({
    id: text.min(1),
    status: z.preprocess(lowerCase, z.enum(braintreeStatuses)),
    // Disputes from before Braintree added kinds carry none; they were chargebacks.
    kind: z.preprocess(lowerCase, z.enum(braintreeKinds)).nullish(),
    reason: z.preprocess(lowerCase, text).nullish(),
    /** The card network's own code (`83`, `10.4`, `4837`), beside Braintree's reason. */
    'reason-code': text.nullish(),
    'amount-disputed': decimal.nullish(),
    amount: decimal.nullish(),
    'currency-iso-code': z.string().regex(/^[A-Za-z]{3}$/, 'must be a currency code'),
    'received-date': date.nullish(),
    'reply-by-date': date.nullish(),
    'created-at': moment.nullish(),
    'updated-at': moment.nullish(),
    'date-won': date.nullish(),
    /** `none` or `visa_rdr` (the SDKs' Dispute::PreDisputeProgram; GraphQL PreDisputeProgram NONE, VISA_RDR). */
    'pre-dispute-program': z.preprocess(lowerCase, text).nullish(),
    'status-history': list(statusEvent).nullish(),
    evidence: list(braintreeEvidence).nullish(),
    transaction: z
      .object({
        id: text.nullish(),
        'created-at': moment.nullish(),
        'payment-instrument-subtype': text.nullish(),
      })
      .nullish(),
  })
  .superRefine((dispute, context) => {
    const amount = dispute['amount-disputed'] ?? dispute.amount;
    if (amount != null && decimalToMinorUnits(amount, dispute['currency-iso-code']) === undefined) {
      context.addIssue({
        code: 'custom',
        path: ['amount-disputed'],
        message: `${amount} is not an amount in ${dispute['currency-iso-code']}`,
      });
    }
  });
export type BraintreeDispute = z.infer<typeof braintreeDispute>;

/** Reads a parsed `<dispute>` element; throws the schema's error on one we cannot read. */
export function readDispute(value: XmlValue): BraintreeDispute {
  return braintreeDispute.parse(value);
}

export function stateOf(status: BraintreeStatus, kind: BraintreeKind): DisputeState {
  const states = statusStates[status];
  return kind === 'retrieval' ? states.retrieval : states.dispute;
}

export function reasonOf(reason: string | null | undefined): Reason {
  return (reason && Object.hasOwn(reasonTable, reason) ? reasonTable[reason] : undefined) ?? 'general';
}

export function toNormalizedDispute(dispute: BraintreeDispute): NormalizedDispute {
  const kind = dispute.kind ?? 'chargeback';
  const state = stateOf(dispute.status, kind);
  const currency = dispute['currency-iso-code'];
  const amount = dispute['amount-disputed'] ?? dispute.amount;
  return normalizedDispute({
    id: dispute.id,
    state,
    reason: reasonOf(dispute.reason),
    kind: kindTable[kind],
    chargedAt: momentOf(dispute.transaction?.['created-at']),
    disputedAt: startOfDay(dispute['received-date']) ?? momentOf(dispute['created-at']),
    dueBy: startOfDay(dispute['reply-by-date']),
    closedAt: closedStates.includes(state) ? closedAt(dispute) : null,
    charge: dispute.transaction?.id ?? null,
    amount: amount == null ? null : (decimalToMinorUnits(amount, currency) ?? null),
    currency: currency.toLowerCase(),
    network: networkOf(dispute.transaction?.['payment-instrument-subtype']),
    networkReasonCode: reported(dispute['reason-code']),
    // The status as the gateway's XML spells it (`open`, `disputed`, ...): its own word, lower-case.
    processorStatus: dispute.status,
    resolution: resolutionOf(dispute),
  });
}

/**
 * `rdr` for a dispute of Visa's Rapid Dispute Resolution program (`pre-dispute-program` `visa_rdr`):
 * Braintree accepts it on the merchant's behalf, refunding the cardholder before a chargeback (its
 * `dispute_auto_accepted` webhook), so the state stays the `lost` of an accepted dispute (docs/api.md,
 * "The dispute object").
 */
export function resolutionOf(
  dispute: Pick<BraintreeDispute, 'pre-dispute-program'>,
): ProcessorResolution | null {
  return dispute['pre-dispute-program'] === 'visa_rdr' ? 'rdr' : null;
}

/**
 * When the dispute reached its current status: the latest status-history event of that status (its
 * timestamp, else its effective date), else the dispute's last update. The history is documented as the
 * dispute's status changes; disputes from before it existed fall back on `updated-at` and `date-won`.
 */
function closedAt(dispute: BraintreeDispute): Date | null {
  const reached = (dispute['status-history'] ?? [])
    .filter((event) => event.status === dispute.status)
    .map((event) => momentOf(event.timestamp) ?? startOfDay(event['effective-date']))
    .filter((at): at is Date => at !== null)
    .sort((a, b) => b.getTime() - a.getTime());
  return reached[0] ?? momentOf(dispute['updated-at']) ?? startOfDay(dispute['date-won']);
}

/**
 * What Braintree takes as file evidence (docs/architecture.md, "Braintree"): any file, uploaded as a
 * document (png, jpg or pdf of at most 4 MB: Document Upload: Create) and attached with one of
 * Braintree's file evidence categories (Dispute: Add File Evidence, "Valid file evidence categories").
 * A category is named where one of Braintree's says the same thing; the rest are GENERAL, which
 * Braintree takes for any reason. Braintree documents no limit on a submission's total, nor the page
 * limit behind its "file is too long" refusal (error 84905), nor the length of text evidence.
 */
export const evidenceLimits: EvidenceLimits = {
  slots: {
    receipt: 'GENERAL',
    shipping_documentation: 'PROOF_OF_DELIVERY',
    customer_communication: 'GENERAL',
    customer_signature: 'GENERAL',
    refund_policy: 'GENERAL',
    cancellation_policy: 'GENERAL',
    service_documentation: 'GENERAL',
    duplicate_charge_documentation: 'GENERAL',
    access_activity_log: 'MERCHANT_WEBSITE_OR_APP_ACCESS',
    uncategorized: 'GENERAL',
  },
  types: ['pdf', 'png', 'jpg'],
  maxFileBytes: 4 * 1024 * 1024,
  maxTotalBytes: null,
  maxPages: null,
  textLimits: {},
};
