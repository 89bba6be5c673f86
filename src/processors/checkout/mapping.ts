import { z } from 'zod';
import { closedStates, type DisputeState } from '../../domain/states.js';
import type { kinds, ProcessorResolution, Reason } from '../../domain/vocabulary.js';
import { momentOf } from '../dates.js';
import { type NetworkSpellings, networkReader, reported } from '../network-names.js';
import { networkReason } from '../network-reasons.js';
import { normalizedDispute } from '../normalized.js';
import type { EvidenceLimits, NormalizedDispute } from '../types.js';

/**
 * Checkout.com's dispute object in this service's vocabulary, as data. Sources: the API reference
 * (github.com/checkout/checkout-api-reference, nas_spec/components/schemas/Disputes/*), the disputes
 * guide (https://www.checkout.com/docs/risk-management/disputes/disputes-api) and the Dashboard's status
 * table (https://www.checkout.com/docs/dashboard/disputes).
 */

type Kind = (typeof kinds)[number];

export const checkoutStatuses = [
  'evidence_required',
  'evidence_under_review',
  'resolved',
  'won',
  'lost',
  'canceled',
  'expired',
  'accepted',
  'arbitration_under_review',
  'arbitration_won',
  'arbitration_lost',
] as const;
export type CheckoutStatus = (typeof checkoutStatuses)[number];

/**
 * Each status with the state it reports and the kind of dispute it shows. Checkout.com has no separate
 * pre-arbitration object: a dispute that goes on past the first chargeback cycle to the scheme's
 * arbitration only changes status (`arbitration_*`). That later cycle is what this service calls
 * `pre_arbitration`, so those statuses report that kind; every other status is a chargeback (Checkout.com
 * has no retrieval or inquiry kind).
 */
export const statusTable: Record<CheckoutStatus, { state: DisputeState; kind: Kind }> = {
  evidence_required: { state: 'needs_response', kind: 'chargeback' },
  evidence_under_review: { state: 'under_review', kind: 'chargeback' },
  // "We automatically resolve the dispute because it was already refunded" (Dashboard docs);
  // `resolved_reason` refines it (resolvedReasonStates).
  resolved: { state: 'charge_refunded', kind: 'chargeback' },
  won: { state: 'won', kind: 'chargeback' },
  lost: { state: 'lost', kind: 'chargeback' },
  // The issuer withdrew the dispute and the amount was credited back: the merchant keeps the money.
  canceled: { state: 'won', kind: 'chargeback' },
  // Nobody answered in time: the dispute stands against the merchant.
  expired: { state: 'lost', kind: 'chargeback' },
  // The merchant conceded. This service's own `accepted` is service-local (the client asked to accept);
  // what the processor reports is the outcome of accepting: the money stays with the cardholder.
  accepted: { state: 'lost', kind: 'chargeback' },
  arbitration_under_review: { state: 'under_review', kind: 'pre_arbitration' },
  arbitration_won: { state: 'won', kind: 'pre_arbitration' },
  arbitration_lost: { state: 'lost', kind: 'pre_arbitration' },
};

/** Why Checkout.com resolved a dispute itself, for `status: resolved`. */
export const resolvedReasonStates: Record<string, DisputeState> = {
  already_refunded: 'charge_refunded',
  // Visa Rapid Dispute Resolution accepts liability and refunds the customer before a chargeback
  // (https://www.checkout.com/docs/payments/process-disputes/pre-dispute-resolution).
  rapid_dispute_resolution: 'charge_refunded',
  // A dispute against a credit (a refund or payout): nothing was taken from the merchant.
  negative_amount: 'won',
};

/** Checkout.com's `category` in this service's reasons (docs/architecture.md, "Checkout.com"). */
export const categoryReasons: Record<string, Reason> = {
  fraudulent: 'fraudulent',
  unrecognized: 'unrecognized',
  canceled_recurring: 'subscription_canceled',
  product_service_not_received: 'product_not_received',
  not_as_described: 'product_unacceptable',
  credit_not_issued: 'credit_not_processed',
  duplicate: 'duplicate',
  incorrect_amount: 'transaction_amount_differs',
  general: 'general',
};

/**
 * The disputed payment's method (`payment_method` in the list's summary, `payment.method` in the full
 * object): the card scheme's name, in Checkout.com's spelling (`Visa`, `Mastercard`, `Amex`, ...).
 */
export const paymentMethods: NetworkSpellings = {
  Visa: 'visa',
  Mastercard: 'mastercard',
  Maestro: 'mastercard',
  Amex: 'amex',
  'American Express': 'amex',
  Discover: 'discover',
  JCB: 'jcb',
  'China UnionPay': 'unionpay',
  UnionPay: 'unionpay',
  Diners: 'diners',
  'Diners Club': 'diners',
  'Diners Club International': 'diners',
};
const networkOf = networkReader(paymentMethods);

const dateTime = z.string().refine((value) => !Number.isNaN(Date.parse(value)), 'not a date-time');

/**
 * A dispute as `GET /disputes` (DisputeSummary: flat `payment_id`, `payment_method`) or
 * `GET /disputes/{id}` (Dispute: a nested `payment`, and `resolved_reason`) answers it. The reference
 * warns that categories change over time, so an unknown one is read, not refused; an unknown status is
 * refused, since no state can be guessed for it.
 */
