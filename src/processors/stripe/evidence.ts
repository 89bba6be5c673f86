import type { ResponsePackage } from '../types.js';
import { combinedTextLimit, textEvidenceFields } from './mapping.js';

/**
 * The evidence hash of a dispute update (docs.stripe.com/api/disputes/update#update_dispute-evidence),
 * built from a submission's response package: the evidence named as one of Stripe's text fields goes
 * in that field; everything else, after the template's text, in `uncategorized_text`; the PDF is the
 * `uncategorized_file`, the evidence files uploaded into their slots the file fields of their categories
 * (mapping.ts, `stripeEvidenceLimits`).
 */

/** What ends a text cut to fit: the reader finds the whole of it in the attached document. */
export const cutMarker = '\n[...] The full text is in the attached document.';

/** The metadata key that tells a later attempt this submission already reached Stripe. */
export const submissionMarker = 'rebuttal_submission';

/**
 * The form fields of the update that submits the evidence: the text fields, the document's file id, the
 * file id uploaded into each evidence file field, the submission's marker in the dispute's metadata (set in the same call, so it is there exactly when the
 * evidence is), and `submit=true`: the evidence goes to the issuer at once.
 */
export function evidenceForm(
  evidence: ResponsePackage['evidence'],
  fileId: string,
  slots: Readonly<Record<string, string>>,
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
  for (const [slot, id] of Object.entries(slots)) form[`evidence[${slot}]`] = id;
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
