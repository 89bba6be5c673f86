import { fileContentTypes } from '../../domain/evidence-files.js';
import { checkEvidenceLimits, sentAttached, sentDocument, slottedFiles } from '../slot-uploads.js';
import type { AttachedFile, SubmitEvidenceRequest, SubmitEvidenceResult } from '../types.js';
import { ProcessorError } from '../types.js';
import type { BraintreeClient } from './client.js';
import { compellingEvidenceItems } from './compelling-evidence.js';
import { type BraintreeEvidence, type BraintreeStatus, evidenceLimits } from './mapping.js';

/**
 * A submission to Braintree takes text evidence, a document upload and its attachment for the response
 * PDF and for each evidence file Braintree takes (in its category: `evidenceLimits` in mapping.ts), and
 * the finalize that sends it all to the bank (https://developer.paypal.com/braintree/docs/reference/
 * request/dispute/finalize/). Braintree takes no idempotency key, and takes evidence and finalize only
 * while the dispute is OPEN. So every attempt reads the dispute first and does only what is missing:
 * - our evidence is tagged with the submission's key: the text starts with `[rebuttal <key>]`, the
 *   document is uploaded as `rebuttal-<key>.pdf` and each evidence file as `rebuttal-<key>-<file id>.<type>`,
 *   names Braintree keeps in the evidence's `url`;
 * - evidence tagged by an earlier attempt with another key is removed, so one package goes to the bank;
 *   evidence the merchant added in the Control Panel is left alone;
 * - a dispute no longer OPEN that holds our text and document was finalized by an earlier attempt whose
 *   answer was lost: success. Any other dispute that is not OPEN is refused without asking Braintree.
 * A lost answer to a change ends the attempt with a transient error (a lost read is sent again by the
 * HTTP layer); the next attempt picks up from what Braintree holds, so nothing is attached or finalized
 * twice. Braintree cannot list document uploads: an upload whose answer was lost is never attached, and
 * the next attempt uploads the file again.
 * The files' limits are checked before the first call: a file over them fails the submission, unsent.
 * A qualified Visa CE 3.0 verdict adds categorized text evidence (compelling-evidence.ts).
 */

/** Statuses a dispute reaches only through a finalize (or after one): our evidence went to the bank. */
const finalizedStatuses: ReadonlySet<BraintreeStatus> = new Set(['disputed', 'under_review', 'won', 'lost']);

export function evidenceMarker(key: string): string {
  return `[rebuttal ${key}]`;
}

const namePrefix = (key: string) => `rebuttal-${key.replace(/[^A-Za-z0-9_-]/g, '-')}`;

export function documentName(key: string): string {
  return `${namePrefix(key)}.pdf`;
}

/** An evidence file's upload name: the same for every attempt of one submission. */
export function fileName(key: string, file: Pick<AttachedFile, 'id' | 'type'>): string {
  return `${namePrefix(key)}-${file.id}.${file.type}`;
}

/** Whose a piece of evidence is: this attempt's, another attempt's, or the merchant's own. */
export function ownerOf(evidence: BraintreeEvidence, key: string): 'ours' | 'earlier attempt' | 'merchant' {
  const comments = evidence.comments ?? '';
  const url = evidence.url ?? '';
  const named = (suffix: string) => url.includes(`${namePrefix(key)}${suffix}`);
  if (comments.startsWith(evidenceMarker(key)) || named('.pdf') || named('-file_')) return 'ours';
  // Only this service's own submission ids (`sub_` and 20 characters): evidence the merchant named alike
  // in the Control Panel (`rebuttal-letter.pdf`, `[rebuttal draft]`) is the merchant's, and stays.
  if (
    /^\[rebuttal sub_[0-9a-z]{20}\]/.test(comments) ||
    /rebuttal-sub_[0-9a-z]{20}(?:\.pdf|-file_)/.test(url)
  ) {
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
  // Braintree takes many files in one category: each goes on its own, as it is.
  const slotted = [...slottedFiles(evidenceLimits, request.files)].flatMap(([slot, files]) =>
    files.map((file) => ({ file, slot })),
  );
  checkEvidenceLimits('braintree', evidenceLimits, [
    ...slotted.map(({ file }) => sentAttached(file)),
    sentDocument(request.response.document),
  ]);
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
  const held = (name: string) => ours.some((item) => item.url?.includes(name));
  if (dispute.status !== 'open') {
    if (text && held(documentName(key)) && finalizedStatuses.has(dispute.status))
      return { reference: text.id };
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
  // Categorized pieces carry no marker (their text is the value): one the dispute already holds, from an
  // earlier attempt, is not added again.
  for (const item of compellingEvidenceItems(request)) {
    const held = evidence.some(
      (piece) =>
        piece.category === item.category &&
        piece.comments === item.comments &&
        (piece['sequence-number'] ?? null) === item.sequenceNumber,
    );
    if (!held) await client.addTextEvidence(dispute.id, item.comments, item);
  }
  for (const { file, slot } of slotted) {
    const filename = fileName(key, file);
    if (held(filename)) continue;
    const upload = await client.uploadDocument({
      filename,
      bytes: file.bytes,
      contentType: fileContentTypes[file.type],
    });
    await client.attachDocument(dispute.id, upload, slot);
  }
  if (!held(documentName(key))) {
    const upload = await client.uploadDocument({
      filename: documentName(key),
      bytes: pdf,
      contentType: fileContentTypes.pdf,
    });
    await client.attachDocument(dispute.id, upload);
  }
  await client.finalize(dispute.id);
  return { reference: textId };
}
