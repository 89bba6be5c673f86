/**
 * What a submission to Checkout.com carries besides the PDF: the response's evidence as the text fields
 * of Checkout.com's evidence pairs, each within its limit.
 */

/**
 * The text halves of Checkout.com's evidence pairs (`PUT /disputes/{id}/evidence`), each fed by the
 * response's evidence of these names. Whatever no pair claims (the template text, the customer's
 * details, fields of the client's own) goes to `additional_evidence_text`, whose file is the PDF.
 */
export const evidenceTexts = {
  proof_of_delivery_or_service_text: [
    'shipping_carrier',
    'shipping_tracking_number',
    'shipping_address',
    'shipping_documentation',
    'service_documentation',
    'access_activity_log',
  ],
  proof_of_delivery_or_service_date_text: ['shipping_date', 'service_date'],
  invoice_or_receipt_text: ['receipt', 'product_description'],
  invoice_showing_distinct_transactions_text: [
    'duplicate_charge_id',
    'duplicate_charge_explanation',
    'duplicate_charge_documentation',
  ],
  customer_communication_text: ['customer_communication', 'customer_signature'],
  refund_or_cancellation_policy_text: [
    'refund_policy',
    'refund_policy_disclosure',
    'refund_refusal_explanation',
    'cancellation_policy',
    'cancellation_policy_disclosure',
    'cancellation_rebuttal',
  ],
  recurring_transaction_agreement_text: ['recurring_transaction_agreement', 'subscription_agreement'],
} as const satisfies Record<string, readonly string[]>;
export type EvidenceTextField = keyof typeof evidenceTexts | 'additional_evidence_text';

/** "Each text field is ≤ 500 characters" (ProvideEvidenceRequest). */
export const maxEvidenceText = 500;
const continued = '… (continued in the attached document)';

/** The response's evidence as Checkout.com's text fields, each within its limit; the PDF holds it all. */
export function evidenceTextFields(
  evidence: Record<string, string | number | boolean>,
): Partial<Record<EvidenceTextField, string>> {
  const claimed = new Set<string>(Object.values(evidenceTexts).flat());
  const line = (key: string) => `${labelOf(key)}: ${String(evidence[key])}`;
  const present = (key: string) => Object.hasOwn(evidence, key) && String(evidence[key]).trim() !== '';
  const texts: Partial<Record<EvidenceTextField, string>> = {};
  for (const [field, keys] of Object.entries(evidenceTexts) as [EvidenceTextField, readonly string[]][]) {
    const lines = keys.filter(present).map(line);
    if (lines.length > 0) texts[field] = withinLimit(lines.join('\n'));
  }
  const rest = Object.keys(evidence)
    .filter((key) => key !== 'uncategorized_text' && !claimed.has(key) && present(key))
    .map(line);
  const narrative = present('uncategorized_text') ? [String(evidence.uncategorized_text)] : [];
  if (narrative.length + rest.length > 0) {
    texts.additional_evidence_text = withinLimit([...narrative, ...rest].join('\n\n'));
  }
  return texts;
}

const labelOf = (key: string) => {
  const words = key.replace(/[_\-.]+/g, ' ').trim();
  return words.charAt(0).toUpperCase() + words.slice(1);
};

function withinLimit(text: string): string {
  if (text.length <= maxEvidenceText) return text;
  let cut = text.slice(0, maxEvidenceText - continued.length);
  // Never end on half of a surrogate pair.
  if (/[\uD800-\uDBFF]$/.test(cut)) cut = cut.slice(0, -1);
  return `${cut.trimEnd()}${continued}`;
}
