import { compellingEvidenceFields } from '../../domain/compelling-evidence.js';
import { type FieldValue, own, type PastPayment } from '../../domain/evidence.js';
import type { SubmitEvidenceRequest } from '../types.js';
import { cutToFit } from './evidence.js';
import type { StripeDispute } from './mapping.js';

/**
 * Stripe's enhanced evidence (docs.stripe.com/disputes/api/visa-ce3; docs/api.md, "What is sent for CE
 * 3.0 and Visa compliance"): the form fields a submission adds to the dispute update for Visa Compelling
 * Evidence 3.0 and for a Visa compliance dispute's fee, or the reason none is sent.
 *
 * CE 3.0 goes only with this service's `qualified` verdict and on a dispute Stripe lists as eligible
 * (`enhanced_eligibility_types`), with exactly the verdict's two past payments, each by its Stripe charge
 * id. What Stripe cannot take is left out rather than sent to be refused:
 * - a device value under 15 characters (Stripe's minimum for `customer_device_id`; the one device value
 *   of the evidence is sent as the id, never also as the fingerprint, which Stripe does not count as a
 *   second element);
 * - the shipping address: Stripe wants it structured with every part given, the evidence holds it as
 *   free text (it still goes in the `shipping_address` text field and the response document);
 * - the whole CE 3.0 block when a past payment's id is not a Stripe charge (`ch_…`, `py_…`): Stripe
 *   takes exactly two, by charge id.
 */

const prefix = 'evidence[enhanced_evidence]';
const ce3 = `${prefix}[visa_compelling_evidence_3]`;
export const feeAcknowledged = `${prefix}[visa_compliance][fee_acknowledged]`;

/** Stripe's minimum length of `customer_device_id`. */
export const minDeviceIdLength = 15;
/** What a text field of Stripe's takes at most ("Max length: 5000" in the API reference). */
const maxText = 5000;

const stripeChargeId = /^(ch|py)_[A-Za-z0-9]+$/;

export type EnhancedEvidence = { form: Record<string, string>; skipped: string | null } | { refused: string };

/**
 * The enhanced evidence fields for `request`, read against the dispute as Stripe holds it now, with a
 * note when CE 3.0 applied by our verdict but is not sent; `refused` when the dispute cannot be answered
 * as the organisation has set it (a Visa compliance dispute whose fee it refuses).
 */
export function enhancedEvidence(
  request: Pick<SubmitEvidenceRequest, 'evidence' | 'compellingEvidence' | 'visaComplianceFee'>,
  current: StripeDispute,
): EnhancedEvidence {
  const types = current.enhanced_eligibility_types ?? [];
  const form: Record<string, string> = {};
  if (types.includes('visa_compliance')) {
    if (request.visaComplianceFee !== 'accept') {
      return {
        refused:
          `Dispute ${current.id} is a Visa compliance dispute: Stripe takes evidence for it only with the ` +
          "network's fee acknowledged (USD 500, refunded if won), which this organisation refuses. To answer " +
          'such disputes, run `org settings --visa-compliance-fee accept`.',
      };
    }
    form[feeAcknowledged] = 'true';
  }
  const verdict = request.compellingEvidence;
  if (verdict?.status !== 'qualified') return { form, skipped: null };
  if (!types.includes('visa_compelling_evidence_3')) {
    return { form, skipped: 'Stripe does not list the dispute as eligible for Visa CE 3.0' };
  }
  const priors = verdict.prior_payments.map((id) =>
    request.evidence.pastPayments.find((payment) => payment.id === id),
  );
  const [first, second] = priors;
  if (priors.length !== 2 || !first || !second) {
    return { form, skipped: 'the verdict does not name two of the evidence past payments' };
  }
  if (!stripeChargeId.test(first.id) || !stripeChargeId.test(second.id)) {
    return { form, skipped: 'a past payment of the verdict is not a Stripe charge (ch_…, py_…)' };
  }
  const fields = request.evidence.fields;
  const field = (name: string) => textOf(own(fields, name));
  const description =
    field(compellingEvidenceFields.description) ??
    textOf(request.evidence.products.map((product) => product.name).join(', '));
  const kind = field(compellingEvidenceFields.merchandiseOrServices)?.toLowerCase();
  put(form, `${ce3}[disputed_transaction]`, {
    customer_account_id: field(compellingEvidenceFields.account),
    customer_device_id: device(field(compellingEvidenceFields.device)),
    customer_email_address:
      field(compellingEvidenceFields.email) ?? textOf(current.evidence?.customer_email_address),
    customer_purchase_ip: textOf(current.evidence?.customer_purchase_ip),
    merchandise_or_services: kind === 'merchandise' || kind === 'services' ? kind : null,
    product_description: description,
  });
  [first, second].forEach((payment, index) => {
    put(form, `${ce3}[prior_undisputed_transactions][${index}]`, priorFields(payment));
  });
  return { form, skipped: null };
}

function priorFields(payment: PastPayment): Record<string, string | null> {
  return {
    charge: payment.id,
    customer_account_id: textOf(payment.user_id),
    customer_device_id: device(textOf(payment.device_id)),
    customer_email_address: textOf(payment.email),
    customer_purchase_ip: textOf(payment.ip_address),
    product_description: textOf(payment.item_description),
  };
}

function put(form: Record<string, string>, at: string, values: Record<string, string | null>) {
  for (const [key, value] of Object.entries(values)) {
    if (value !== null) form[`${at}[${key}]`] = cutToFit(value, maxText);
  }
}

const device = (value: string | null) => (value !== null && value.length >= minDeviceIdLength ? value : null);

const textOf = (value: FieldValue | undefined): string | null => {
  if (typeof value !== 'string' && typeof value !== 'number') return null;
  const text = String(value).trim();
  return text === '' ? null : text;
};
