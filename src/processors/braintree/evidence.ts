import type { SubmitEvidenceRequest, SubmitEvidenceResult } from '../types.js';
import { ProcessorError } from '../types.js';
import type { BraintreeClient } from './client.js';
import type { BraintreeEvidence, BraintreeStatus } from './mapping.js';

/**
 * A submission to Braintree takes four calls: text evidence, a document upload, attaching it, and the
 * finalize that sends it all to the bank (https://developer.paypal.com/braintree/docs/reference/request/
 * dispute/finalize/). Braintree takes no idempotency key, and takes evidence and finalize only while the
 * dispute is OPEN. So every attempt reads the dispute first and does only what is missing:
 * - our evidence is tagged with the submission's key: the text starts with `[rebuttal <key>]`, and the
 *   document is uploaded as `rebuttal-<key>.pdf`, a name Braintree keeps in the evidence's `url`;
 * - evidence tagged by an earlier attempt with another key is removed, so one package goes to the bank;
 *   evidence the merchant added in the Control Panel is left alone;
 * - a dispute no longer OPEN that holds our text and document was finalized by an earlier attempt whose
 *   answer was lost: success. Any other dispute that is not OPEN is refused without asking Braintree.
 * A lost answer to a change ends the attempt with a transient error (a lost read is sent again by the
 * HTTP layer); the next attempt picks up from what Braintree holds, so nothing is added or finalized
 * twice.
 */

/** Braintree's limit on an evidence document (Document Upload: Create). */
export const maxDocumentBytes = 4 * 1024 * 1024;

/** Statuses a dispute reaches only through a finalize (or after one): our evidence went to the bank. */
const finalizedStatuses: ReadonlySet<BraintreeStatus> = new Set(['disputed', 'under_review', 'won', 'lost']);

export function evidenceMarker(key: string): string {
  return `[rebuttal ${key}]`;
}

export function documentName(key: string): string {
  return `rebuttal-${key.replace(/[^A-Za-z0-9_-]/g, '-')}.pdf`;
}

/** Whose a piece of evidence is: this attempt's, another attempt's, or the merchant's own. */
export function ownerOf(evidence: BraintreeEvidence, key: string): 'ours' | 'earlier attempt' | 'merchant' {
  const comments = evidence.comments ?? '';
  const url = evidence.url ?? '';
  if (comments.startsWith(evidenceMarker(key)) || url.includes(documentName(key))) return 'ours';
  // Only this service's own submission ids (`sub_` and 20 characters): evidence the merchant named alike
  // in the Control Panel (`rebuttal-letter.pdf`, `[rebuttal draft]`) is the merchant's, and stays.
  if (/^\[rebuttal sub_[0-9a-z]{20}\]/.test(comments) || /rebuttal-sub_[0-9a-z]{20}\.pdf/.test(url)) {
    return 'earlier attempt';
  }
  return 'merchant';
}

/**
 * The text evidence: the marker, the template's text, then every other piece of evidence by name (the
 * fields have no place of their own in an uncategorized text; categories apply to certain reasons only).
 */
export function evidenceText(request: SubmitEvidenceRequest): string {
  const { uncategorized_text: body, ...fields } = request.response.evidence;
  const lines = Object.entries(fields).map(([name, value]) => `${name}: ${String(value)}`);
  const parts = [body === undefined ? '' : String(body), lines.join('\n')].filter((part) => part !== '');
  return `${evidenceMarker(request.idempotencyKey)}\n${parts.join('\n\n')}`;
}

export async function submitEvidence(
  client: BraintreeClient,
  request: SubmitEvidenceRequest,
): Promise<SubmitEvidenceResult> {
  const { dispute: reference, idempotencyKey: key } = request;
  const { pdf } = request.response.document;
  if (pdf.length > maxDocumentBytes) {
    const message = `The response document is ${pdf.length} bytes; Braintree takes at most 4 MB.`;
    throw new ProcessorError('braintree', message, { retryable: false });
  }
  const dispute = await client.findDispute(reference.id);
  if (!dispute) {
    throw new ProcessorError('braintree', `Braintree knows no dispute ${reference.id}.`, {
      retryable: false,
      status: 404,
    });
  }
  const evidence = dispute.evidence ?? [];
  const ours = evidence.filter((item) => ownerOf(item, key) === 'ours');
  const text = ours.find((item) => item.comments);
  const file = ours.find((item) => item.url);
  if (dispute.status !== 'open') {
    if (text && file && finalizedStatuses.has(dispute.status)) return { reference: text.id };
    throw new ProcessorError(
      'braintree',
      `Braintree takes evidence only for open disputes; dispute ${dispute.id} is ${dispute.status}.`,
      { retryable: false, status: 422 },
    );
  }
  for (const stale of evidence.filter((item) => ownerOf(item, key) === 'earlier attempt')) {
    await client.removeEvidence(dispute.id, stale.id);
  }
  const textId = text?.id ?? (await client.addTextEvidence(dispute.id, evidenceText(request)));
  if (!file) {
    const upload = await client.uploadDocument(documentName(key), pdf);
    await client.attachDocument(dispute.id, upload);
  }
  await client.finalize(dispute.id);
  return { reference: textId };
}
