import { compellingEvidenceFields, pastPaymentDate } from '../../domain/compelling-evidence.js';
import { type FieldValue, own, type PastPayment } from '../../domain/evidence.js';
import type { SubmitEvidenceRequest } from '../types.js';

/**
 * Visa CE 3.0 at Braintree (docs/api.md, "What is sent for CE 3.0 and Visa compliance"): categorized text
 * evidence (developer.paypal.com/braintree/graphql/reference/types/dispute-text-evidence-category), one
 * piece per value, sent with a qualified verdict only. Each of the verdict's two past payments is a
 * group of `PRIOR_NON_DISPUTED_TRANSACTION_*` pieces under its own sequence number (1 and 2): its id, its
 * date and time, and the IP address, email and shipping address it has. The disputed payment's device
 * and email go as `DEVICE_ID` and `PURCHASER_EMAIL_ADDRESS`, without a sequence number.
 */

export interface CategorizedEvidence {
  category: string;
  comments: string;
  sequenceNumber: string | null;
}

/** The most characters of one piece: Braintree documents no limit; a value is never a long text. */
const maxComments = 1000;

export function compellingEvidenceItems(
  request: Pick<SubmitEvidenceRequest, 'evidence' | 'compellingEvidence'>,
): CategorizedEvidence[] {
  const verdict = request.compellingEvidence;
  if (verdict?.status !== 'qualified') return [];
  const payments = verdict.prior_payments
    .map((id) => request.evidence.pastPayments.find((payment) => payment.id === id))
    .filter((payment): payment is PastPayment => payment !== undefined);
  if (payments.length !== 2) return [];
  const items: CategorizedEvidence[] = [];
  const add = (category: string, value: FieldValue | undefined, sequenceNumber: string | null = null) => {
    const text = typeof value === 'string' || typeof value === 'number' ? String(value).trim() : '';
    if (text !== '') items.push({ category, comments: text.slice(0, maxComments), sequenceNumber });
  };
  const fields = request.evidence.fields;
  add('DEVICE_ID', own(fields, compellingEvidenceFields.device));
  add('PURCHASER_EMAIL_ADDRESS', own(fields, compellingEvidenceFields.email));
  payments.forEach((payment, index) => {
    const sequence = String(index + 1);
    const prior = (what: string, value: FieldValue | undefined) =>
      add(`PRIOR_NON_DISPUTED_TRANSACTION_${what}`, value, sequence);
    prior('ID', payment.id);
    prior(
      'DATE_TIME',
      pastPaymentDate(payment)
        ?.toISOString()
        .replace(/\.\d{3}Z$/, 'Z'),
    );
    prior('IP_ADDRESS', payment.ip_address);
    prior('EMAIL_ADDRESS', payment.email);
    prior('PHYSICAL_ADDRESS', payment.shipping_address);
  });
  return items;
}
