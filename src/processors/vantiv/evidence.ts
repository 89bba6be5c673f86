import type { AttachedFile } from '../types.js';

/**
 * What a represent to Vantiv carries besides its documents: their names, from the submission's key,
 * and the note that names them and holds the evidence text.
 */

/** chargebackUpdateRequest.note: at most 4,000 characters (chargeback-api-v2.1.xsd). */
const noteLimit = 4000;

/** The uploaded document's name: the same for every attempt of one submission. */
export function documentIdFor(idempotencyKey: string): string {
  return `${namePrefix(idempotencyKey)}.pdf`;
}

/** An evidence file's document name: the same for every attempt of one submission. */
export function fileDocumentId(idempotencyKey: string, file: Pick<AttachedFile, 'id' | 'type'>): string {
  return `${namePrefix(idempotencyKey)}-${file.id}.${file.type}`;
}

const namePrefix = (key: string) => `rebuttal-${key.replace(/[^A-Za-z0-9_-]/g, '-')}`;

/**
 * The represent's note: the document's name first (how a later attempt recognises this one, kept by any
 * cut), then each evidence file's document with its category, since Vantiv keeps none, then the evidence
 * text and fields. The PDF holds the whole response; the note is cut to Vantiv's limit.
 */
export function noteFor(
  documentId: string,
  evidence: Record<string, string | number | boolean>,
  files: readonly { documentId: string; file: AttachedFile }[] = [],
): string {
  const { uncategorized_text: text, ...fields } = evidence;
  const lines = [`Rebuttal response document: ${documentId}`];
  for (const { documentId: fileDocument, file } of files) {
    const about = file.description === null ? file.category : `${file.category}: ${file.description}`;
    lines.push(`Evidence file ${fileDocument} (${about})`);
  }
  if (text !== undefined) lines.push(String(text));
  for (const [name, value] of Object.entries(fields)) lines.push(`${name}: ${String(value)}`);
  const note = lines.join('\n');
  return note.length <= noteLimit ? note : `${note.slice(0, noteLimit - 1)}…`;
}
