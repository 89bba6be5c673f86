import { z } from 'zod';
import type { DisputeState } from '../../domain/states.js';
import type { checks, kinds, Reason } from '../../domain/vocabulary.js';
import { type NetworkSpellings, networkReader, reported } from '../network-names.js';
import type { EvidenceLimits, NormalizedDispute } from '../types.js';

/**
 * Stripe's dispute object in this service's vocabulary: the status, reason and kind tables as data, the
 * zod schemas of what the adapter reads (disputes, charges, events, lists), and the one function that
 * turns a dispute into a NormalizedDispute. Sources: docs.stripe.com/api/disputes/object,
 * docs.stripe.com/disputes/categories, docs.stripe.com/api/charges/object.
 */

type Kind = (typeof kinds)[number];
type Check = (typeof checks)[number];

/**
 * Dispute statuses (docs.stripe.com/api/disputes/object#dispute_object-status). `charge_refunded` is
 * legacy (older API versions); `prevented` (2025-08-27.basil, docs.stripe.com/changelog/basil/2025-08-27/
 * add-preventions-to-dispute) is a dispute stopped before it became a chargeback (Visa RDR): nothing can
 * be answered and no funds move, as a closed inquiry.
 */
export const stripeStatuses = {
  warning_needs_response: 'warning_needs_response',
  warning_under_review: 'warning_under_review',
  warning_closed: 'warning_closed',
  needs_response: 'needs_response',
  under_review: 'under_review',
  won: 'won',
  lost: 'lost',
  charge_refunded: 'charge_refunded',
  prevented: 'warning_closed',
} as const satisfies Record<string, DisputeState>;
export type StripeStatus = keyof typeof stripeStatuses;

/**
 * Stripe has no kind field: inquiries and retrievals are the `warning_*` statuses (no funds withdrawn,
 * docs.stripe.com/disputes, "Inquiries and retrievals"); everything else is a chargeback. Pre-arbitration
 * is not modelled in Stripe's API.
 */
export const stripeKinds: Record<StripeStatus, Kind> = {
  warning_needs_response: 'retrieval',
  warning_under_review: 'retrieval',
  warning_closed: 'retrieval',
  needs_response: 'chargeback',
  under_review: 'chargeback',
  won: 'chargeback',
  lost: 'chargeback',
  charge_refunded: 'chargeback',
  prevented: 'chargeback',
};

/** Statuses in which Stripe takes evidence (and a close); any other refuses both. */
export const awaitingResponse: readonly StripeStatus[] = ['needs_response', 'warning_needs_response'];

/**
 * Stripe's reason categories (docs.stripe.com/disputes/categories). `check_returned` is a returned
 * check or debit for want of funds; `noncompliant` is a network-rules (compliance) case with no reason
 * of ours. A category Stripe adds later reads as `general`: the dispute is still mirrored and answerable.
 */
export const stripeReasons: Record<string, Reason> = {
  bank_cannot_process: 'bank_cannot_process',
  check_returned: 'insufficient_funds',
  credit_not_processed: 'credit_not_processed',
  customer_initiated: 'customer_initiated',
  debit_not_authorized: 'debit_not_authorized',
  duplicate: 'duplicate',
  fraudulent: 'fraudulent',
  general: 'general',
  incorrect_account_details: 'incorrect_account_details',
  insufficient_funds: 'insufficient_funds',
  noncompliant: 'general',
  product_not_received: 'product_not_received',
  product_unacceptable: 'product_unacceptable',
  subscription_canceled: 'subscription_canceled',
  unrecognized: 'unrecognized',
};

export const reasonOf = (reason: string): Reason =>
  Object.hasOwn(stripeReasons, reason) ? (stripeReasons[reason] as Reason) : 'general';

/**
 * `payment_method_details.card.brand` (docs.stripe.com/api/disputes/object): `amex`, `cartes_bancaires`,
 * `diners`, `discover`, `eftpos_au`, `jcb`, `link`, `mastercard`, `unionpay`, `visa` or `unknown`. The
 * brands that are not one of the seven networks (and disputes of other payment methods) have none.
 */
