import type { ResponsePackage } from '../types.js';

/**
 * The evidence hash of a dispute update (docs.stripe.com/api/disputes/update#update_dispute-evidence),
 * built from a submission's response package: the evidence named as one of Stripe's text fields goes
 * in that field; everything else, after the template's text, in `uncategorized_text`; the PDF is the
 * `uncategorized_file`.
 */

/**
 * Stripe's text evidence fields, with the cap Stripe documents for the longer ones ("Has a maximum
 * character count of 20,000"); the file fields (receipt, shipping_documentation, ...) take file ids.
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

/** What ends a text cut to fit: the reader finds the whole of it in the attached document. */
export const cutMarker = '\n[...] The full text is in the attached document.';

/** The metadata key that tells a later attempt this submission already reached Stripe. */
export const submissionMarker = 'rebuttal_submission';

/**
 * The form fields of the update that submits the evidence: the text fields, the document's file id, the
 * submission's marker in the dispute's metadata (set in the same call, so it is there exactly when the
 * evidence is), and `submit=true`: the evidence goes to the issuer at once.
 */
export function evidenceForm(
  evidence: ResponsePackage['evidence'],
  fileId: string,
  submission: string,
): Record<string, string> {
  const named: [string, string][] = [];
  const other: string[] = [];
  for (const [key, value] of Object.entries(evidence)) {
    const text = String(value).trim();
    if (key === 'uncategorized_text' || text === '') continue;
    if (Object.hasOwn(textEvidenceFields, key)) named.push([key, text]);
    else other.push(`${key}: ${text}`);
  }
  const uncategorized = [String(evidence.uncategorized_text ?? '').trim(), other.join('\n')]
    .filter((part) => part !== '')
    .join('\n\n');

  const form: Record<string, string> = {};
  let budget = combinedTextLimit;
  const put = (key: string, text: string) => {
    const fitted = cutToFit(text, Math.min(textEvidenceFields[key] ?? combinedTextLimit, budget));
    if (fitted === '') return;
    form[`evidence[${key}]`] = fitted;
    budget -= fitted.length;
  };
  for (const [key, text] of named) put(key, text);
  put('uncategorized_text', uncategorized);
  form['evidence[uncategorized_file]'] = fileId;
  form[`metadata[${submissionMarker}]`] = submission;
  form.submit = 'true';
  return form;
}

/** The text within `max` characters (UTF-16 units, as Stripe counts), cut with the marker when longer. */
export function cutToFit(text: string, max: number): string {
  if (text.length <= max) return text;
  if (max <= cutMarker.length) return '';
  let end = max - cutMarker.length;
  // Never split a surrogate pair: half a character is not text Stripe (or Postgres) takes.
  const last = text.charCodeAt(end - 1);
  if (last >= 0xd800 && last <= 0xdbff) end -= 1;
  return `${text.slice(0, end)}${cutMarker}`;
}
