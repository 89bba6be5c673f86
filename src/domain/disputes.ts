import { type CompellingEvidence, compellingEvidenceOf } from './compelling-evidence.js';
import type { CorrespondenceItem, FieldValue, PastPayment, Product } from './evidence.js';
import type { EvidenceFileEntry } from './evidence-files.js';
import { type FillingAttribute, missingFields, type TemplateShape } from './templates.js';

/** The stored dispute as the serializer needs it (a database row satisfies this). */
export interface DisputeRecord {
  id: string;
  livemode: boolean;
  state: string;
  reason: string;
  kind: string;
  source: string;
  processor: string | null;
  account: string | null;
  chargedAt: Date | null;
  disputedAt: Date | null;
  dueBy: Date | null;
  submittedAt: Date | null;
  closedAt: Date | null;
  submittedCount: number;
  template: string | null;
  fields: Record<string, FieldValue>;
  products: Product[];
  correspondence: CorrespondenceItem[];
  pastPayments: PastPayment[];
  evidenceFiles: EvidenceFileEntry[];
  charge: string | null;
  isChargeRefundable: boolean | null;
  amount: number | null;
  currency: string | null;
  fee: number | null;
  reversalAmount: number | null;
  reversalTotal: number | null;
  reversalCurrency: string | null;
  customer: string | null;
  customerName: string | null;
  customerEmail: string | null;
  customerPurchaseIp: string | null;
  addressZip: string | null;
  addressLine1Check: string | null;
  addressZipCheck: string | null;
  cvcCheck: string | null;
  statementDescriptor: string | null;
  /** The card network (domain/networks.ts), its own reason code and the processor's status word. */
  network: string | null;
  networkReasonCode: string | null;
  processorStatus: string | null;
  /** The pre-dispute program that resolved it: the processor's `rdr`, or this service's `alert_refund`. */
  resolution: string | null;
  /** The alert (its id) raised for the same charge, linked whichever came first (docs/api.md, "Alerts"). */
  alert: string | null;
  /** The processor's own Visa CE 3.0 verdict (Stripe's `enhanced_eligibility`), beside this service's. */
  compellingEvidenceProcessorStatus: string | null;
  accountId: string | null;
  referenceUrl: string | null;
  createdAt: Date;
  updatedAt: Date;
}

/**
 * The attributes that satisfy a required template field of the same name (docs/api.md, "The dispute object",
 * missing_fields), under their API names; typed by `attributesFillingFields`, so the two cannot drift.
 */
export function fillingAttributes(dispute: DisputeRecord): Record<FillingAttribute, unknown> {
  return {
    customer_name: dispute.customerName,
    customer_email: dispute.customerEmail,
    customer_purchase_ip: dispute.customerPurchaseIp,
    charge: dispute.charge,
    amount: dispute.amount,
    currency: dispute.currency,
    charged_at: dispute.chargedAt,
    statement_descriptor: dispute.statementDescriptor,
    address_zip: dispute.addressZip,
  };
}

/** Response timestamps: UTC, `YYYY-MM-DDTHH:MM:SS`, no zone suffix (docs/api.md, "Conventions"). */
export function formatTimestamp(date: Date | null): string | null {
  return date ? date.toISOString().slice(0, 19) : null;
}

export const disputePath = (id: string) => `/v1/disputes/${id}`;

/** The dispute object of docs/api.md, "The dispute object"; every field present, `null` when absent. */
export function toDisputeObject(
  dispute: DisputeRecord,
  template: TemplateShape | null,
  url = disputePath(dispute.id),
) {
  return {
    object: 'dispute' as const,
    id: dispute.id,
    state: dispute.state,
    reason: dispute.reason,
    charged_at: formatTimestamp(dispute.chargedAt),
    disputed_at: formatTimestamp(dispute.disputedAt),
    due_by: formatTimestamp(dispute.dueBy),
    submitted_at: formatTimestamp(dispute.submittedAt),
    closed_at: formatTimestamp(dispute.closedAt),
    submitted_count: dispute.submittedCount,
    template: dispute.template,
    fields: dispute.fields,
    missing_fields: missingFields(template, dispute.fields, fillingAttributes(dispute)),
    products: dispute.products,
    correspondence: dispute.correspondence,
    past_payments: dispute.pastPayments,
    evidence_files: dispute.evidenceFiles,
    charge: dispute.charge,
    is_charge_refundable: dispute.isChargeRefundable,
    amount: dispute.amount,
    currency: dispute.currency,
    fee: dispute.fee,
    reversal_amount: dispute.reversalAmount,
    reversal_total: dispute.reversalTotal,
    reversal_currency: dispute.reversalCurrency,
    customer: dispute.customer,
    customer_name: dispute.customerName,
    customer_email: dispute.customerEmail,
    customer_purchase_ip: dispute.customerPurchaseIp,
    address_zip: dispute.addressZip,
    address_line1_check: dispute.addressLine1Check,
    address_zip_check: dispute.addressZipCheck,
    cvc_check: dispute.cvcCheck,
    statement_descriptor: dispute.statementDescriptor,
    account_id: dispute.accountId,
    created: formatTimestamp(dispute.createdAt),
    updated: formatTimestamp(dispute.updatedAt),
    source: dispute.source,
    processor: dispute.processor,
    kind: dispute.kind,
    network: dispute.network,
    network_reason_code: dispute.networkReasonCode,
    processor_status: dispute.processorStatus,
    resolution: dispute.resolution,
    alert: dispute.alert,
    compelling_evidence: compellingEvidenceObject(dispute),
    account: dispute.account,
    reference_url: dispute.referenceUrl,
    livemode: dispute.livemode,
    url,
  };
}
export type DisputeObject = ReturnType<typeof toDisputeObject>;

/**
 * The dispute's Visa CE 3.0 verdict (docs/api.md, "Compelling evidence"), decided from the dispute as it
 * stands each time the object is made, so it follows every change of the evidence; with the processor's
 * own verdict beside it. Null where the program does not apply.
 */
export function compellingEvidenceObject(
  dispute: DisputeRecord,
): (CompellingEvidence & { processor_status: string | null }) | null {
  const verdict = compellingEvidenceOf(dispute);
  return verdict && { ...verdict, processor_status: dispute.compellingEvidenceProcessorStatus };
}