export const stripeBrands: NetworkSpellings = {
  visa: 'visa',
  mastercard: 'mastercard',
  amex: 'amex',
  discover: 'discover',
  jcb: 'jcb',
  unionpay: 'unionpay',
  diners: 'diners',
};
const networkOf = networkReader(stripeBrands);

/**
 * Stripe's text evidence fields (docs.stripe.com/api/disputes/update#update_dispute-evidence), with the
 * cap Stripe documents for the longer ones ("Has a maximum character count of 20,000"); null where it
 * documents none of the field's own. The file fields take file ids (stripeEvidenceLimits).
 */
export const textEvidenceFields: Readonly<Record<string, number | null>> = {
  access_activity_log: 20_000,
  billing_address: null,
  cancellation_policy_disclosure: 20_000,
  cancellation_rebuttal: 20_000,
  customer_email_address: null,
  customer_name: null,
  customer_purchase_ip: null,
  duplicate_charge_explanation: 20_000,
  duplicate_charge_id: null,
  product_description: 20_000,
  refund_policy_disclosure: 20_000,
  refund_refusal_explanation: 20_000,
  service_date: null,
  shipping_address: null,
  shipping_carrier: null,
  shipping_date: null,
  shipping_tracking_number: null,
  uncategorized_text: 20_000,
};

/** "The combined character count of all fields is limited to 150,000" (the update's `evidence`). */
export const combinedTextLimit = 150_000;

/**
 * What Stripe takes as dispute evidence (docs/api.md, "Files"):
 * - slots: each category with an evidence file field of the same name takes its files there (one file id
 *   a field: several files are sent merged into one PDF); `access_activity_log` and `uncategorized` have
 *   no file field (`access_activity_log` is a text field), so they are shown in the response document,
 *   which is the `uncategorized_file`;
 * - types and size: `dispute_evidence` uploads are PDF, JPEG or PNG of at most 5 MB
 *   (docs.stripe.com/file-upload, the purposes table);
 * - no total and no page limit: the stored documentation gives none for the API version pinned here
 *   (2025-08-27.basil). From 2026-09-30 Stripe refuses evidence whose estimated page count exceeds the card
 *   network's limit (`dispute_evidence_page_limit_exceeded`, docs.stripe.com/changelog/endive/2026-09-30/
 *   page-limit-validation-dispute-evidence), a number it does not publish;
 * - text: the fields' own caps; a field with none is bounded by the combined 150,000 only, and evidence
 *   of any other name goes into `uncategorized_text`, 20,000 (evidence.ts).
 */
export const stripeEvidenceLimits: EvidenceLimits = {
  slots: {
    receipt: 'receipt',
    shipping_documentation: 'shipping_documentation',
    customer_communication: 'customer_communication',
    customer_signature: 'customer_signature',
    refund_policy: 'refund_policy',
    cancellation_policy: 'cancellation_policy',
    service_documentation: 'service_documentation',
    duplicate_charge_documentation: 'duplicate_charge_documentation',
  },
  types: ['pdf', 'png', 'jpg'],
  maxFileBytes: 5 * 1024 * 1024,
  maxTotalBytes: null,
  maxPages: null,
  textLimits: {
    ...Object.fromEntries(
      Object.entries(textEvidenceFields).map(([field, limit]) => [field, limit ?? combinedTextLimit]),
    ),
    '*': textEvidenceFields.uncategorized_text ?? combinedTextLimit,
  },
};

const checkValues = ['pass', 'fail', 'unavailable', 'unchecked'] as const satisfies readonly Check[];
/** A card check as Stripe reports it; anything else (null, a value Stripe adds later) is unknown. */
const check = z.enum(checkValues).nullable().catch(null);

const unix = z.number().int();
const id = z.string().min(1);
const text = z.string().nullish();

