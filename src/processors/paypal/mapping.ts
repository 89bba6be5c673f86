import { z } from 'zod';
import { decimalToMinorUnits } from '../../domain/money.js';
import { closedStates, type DisputeState } from '../../domain/states.js';
import type { kinds, Reason } from '../../domain/vocabulary.js';
import { momentOf } from '../dates.js';
import { reported } from '../network-names.js';
import { networkReason } from '../network-reasons.js';
import { normalizedDispute } from '../normalized.js';
import type { EvidenceLimits, NormalizedDispute } from '../types.js';

/**
 * PayPal's Disputes API v1 in this service's vocabulary: its status, stage, outcome and reason tables as
 * data, the zod shape of its dispute object, and the one function turning that object into a
 * NormalizedDispute. Source: the official OpenAPI file (github.com/paypal/paypal-rest-api-specifications,
 * openapi/customer_disputes_v1.json) and https://developer.paypal.com/api/customer-disputes/v1/.
 * Mappings marked (recommendation) are judgements, docs/architecture.md, "PayPal".
 */

const mebibyte = 1024 * 1024;

/**
 * What provide-evidence takes (developer.paypal.com/platforms/disputes/reference/supported-file-types-sizes):
 * .jpg/.jpeg/.gif/.png/.pdf files, each under 10 MB, at most 50 MB per call (the response document
 * included). Each category goes in the `evidence_type` that fits it among the OpenAPI `evidence` schema's
 * (the descriptions are PayPal's, from its response-evidence schema); the choice is a judgement
 * (recommendation). PROOF_OF_FULFILLMENT, PROOF_OF_REFUND and PROOF_OF_RETURN are not used: PayPal expects
 * `evidence_info` (tracking numbers, refund ids) with them, which a file is not. Access logs and
 * uncategorized files have no type of their own: they are in the response document, which is sent as
 * OTHER. The notes carry the text, whose whole is in the response document, so no text is lost.
 */
export const paypalEvidenceLimits: EvidenceLimits = {
  slots: {
    // "Copy of original receipt or invoice."
    receipt: 'PROOF_OF_RECEIPT_COPY',
    // "A copy of the actual shipping label on the package that shows the destination address and the
    // carrier's stamp to verify the shipment date."
    shipping_documentation: 'PROOF_OF_SHIPMENT_POSTAGE',
    // "Copy of merchant's response when the resolution was attempted."
    customer_communication: 'MERCHANT_RESPONSE',
    // "Proof of delivery signature."
    customer_signature: 'PROOF_OF_DELIVERY_SIGNATURE',
    // "Copy of terms and conditions, contract or store return policy."
    refund_policy: 'RETURN_POLICY',
    cancellation_policy: 'RETURN_POLICY',
    // "Compelling evidence to prove that the item or service was as described and was delivered."
    service_documentation: 'PROOF_FOR_SOFTWARE_OR_SERVICE_DELIVERED',
    // "Specific details of a purchase made under a particular transaction."
    duplicate_charge_documentation: 'DETAILS_OF_PURCHASE',
  },
  types: ['pdf', 'png', 'jpg'],
  maxFileBytes: 10 * mebibyte - 1,
  maxTotalBytes: 50 * mebibyte,
  maxPages: null,
  textLimits: {},
};

export const paypalStatuses = [
  'OPEN',
  'WAITING_FOR_BUYER_RESPONSE',
  'WAITING_FOR_SELLER_RESPONSE',
  'UNDER_REVIEW',
  'RESOLVED',
  'OTHER',
] as const;
type PaypalStatus = (typeof paypalStatuses)[number];
type OpenStatus = Exclude<PaypalStatus, 'RESOLVED'>;

export const paypalStages = ['INQUIRY', 'CHARGEBACK', 'PRE_ARBITRATION', 'ARBITRATION'] as const;
type PaypalStage = (typeof paypalStages)[number];

export const paypalOutcomes = [
  'RESOLVED_BUYER_FAVOUR',
  'RESOLVED_SELLER_FAVOUR',
  'RESOLVED_WITH_PAYOUT',
  'CANCELED_BY_BUYER',
  'ACCEPTED',
  'DENIED',
  'NONE',
] as const;
type PaypalOutcome = (typeof paypalOutcomes)[number];

