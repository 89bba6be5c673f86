import { fileContentTypes } from '../../domain/evidence-files.js';
import type { FormPart } from '../multipart.js';
import type { AttachedFile, SubmitEvidenceRequest } from '../types.js';
import type { PaypalDispute } from './mapping.js';

/**
 * The evidence as PayPal's provide-evidence call takes it (POST /v1/customer/disputes/{id}/provide-evidence,
 * multipart/form-data): a JSON part `input` holding `evidences[]`, and the files in `evidence-file` parts
 * (part names from the OpenAPI file, requestBodies.evidences, and PayPal's own sample request).
 * Limits (OpenAPI `evidence` and `document` schemas; developer.paypal.com/platforms/disputes/reference/
 * supported-file-types-sizes): notes 1-2000 characters; document names `^[A-Za-z0-9-_,\s]+[.]{1}[A-Za-z]+$`;
 * JPG, GIF, PNG or PDF files under 10 MB each, 50 MB per call (paypalEvidenceLimits in mapping.ts).
 */

const notesLimit = 2000;
const continued = '\n… (continued in the attached document)';

/**
 * The evidence text within PayPal's 2000 characters: each field as `Name: value` first (the facts a
 * reviewer looks for), then the template's text (`uncategorized_text`); what does not fit is in the PDF.
 */
export function evidenceNotes(evidence: Record<string, string | number | boolean>): string {
  const fields = Object.entries(evidence)
    .filter(([key]) => key !== 'uncategorized_text')
    .map(([key, value]) => `${label(key)}: ${typeof value === 'boolean' ? (value ? 'yes' : 'no') : value}`);
  const body = evidence.uncategorized_text;
  const text = [fields.join('\n'), typeof body === 'string' ? body : '']
    .filter((part) => part.trim() !== '')
    .join('\n\n');
  if (text === '') return 'Please see the attached document.';
  return withinNotes(text);
}

const withinNotes = (text: string) =>
  text.length <= notesLimit ? text : `${text.slice(0, notesLimit - continued.length)}${continued}`;

const label = (key: string) => {
  const words = key.replace(/_/g, ' ');
  return `${words.charAt(0).toUpperCase()}${words.slice(1)}`;
};

/**
 * The PDF's name at PayPal, unique to the submission and the same on every retry of it: finding it on the
 * dispute later tells that this submission reached PayPal. Only the characters PayPal's pattern allows.
 */
export function documentName(request: Pick<SubmitEvidenceRequest, 'response' | 'idempotencyKey'>): string {
  const base = request.response.document.filename.replace(/\.pdf$/i, '');
  return `${safe(base)}-${safe(request.idempotencyKey)}.pdf`;
}

const safe = (text: string) => text.replace(/[^A-Za-z0-9_-]+/g, '-');

/**
 * An evidence file's name at PayPal: its own name within PayPal's pattern (its start, so the whole stays
 * short), then its id, which keeps two files of the same name apart; the extension is its type's. The
 * same on every retry, as the rest of the call is.
 */
export function fileDocumentName(file: AttachedFile): string {
  const stem = safe(file.filename.replace(/\.[A-Za-z0-9]*$/, ''))
    .slice(0, 80)
    .replace(/^-+|-+$/g, '');
  return `${stem === '' || stem === file.id ? '' : `${stem}-`}${file.id}.${file.type}`;
}

/**
 * The multipart body of provide-evidence: one OTHER evidence with the notes and the response PDF, then one
 * evidence per evidence type the files go in (`slotted`: paypalEvidenceLimits' types, with their files),
 * each naming its files, with their descriptions as its notes; every file in an `evidence-file` part of
 * its own, in the same single call.
 */
export function evidenceForm(
  request: SubmitEvidenceRequest,
  slotted: ReadonlyMap<string, readonly AttachedFile[]>,
): FormPart[] {
  const name = documentName(request);
  const typed = [...slotted].map(([type, files]) => ({
    type,
    files: files.map((file) => ({ file, name: fileDocumentName(file) })),
  }));
  const input = {
    evidences: [
      { evidence_type: 'OTHER', notes: evidenceNotes(request.response.evidence), documents: [{ name }] },
      ...typed.map(({ type, files }) => {
        const notes = files
          .filter(({ file }) => file.description !== null && file.description.trim() !== '')
          .map(({ file, name }) => `${name}: ${file.description}`)
          .join('\n');
        return {
          evidence_type: type,
          ...(notes !== '' && { notes: withinNotes(notes) }),
          documents: files.map(({ name }) => ({ name })),
        };
      }),
    ],
  };
  return [
    { name: 'input', value: JSON.stringify(input), filename: 'input.json', contentType: 'application/json' },
    {
      name: 'evidence-file',
      value: request.response.document.pdf,
      filename: name,
      contentType: 'application/pdf',
    },
    ...typed.flatMap(({ files }) =>
      files.map(({ file, name }) => ({
        name: 'evidence-file',
        value: file.bytes,
        filename: name,
        contentType: fileContentTypes[file.type],
      })),
    ),
  ];
}

/** Whether the dispute's evidence already holds this document (its name is this submission's own). */
export function carriesDocument(dispute: PaypalDispute, name: string): boolean {
  return dispute.evidences.some((evidence) => evidence.documents.some((document) => document.name === name));
}