/** What the adapter reads of a Charge (docs.stripe.com/api/charges/object). */
export const stripeCharge = z.object({
  id,
  amount: z.number().int(),
  currency: z.string(),
  created: unix,
  customer: z.union([id, z.object({ id })]).nullish(),
  /** A partly refunded charge is not a clean past payment (stripe/adapter.ts, pastPayments). */
  amount_refunded: z.number().int().nullish(),
  description: text,
  receipt_email: text,
  statement_descriptor: text,
  calculated_statement_descriptor: text,
  billing_details: z
    .object({
      name: text,
      email: text,
      address: z.object({ postal_code: text }).nullish(),
    })
    .nullish(),
  shipping: z
    .object({
      address: z
        .object({
          line1: text,
          line2: text,
          city: text,
          state: text,
          postal_code: text,
          country: text,
        })
        .nullish(),
    })
    .nullish(),
  payment_method_details: z
    .object({
      card: z
        .object({
          fingerprint: text,
          checks: z
            .object({
              address_line1_check: check,
              address_postal_code_check: check,
              cvc_check: check,
            })
            .nullish(),
        })
        .nullish(),
    })
    .nullish(),
});
export type StripeCharge = z.infer<typeof stripeCharge>;

/** A balance transaction of a dispute: the funds withdrawn, and those reinstated when it is won. */
const balanceTransaction = z.object({
  amount: z.number().int(),
  fee: z.number().int(),
  net: z.number().int(),
  currency: z.string(),
  created: unix,
});

/** What the adapter reads of a Dispute (docs.stripe.com/api/disputes/object). */
export const stripeDispute = z.object({
  id,
  object: z.literal('dispute'),
  amount: z.number().int(),
  currency: z.string(),
  created: unix,
  status: z.enum(Object.keys(stripeStatuses) as [StripeStatus, ...StripeStatus[]]),
  reason: z.string(),
  /** The charge's id, or the Charge itself when the call asked to expand it. */
  charge: z.union([id, stripeCharge]).nullish(),
  is_charge_refundable: z.boolean().nullish(),
  balance_transactions: z.array(balanceTransaction).nullish(),
  evidence: z
    .object({
      customer_name: text,
      customer_email_address: text,
      customer_purchase_ip: text,
      uncategorized_file: z.union([id, z.object({ id })]).nullish(),
    })
    .nullish(),
  evidence_details: z
    .object({
      /** 0 (or null) when the issuer allows no response to this dispute. */
      due_by: unix.nullish(),
      submission_count: z.number().int().nullish(),
      /** Stripe's Visa CE 3.0 verdict (API 2024-10-28.acacia on; docs/api.md, "Compelling evidence"). */
      enhanced_eligibility: z
        .object({
          visa_compelling_evidence_3: z.object({ status: z.string().nullish() }).nullish().catch(null),
        })
        .nullish()
        .catch(null),
    })
    .nullish(),
  /** The programs whose enhanced evidence this dispute takes: `visa_compelling_evidence_3`, `visa_compliance`. */
  enhanced_eligibility_types: z.array(z.string()).nullish().catch(null),
  metadata: z.record(z.string(), z.string()).nullish(),
  /** Card disputes only: the card's brand and the network's own reason code (payment_method_details.card). */
  payment_method_details: z
    .object({ card: z.object({ brand: text, network_reason_code: text }).nullish() })
    .nullish(),
});
export type StripeDispute = z.infer<typeof stripeDispute>;

/** A page of a list call (docs.stripe.com/api/pagination). */
export const stripeList = <Item extends z.ZodType>(item: Item) =>
  z.object({ object: z.literal('list'), data: z.array(item), has_more: z.boolean() });

/** A page of a search call (docs.stripe.com/api/charges/search). */
export const stripeSearch = <Item extends z.ZodType>(item: Item) =>
  z.object({ object: z.literal('search_result'), data: z.array(item), has_more: z.boolean() });

/**
 * What the adapter reads of an Event (docs.stripe.com/api/events/object): which dispute changed, and
 * when. The dispute inside is the event's snapshot in the account's API version of that day; the adapter
 * fetches the dispute again instead of reading it.
 */
export const stripeEvent = z.object({
  id,
  type: z.string(),
  created: unix,
  data: z.object({ object: z.object({ id: z.string() }) }),
});
export type StripeEvent = z.infer<typeof stripeEvent>;

/** The charge.dispute.* events: every change to a dispute raises one (docs.stripe.com/api/events/types). */
export const disputeEventTypes = [
  'charge.dispute.created',
  'charge.dispute.updated',
  'charge.dispute.closed',
  'charge.dispute.funds_withdrawn',
  'charge.dispute.funds_reinstated',
] as const;

const closedStatuses: readonly StripeStatus[] = [
  'won',
  'lost',
  'warning_closed',
  'charge_refunded',
  'prevented',
];