export const paypalReasons = [
  'MERCHANDISE_OR_SERVICE_NOT_RECEIVED',
  'MERCHANDISE_OR_SERVICE_NOT_AS_DESCRIBED',
  'UNAUTHORISED',
  'CREDIT_NOT_PROCESSED',
  'DUPLICATE_TRANSACTION',
  'INCORRECT_AMOUNT',
  'PAYMENT_BY_OTHER_MEANS',
  'CANCELED_RECURRING_BILLING',
  'PROBLEM_WITH_REMITTANCE',
  'OTHER',
] as const;
type PaypalReason = (typeof paypalReasons)[number];

/**
 * A dispute still open, by status: for an inquiry (PayPal's buyer-protection inquiry, before any claim or
 * chargeback: no funds have moved, hence the warning_* states) and for every later stage. OTHER is PayPal's
 * catch-all; nothing says the merchant can act, so it reads as under review.
 */
export const openStates: Record<OpenStatus, { inquiry: DisputeState; dispute: DisputeState }> = {
  OPEN: { inquiry: 'warning_needs_response', dispute: 'needs_response' },
  WAITING_FOR_SELLER_RESPONSE: { inquiry: 'warning_needs_response', dispute: 'needs_response' },
  WAITING_FOR_BUYER_RESPONSE: { inquiry: 'warning_under_review', dispute: 'under_review' },
  UNDER_REVIEW: { inquiry: 'warning_under_review', dispute: 'under_review' },
  OTHER: { inquiry: 'warning_under_review', dispute: 'under_review' },
};

/**
 * A RESOLVED claim or chargeback, by `dispute_outcome.outcome_code` (a resolved inquiry is warning_closed
 * whatever its outcome). PayPal documents the codes' names only, so these are (recommendation):
 * - ACCEPTED is the merchant accepting the claim. This service records its own acceptance as `accepted`
 *   (a service-local state no adapter reports); PayPal's word for it is that the buyer got the money: lost.
 * - RESOLVED_WITH_PAYOUT: PayPal paid the buyer itself (seller protection), the merchant keeps the funds.
 * - DENIED: the buyer's claim was denied.
 * - NONE (or no outcome at all): no decision is published; reported as lost so that nobody counts money
 *   PayPal has not said it returned.
 */
export const outcomeStates: Record<PaypalOutcome, DisputeState> = {
  RESOLVED_SELLER_FAVOUR: 'won',
  CANCELED_BY_BUYER: 'won',
  RESOLVED_WITH_PAYOUT: 'won',
  DENIED: 'won',
  RESOLVED_BUYER_FAVOUR: 'lost',
  ACCEPTED: 'lost',
  NONE: 'lost',
};

/** docs/architecture.md, "PayPal". */
export const reasonTable: Record<PaypalReason, Reason> = {
  MERCHANDISE_OR_SERVICE_NOT_RECEIVED: 'product_not_received',
  MERCHANDISE_OR_SERVICE_NOT_AS_DESCRIBED: 'product_unacceptable',
  UNAUTHORISED: 'fraudulent',
  CREDIT_NOT_PROCESSED: 'credit_not_processed',
  DUPLICATE_TRANSACTION: 'duplicate',
  INCORRECT_AMOUNT: 'transaction_amount_differs',
  PAYMENT_BY_OTHER_MEANS: 'duplicate',
  CANCELED_RECURRING_BILLING: 'subscription_canceled',
  PROBLEM_WITH_REMITTANCE: 'general',
  OTHER: 'general',
};

/** `dispute_life_cycle_stage`: an inquiry is PayPal's retrieval; arbitration follows pre-arbitration. */
export const kindTable: Record<PaypalStage, (typeof kinds)[number]> = {
  INQUIRY: 'retrieval',
  CHARGEBACK: 'chargeback',
  PRE_ARBITRATION: 'pre_arbitration',
  ARBITRATION: 'pre_arbitration',
};

/** Links whose presence means the merchant can still answer an open dispute (HATEOAS rels). */
const responseLinks = ['provide-evidence', 'accept-claim'] as const;

