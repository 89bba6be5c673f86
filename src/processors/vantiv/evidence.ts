/**
 * What a represent to Vantiv carries besides the PDF: the document's name, from the submission's key,
 * and the note that names it and holds the evidence text.
 */

/** chargebackUpdateRequest.note: at most 4,000 characters (chargeback-api-v2.1.xsd). */
const noteLimit = 4000;

/** The uploaded document's name: the same for every attempt of one submission. */
export function documentIdFor(idempotencyKey: string): string {
  return `rebuttal-${idempotencyKey.replace(/[^A-Za-z0-9_-]/g, '-')}.pdf`;
}

/**
 * The represent's note: the document's name first (how a later attempt recognises this one, kept by any
 * cut), then the evidence text and fields. The PDF holds the whole response; the note is cut to Vantiv's
 * limit.
 */
export function noteFor(documentId: string, evidence: Record<string, string | number | boolean>): string {
  const { uncategorized_text: text, ...fields } = evidence;
  const lines = [`Rebuttal response document: ${documentId}`];
  if (text !== undefined) lines.push(String(text));
  for (const [name, value] of Object.entries(fields)) lines.push(`${name}: ${String(value)}`);
  const note = lines.join('\n');
  return note.length <= noteLimit ? note : `${note.slice(0, noteLimit - 1)}…`;
}