const idOf = (value: string | { id: string } | null | undefined) =>
  value === null || value === undefined ? null : typeof value === 'string' ? value : value.id;
const dateOf = (seconds: number) => new Date(seconds * 1000);
const orNull = (value: string | null | undefined) => (value === undefined || value === '' ? null : value);

/**
 * The dispute in this service's terms. Amounts are already integers in the currency's smallest unit
 * (docs.stripe.com/currencies#zero-decimal), so they pass unchanged. The charge's own fields (when it
 * was made, its customer, its card checks) are only there when the call expanded the charge.
 */
export function normalizeDispute(dispute: StripeDispute): NormalizedDispute {
  // An issuer that allows no response makes due_by 0 (docs.stripe.com/api/disputes/object, evidence_details).
  const dueBy = dispute.evidence_details?.due_by ?? 0;
  const responseDisabled = awaitingResponse.includes(dispute.status) && dueBy <= 0;
  const charge = typeof dispute.charge === 'object' ? dispute.charge : null;
  const card = charge?.payment_method_details?.card;
  const transactions = dispute.balance_transactions ?? [];
  // The funds withdrawn: the transaction taking the disputed amount and the dispute fee from the balance.
  const withdrawal = transactions.find((transaction) => transaction.amount < 0);
  return {
    id: dispute.id,
    state: responseDisabled ? 'response_disabled' : stripeStatuses[dispute.status],
    reason: reasonOf(dispute.reason),
    kind: stripeKinds[dispute.status],
    // Resolved by a pre-dispute program (Visa RDR and the like) before it became a chargeback.
    resolution: dispute.status === 'prevented' ? 'rdr' : null,
    compellingEvidenceProcessorStatus: orNull(
      dispute.evidence_details?.enhanced_eligibility?.visa_compelling_evidence_3?.status,
    ),
    chargedAt: charge ? dateOf(charge.created) : null,
    disputedAt: dateOf(dispute.created),
    dueBy: dueBy > 0 ? dateOf(dueBy) : null,
    closedAt: closedStatuses.includes(dispute.status) ? closedAtOf(dispute) : null,
    charge: idOf(dispute.charge),
    isChargeRefundable: dispute.is_charge_refundable ?? null,
    amount: dispute.amount,
    currency: dispute.currency.toLowerCase(),
    fee: withdrawal ? withdrawal.fee : null,
    reversalAmount: withdrawal ? -withdrawal.amount : null,
    reversalTotal: withdrawal ? -withdrawal.net : null,
    reversalCurrency: withdrawal ? withdrawal.currency.toLowerCase() : null,
    customer: idOf(charge?.customer),
    customerName: orNull(dispute.evidence?.customer_name) ?? orNull(charge?.billing_details?.name),
    customerEmail:
      orNull(dispute.evidence?.customer_email_address) ??
      orNull(charge?.billing_details?.email) ??
      orNull(charge?.receipt_email),
    customerPurchaseIp: orNull(dispute.evidence?.customer_purchase_ip),
    addressZip: orNull(charge?.billing_details?.address?.postal_code),
    addressLine1Check: card?.checks?.address_line1_check ?? null,
    addressZipCheck: card?.checks?.address_postal_code_check ?? null,
    cvcCheck: card?.checks?.cvc_check ?? null,
    statementDescriptor:
      orNull(charge?.calculated_statement_descriptor) ?? orNull(charge?.statement_descriptor),
    network: networkOf(dispute.payment_method_details?.card?.brand),
    networkReasonCode: reported(dispute.payment_method_details?.card?.network_reason_code),
    processorStatus: dispute.status,
  };
}

/**
 * Stripe's dispute object records no time of closing. The latest moment it does record is the closest
 * that is the same on every read: for a won dispute the reinstatement of the funds (its second balance
 * transaction), otherwise the withdrawal or, without one, the dispute's creation. It is a lower bound,
 * and stable, so a dispute read again (a poll, a push) is not reported as changed.
 */
function closedAtOf(dispute: StripeDispute): Date {
  let latest = dispute.created;
  for (const transaction of dispute.balance_transactions ?? [])
    latest = Math.max(latest, transaction.created);
  return dateOf(latest);
}