const lookup = <Value>(table: Record<string, Value>, key: string | undefined): Value | undefined =>
  key !== undefined && Object.hasOwn(table, key) ? table[key] : undefined;

const timestamp = z.string().refine((text) => !Number.isNaN(Date.parse(text)), 'not a date-time');

/**
 * PayPal's money object in minor units. `value` is a decimal string with as many decimals as the currency
 * has (`"12.50"`, JPY `"1500"`, TND `"1.250"`); it is converted exactly, never through a float.
 */
const moneySchema = z
  .object({ currency_code: z.string().length(3), value: z.string() })
  .transform((money, context) => {
    const amount = decimalToMinorUnits(money.value, money.currency_code);
    if (amount === undefined) {
      context.addIssue({
        code: 'custom',
        message: `${money.value} is not an amount in ${money.currency_code}`,
      });
      return z.NEVER;
    }
    return { amount, currency: money.currency_code.toLowerCase() };
  });

const linkSchema = z.object({ href: z.string(), rel: z.string(), method: z.string().optional() });
export type PaypalLink = z.infer<typeof linkSchema>;
export const linksSchema = z.array(linkSchema).optional().default([]);

/** `buyer.name` is a string in the current OpenAPI file, a name object in older answers. */
const buyerName = z.union([
  z.string(),
  z
    .object({
      given_name: z.string().optional(),
      surname: z.string().optional(),
      full_name: z.string().optional(),
    })
    .transform(
      (name) => name.full_name ?? ([name.given_name, name.surname].filter(Boolean).join(' ') || null),
    ),
]);

const transactionSchema = z.object({
  seller_transaction_id: z.string().optional(),
  create_time: timestamp.optional(),
  buyer: z.object({ name: buyerName.optional(), email: z.string().optional() }).optional(),
});

const moneyMovementSchema = z.object({
  affected_party: z.string().optional(),
  type: z.string().optional(),
  reason: z.string().optional(),
  amount: moneySchema.optional(),
});

const evidenceSchema = z.object({
  evidence_type: z.string().optional(),
  source: z.string().optional(),
  notes: z.string().optional(),
  documents: z
    .array(z.object({ name: z.string().optional() }))
    .optional()
    .default([]),
});

/**
 * The dispute as `GET /v1/customer/disputes/{id}` shows it. Enumerations are read as text: a value PayPal
 * adds later maps to a safe default instead of stopping the account's mirror.
 */
export const paypalDisputeSchema = z.object({
  dispute_id: z.string().min(1),
  create_time: timestamp.optional(),
  update_time: timestamp.optional(),
  disputed_transactions: z.array(transactionSchema).optional().default([]),
  reason: z.string().optional(),
  status: z.string(),
  dispute_amount: moneySchema.optional(),
  external_reason_code: z.string().optional(),
  dispute_outcome: z.object({ outcome_code: z.string().optional() }).optional(),
  adjudications: z
    .array(z.object({ adjudication_time: timestamp.optional() }))
    .optional()
    .default([]),
  money_movements: z.array(moneyMovementSchema).optional().default([]),
  dispute_life_cycle_stage: z.string().optional(),
  evidences: z.array(evidenceSchema).optional().default([]),
  seller_response_due_date: timestamp.optional(),
  allowed_response_options: z
    .object({ accept_claim: z.object({ accept_claim_types: z.array(z.string()).optional() }).optional() })
    .optional(),
  links: linksSchema,
});
export type PaypalDispute = z.infer<typeof paypalDisputeSchema>;

/** The state PayPal's status, stage, outcome and links stand for (docs/architecture.md, "PayPal"). */
export function stateOf(dispute: PaypalDispute): DisputeState {
  const inquiry = dispute.dispute_life_cycle_stage === 'INQUIRY';
  if (dispute.status === 'RESOLVED') {
    if (inquiry) return 'warning_closed';
    return lookup(outcomeStates, dispute.dispute_outcome?.outcome_code) ?? outcomeStates.NONE;
  }
  const open = lookup(openStates, dispute.status) ?? openStates.OTHER;
  const state = inquiry ? open.inquiry : open.dispute;
  // PayPal: "In case the link is not present in the response, you can't provide evidence for the
  // dispute." An answerable status without any way to answer is response_disabled; an object without
  // links at all (a webhook's resource) tells nothing either way.
  const answerable = state === 'needs_response' || state === 'warning_needs_response';
  const rels = dispute.links.map((link) => link.rel);
  if (answerable && rels.length > 0 && !responseLinks.some((rel) => rels.includes(rel))) {
    return 'response_disabled';
  }
  return state;
}

