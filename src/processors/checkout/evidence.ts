import { z } from 'zod';
import type { ProcessorHttp } from '../http.js';
import { maxEvidenceText } from './mapping.js';

/**
 * What a submission to Checkout.com carries: the response's evidence as the text fields of Checkout.com's
 * evidence pairs, each within its limit, and its files (the response document, the evidence files of each
 * slot) uploaded to `/files` and staged in their `*_file` fields, each at most once.
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

/** A file a submission stages in one `*_file` field. */
export interface EvidenceFile {
  field: string;
  /** Carries the submission's idempotency key: how a later attempt recognises its own upload. */
  filename: string;
  bytes: Buffer;
  contentType: string;
}

const fileInfo = z.object({ id: z.string(), filename: z.string().nullish(), size: z.number().nullish() });
const uploadedFile = z.object({ id: z.string().min(1) });

/**
 * The files of this submission staged on the dispute already, by field: a staged file id whose file has
 * this submission's name and size. Checkout.com takes no idempotency key on `/files` and lists no files,
 * so what the dispute's staged evidence holds is all a retry can know of an earlier attempt's uploads.
 */
export async function stagedFiles(
  http: ProcessorHttp,
  path: string,
  files: readonly EvidenceFile[],
): Promise<Record<string, string>> {
  const answer = await http.send({ method: 'GET', path, answers: [404] });
  if (answer.status === 404) return {};
  const staged = http.read(answer, z.record(z.string(), z.unknown()), (text) => JSON.parse(text));
  const found: Record<string, string> = {};
  for (const file of files) {
    const id = staged[file.field];
    if (typeof id !== 'string' || id === '') continue;
    const info = await http.send({ method: 'GET', path: `files/${encodeURIComponent(id)}`, answers: [404] });
    if (info.status === 404) continue;
    const { filename, size } = http.read(info, fileInfo, (text) => JSON.parse(text));
    if (filename === file.filename && size === file.bytes.length) found[file.field] = id;
  }
  return found;
}

/**
 * Stages the texts and every file, uploading only the files not staged already; answers the staged
 * evidence. Each upload is staged at once, with everything known so far (so whether Checkout.com merges
 * or replaces staged evidence, the last staging holds it all): after a lost answer a retry finds it on
 * the dispute and does not upload it again. Only a file whose own upload answer was lost, or whose
 * staging failed, is uploaded again; Checkout.com keeps the unanswered one unattached.
 */
export async function stageEvidence(
  http: ProcessorHttp,
  path: string,
  texts: Partial<Record<EvidenceTextField, string>>,
  files: readonly EvidenceFile[],
  staged: Readonly<Record<string, string>>,
): Promise<Record<string, string>> {
  const evidence: Record<string, string> = { ...texts };
  for (const file of files) if (staged[file.field]) evidence[file.field] = staged[file.field] as string;
  let stagedAll = false;
  for (const file of files) {
    if (evidence[file.field]) continue;
    evidence[file.field] = await upload(http, file);
    await http.send({ method: 'PUT', path, json: evidence });
    stagedAll = true;
  }
  if (!stagedAll) await http.send({ method: 'PUT', path, json: evidence });
  return evidence;
}

async function upload(http: ProcessorHttp, file: EvidenceFile): Promise<string> {
  const uploaded = await http.json(
    {
      method: 'POST',
      path: 'files',
      multipart: [
        { name: 'purpose', value: 'dispute_evidence' },
        { name: 'file', value: file.bytes, filename: file.filename, contentType: file.contentType },
      ],
    },
    uploadedFile,
  );
  return uploaded.id;
}