export const checkoutDispute = z.object({
  id: z.string().min(1),
  category: z.string().nullish(),
  status: z.enum(checkoutStatuses),
  resolved_reason: z.string().nullish(),
  amount: z.number().int(),
  currency: z.string().regex(/^[A-Za-z]{3}$/),
  reason_code: z.string().nullish(),
  payment_id: z.string().nullish(),
  payment_method: z.string().nullish(),
  payment: z.object({ id: z.string().nullish(), method: z.string().nullish() }).nullish(),
  evidence_required_by: dateTime.nullish(),
  received_on: dateTime.nullish(),
  last_update: dateTime,
});
export type CheckoutDispute = z.infer<typeof checkoutDispute>;

export function stateOf(dispute: Pick<CheckoutDispute, 'status' | 'resolved_reason'>): DisputeState {
  const reason = dispute.resolved_reason;
  if (dispute.status === 'resolved' && reason && Object.hasOwn(resolvedReasonStates, reason)) {
    return resolvedReasonStates[reason] as DisputeState;
  }
  return statusTable[dispute.status].state;
}

/**
 * The category decides; where it says only `general` (or is one this table does not know yet), the
 * scheme's own reason code may say more (Visa `13.1`, Mastercard `4853`).
 */
export function reasonOf(
  category: string | null | undefined,
  reasonCode: string | null | undefined,
  scheme: string | null | undefined,
): Reason {
  const fromCategory =
    category && Object.hasOwn(categoryReasons, category) ? categoryReasons[category] : undefined;
  if (fromCategory && fromCategory !== 'general') return fromCategory;
  return networkReason(reasonCode, networkOf(scheme));
}

/**
 * The pre-dispute program that resolved the dispute: `rdr` for a dispute resolved by Visa Rapid Dispute
 * Resolution (docs/api.md, "The dispute object"); its state stays `charge_refunded`.
 */
export function resolutionOf(
  dispute: Pick<CheckoutDispute, 'status' | 'resolved_reason'>,
): ProcessorResolution | null {
  return dispute.status === 'resolved' && dispute.resolved_reason === 'rapid_dispute_resolution'
    ? 'rdr'
    : null;
}

/** True for disputes whose `resolved_reason` only the full object carries (the list's summary lacks it). */
export const needsDetail = (dispute: CheckoutDispute): boolean =>
  dispute.status === 'resolved' && !dispute.resolved_reason;

export function normalizeDispute(dispute: CheckoutDispute): NormalizedDispute {
  const state = stateOf(dispute);
  const scheme = dispute.payment_method ?? dispute.payment?.method;
  return normalizedDispute({
    id: dispute.id,
    state,
    reason: reasonOf(dispute.category, dispute.reason_code, scheme),
    kind: statusTable[dispute.status].kind,
    // Only the full object carries the payment's `processed_on`; the list's summary does not. Both
    // answers must agree, or every poll would undo what a push's fetch wrote.
    chargedAt: null,
    disputedAt: momentOf(dispute.received_on),
    dueBy: momentOf(dispute.evidence_required_by),
    // Checkout.com publishes no closing date: the last update of a decided dispute is its decision.
    closedAt: closedStates.includes(state) ? new Date(dispute.last_update) : null,
    charge: dispute.payment_id ?? dispute.payment?.id ?? null,
    // Already in minor units of the currency's own exponent (JPY 0, BHD 3). Disputes against credits come
    // negative ("positive or negative depending on the type of transaction"); the disputed sum is its size.
    amount: Math.abs(dispute.amount),
    currency: dispute.currency.toLowerCase(),
    // Both answers carry these three, so a poll and a push's fetch agree on them.
    network: networkOf(scheme),
    networkReasonCode: reported(dispute.reason_code),
    processorStatus: dispute.status,
    resolution: resolutionOf(dispute),
  });
}

/** "Each text field is ≤ 500 characters" (ProvideEvidenceRequest). */
export const maxEvidenceText = 500;

/**
 * What Checkout.com takes as dispute evidence (docs/api.md, "Files"), from its API reference
 * (ProvideEvidenceRequest, `POST /files`):
 * - slots: each category to the evidence pair whose `*_file` fits it (the pairing evidence.ts uses for the
 *   texts of the same names). Each field takes one file id, so several files of one field are sent merged
 *   into one PDF. `additional_evidence_file` holds the response document, which shows what has no slot:
 *   `access_activity_log` (no field is an activity log), `uncategorized`, and nothing maps to
 *   `recurring_transaction_agreement_file` or `proof_of_delivery_or_service_date_file`;
 * - types and size: "JPEG/JPG, PNG or PDF format, and be no larger than 4MB" a file;
 * - no total and no page limit of the API's own: Checkout.com publishes the schemes' requirements
 *   ("Dispute evidence file requirements"), which differ by scheme (Mastercard: 14.5 MB in all, a fee
 *   for each page over 19; Amex: 25 MB) and are not refused by the API;
 * - text: every text field, whatever evidence it carries, at most 500 characters.
 */
export const checkoutEvidenceLimits: EvidenceLimits = {
  slots: {
    receipt: 'invoice_or_receipt_file',
    shipping_documentation: 'proof_of_delivery_or_service_file',
    service_documentation: 'proof_of_delivery_or_service_file',
    customer_communication: 'customer_communication_file',
    customer_signature: 'customer_communication_file',
    refund_policy: 'refund_or_cancellation_policy_file',
    cancellation_policy: 'refund_or_cancellation_policy_file',
    duplicate_charge_documentation: 'invoice_showing_distinct_transactions_file',
  },
  types: ['pdf', 'png', 'jpg'],
  maxFileBytes: 4 * 1024 * 1024,
  maxTotalBytes: null,
  maxPages: null,
  textLimits: { '*': maxEvidenceText },
};

/** The field of the response document, which carries everything the other fields do not. */
export const documentField = 'additional_evidence_file';