/**
 * PayPal's reason; for the catch-all OTHER, the card network's code where PayPal passes one through
 * (`external_reason_code`, "available for only unbranded transactions").
 */
export function reasonOf(dispute: Pick<PaypalDispute, 'reason' | 'external_reason_code'>): Reason {
  const mapped = lookup(reasonTable, dispute.reason);
  if (mapped && dispute.reason !== 'OTHER') return mapped;
  if (dispute.external_reason_code) return networkReason(dispute.external_reason_code);
  return mapped ?? 'general';
}

export const kindOf = (stage: string | undefined): (typeof kinds)[number] =>
  lookup(kindTable, stage) ?? 'chargeback';

const feeReasons = new Set(['CHARGEBACK_FEE', 'DISPUTE_FEE', 'DISPUTE_SETTLEMENT_FEE']);

/**
 * What PayPal took from the merchant (`money_movements`, debits of the SELLER): the disputed funds
 * (DISPUTE_SETTLEMENT) and the fees, in the currency of the first such debit.
 */
function reversalOf(dispute: PaypalDispute) {
  const debits = dispute.money_movements.filter(
    (movement) => movement.affected_party === 'SELLER' && movement.type === 'DEBIT' && movement.amount,
  );
  const currency = debits[0]?.amount?.currency ?? null;
  if (currency === null)
    return { fee: null, reversalAmount: null, reversalTotal: null, reversalCurrency: null };
  const sum = (wanted: (reason: string) => boolean) =>
    debits
      .filter((movement) => movement.amount?.currency === currency && wanted(movement.reason ?? ''))
      .reduce((total, movement) => total + (movement.amount?.amount ?? 0), 0);
  const fee = sum((reason) => feeReasons.has(reason));
  const reversalAmount = sum((reason) => reason === 'DISPUTE_SETTLEMENT');
  return { fee, reversalAmount, reversalTotal: fee + reversalAmount, reversalCurrency: currency };
}

/** When a closed dispute closed: PayPal's last adjudication, else its last update. */
function closedAtOf(dispute: PaypalDispute): Date | null {
  const adjudicated = dispute.adjudications
    .map((adjudication) => momentOf(adjudication.adjudication_time))
    .filter((at): at is Date => at !== null)
    .sort((a, b) => b.getTime() - a.getTime())[0];
  return adjudicated ?? momentOf(dispute.update_time);
}

export function toNormalizedDispute(dispute: PaypalDispute): NormalizedDispute {
  const state = stateOf(dispute);
  const [transaction] = dispute.disputed_transactions;
  const name = transaction?.buyer?.name;
  return normalizedDispute({
    id: dispute.dispute_id,
    state,
    reason: reasonOf(dispute),
    kind: kindOf(dispute.dispute_life_cycle_stage),
    chargedAt: momentOf(transaction?.create_time),
    disputedAt: momentOf(dispute.create_time),
    dueBy: momentOf(dispute.seller_response_due_date),
    closedAt: closedStates.includes(state) ? closedAtOf(dispute) : null,
    charge: transaction?.seller_transaction_id ?? null,
    amount: dispute.dispute_amount?.amount ?? null,
    currency: dispute.dispute_amount?.currency ?? null,
    ...reversalOf(dispute),
    customerName: typeof name === 'string' && name !== '' ? name : null,
    // PayPal: "if the merchant requests shows dispute details, the customer's email ID does not appear";
    // kept for the answers that do carry it.
    customerEmail: transaction?.buyer?.email ?? null,
    // PayPal names no card network, even for the unbranded card chargebacks whose network code it passes.
    network: null,
    networkReasonCode: reported(dispute.external_reason_code),
    processorStatus: dispute.status,
  });
}
