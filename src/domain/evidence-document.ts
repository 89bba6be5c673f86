import { type DisputeRecord, fillingAttributes, formatTimestamp } from './disputes.js';
import { own } from './evidence.js';
import {
  attachmentBlocks,
  type DocumentFile,
  type DocumentFiles,
  type DocumentProductImage,
  ImagePlacer,
  withProductImages,
} from './evidence-attachments.js';
import {
  type EvidenceValue,
  formatAmount,
  formatField,
  formatMoment,
  humanize,
  joined,
  nonEmpty,
  placeholderValues,
} from './evidence-format.js';
import {
  compellingEvidenceTable,
  type DrawnImage,
  type EvidenceTable,
  itemTables,
} from './evidence-tables.js';
import { bodyText, renderTemplateBody, type SectionKey, sectionKeys } from './template-body.js';
import type { TemplateField } from './templates.js';

/**
 * Terminology:
 * - evidence dictionary: the evidence as processors receive it (`evidenceDictionary`);
 * - evidence document: what a person reads, as a plain data model (`buildEvidenceDocument`) that the PDF
 *   renderer (documents/pdf.ts) and `documentText` both draw;
 * - template body: the template's text with `{{key}}` placeholders, rendered by `renderTemplateBody`
 *   (domain/template-body.ts) from `placeholderValues` (domain/evidence-format.ts, which formats every
 *   value a reader sees); the item sections are tables (domain/evidence-tables.ts).
 * Pure: the same input always gives the same dictionary, model and text.
 */

export interface EvidenceTemplate {
  id: string;
  name: string | null;
  body: string | null;
  fields: TemplateField[];
}

/** The dispute as submitted: its fields and evidence items are the snapshot the caller sends. */
export interface EvidenceDocumentInput {
  dispute: DisputeRecord;
  template: EvidenceTemplate | null;
  /** Dates the document (and the PDF's creation date), so that rendering again gives the same bytes. */
  generatedAt: Date;
  /** The evidence files the submission carries, in order (domain/evidence-attachments.ts); none if absent. */
  files?: DocumentFile[];
  /** The products' kept images (the dispute's `product_images`); none if absent. */
  productImages?: DocumentProductImage[];
}

// ---------------------------------------------------------------------------------------------------------
// The evidence dictionary.

/** The fields the evidence carries: every non-empty client field, and template fields filled from the dispute. */
function evidenceFields(input: EvidenceDocumentInput): Map<string, EvidenceValue> {
  const { dispute, template } = input;
  const fields = new Map<string, EvidenceValue>();
  const attributes: Record<string, unknown> = fillingAttributes(dispute);
  for (const { key } of template?.fields ?? []) {
    const attribute = own(attributes, key);
    if (nonEmpty(own(dispute.fields, key)) || attribute === undefined || attribute === null) continue;
    fields.set(
      key,
      attribute instanceof Date ? (formatTimestamp(attribute) as string) : (attribute as EvidenceValue),
    );
  }
  for (const [key, value] of Object.entries(dispute.fields)) if (nonEmpty(value)) fields.set(key, value);
  return fields;
}

const byKey = ([a]: [string, unknown], [b]: [string, unknown]) => (a < b ? -1 : a > b ? 1 : 0);

/**
 * The evidence as processors receive it, one flat dictionary with its keys sorted:
 * - every client field with a non-empty value, as sent;
 * - for each template field the client left empty, the dispute attribute of the same name when the
 *   dispute knows it (the attributes that satisfy `missing_fields`: `customer_name`, `customer_email`,
 *   `customer_purchase_ip`, `charge`, `amount`, `currency`, `charged_at` (as `YYYY-MM-DDTHH:MM:SS`, UTC),
 *   `statement_descriptor`, `address_zip`);
 * - `customer_name` and `customer_email` from the dispute when known and not sent as fields;
 * - `uncategorized_text`: the template body with its placeholders filled, paragraphs separated by a blank
 *   line, without the item sections (products, correspondence and past payments are sent as items of
 *   their own). Absent when the template has no body; a client field of that name takes precedence.
 */
export function evidenceDictionary(input: EvidenceDocumentInput): Record<string, EvidenceValue> {
  const { dispute, template } = input;
  const dictionary = new Map<string, EvidenceValue>();
  if (dispute.customerName) dictionary.set('customer_name', dispute.customerName);
  if (dispute.customerEmail) dictionary.set('customer_email', dispute.customerEmail);
  if (template?.body) {
    const text = bodyText(renderTemplateBody(template.body, placeholderValues(input)));
    if (text !== '') dictionary.set('uncategorized_text', text);
  }
  for (const [key, value] of evidenceFields(input)) dictionary.set(key, value);
  return Object.fromEntries([...dictionary].sort(byKey));
}

// ---------------------------------------------------------------------------------------------------------
// The document model.

export interface LabelledValue {
  label: string;
  value: string;
}

export type DocumentBlock =
  | { kind: 'heading'; text: string }
  | { kind: 'paragraph'; text: string }
  | { kind: 'table'; table: EvidenceTable }
  | { kind: 'pairs'; title: string; rows: LabelledValue[] }
  | { kind: 'image'; title: string; caption: string; image: DrawnImage };

/** What a reviewer reads, renderer-neutral: the PDF and `documentText` draw the same model. */
export interface EvidenceDocument {
  title: string;
  subtitle: string;
  /** Shown on every page, so that a page printed alone still names its dispute. */
  pageLabel: string;
  generatedAt: Date;
  summary: LabelledValue[];
  blocks: DocumentBlock[];
  /** The images' paths and the files whose pages follow the document's: what the renderer loads. */
  files: DocumentFiles;
}

function summaryRows(dispute: DisputeRecord): LabelledValue[] {
  const customer = joined([dispute.customerName, dispute.customerEmail && `<${dispute.customerEmail}>`], ' ');
  const checks = joined(
    [
      dispute.cvcCheck && `CVC ${dispute.cvcCheck}`,
      dispute.addressZipCheck && `postal code ${dispute.addressZipCheck}`,
      dispute.addressLine1Check && `address line 1 ${dispute.addressLine1Check}`,
    ],
    ', ',
  );
  const moment = (date: Date | null) => date && formatMoment(date);
  const rows: [string, string | null][] = [
    ['Dispute', dispute.id],
    ['Processor', joined([dispute.processor, dispute.account && `account ${dispute.account}`], ', ')],
    ['Reason', humanize(dispute.reason)],
    ['Kind', humanize(dispute.kind)],
    ['Disputed amount', dispute.amount === null ? null : formatAmount(dispute.amount, dispute.currency)],
    ['Charge', dispute.charge],
    ['Statement descriptor', dispute.statementDescriptor],
    ['Customer', customer],
    ['Customer ID', dispute.customer],
    ['Purchase IP address', dispute.customerPurchaseIp],
    ['Card checks', checks],
    ['Charged', moment(dispute.chargedAt)],
    ['Disputed', moment(dispute.disputedAt)],
    ['Response due by', moment(dispute.dueBy)],
    ['Reference', dispute.referenceUrl],
  ];
  return rows.flatMap(([label, value]) => (value ? [{ label, value }] : []));
}

/**
 * The document: a summary of the dispute; a qualified Visa CE 3.0 case; the template body (under the template's name) with the item
 * sections where it places them; then every non-empty section it did not place, so that no evidence item
 * is left out; then the evidence fields, formatted by their template types.
 */
export function buildEvidenceDocument(input: EvidenceDocumentInput): EvidenceDocument {
  const { dispute, template, generatedAt } = input;
  const placer = new ImagePlacer();
  const tables = itemTables(dispute);
  tables.products = withProductImages(tables.products, dispute.products, input.productImages ?? [], placer);
  const body = template?.body ? renderTemplateBody(template.body, placeholderValues(input)) : [];
  const blocks: DocumentBlock[] = compellingEvidenceBlocks(dispute);
  if (body.length > 0) blocks.push({ kind: 'heading', text: template?.name || 'Response' });
  const placeTable = (section: SectionKey) => {
    if (tables[section].rows.length > 0) blocks.push({ kind: 'table', table: tables[section] });
  };
  for (const part of body) {
    if (part.kind === 'paragraph') blocks.push(part);
    else placeTable(part.section);
  }
  const placed = new Set(body.flatMap((part) => (part.kind === 'section' ? [part.section] : [])));
  for (const section of sectionKeys) if (!placed.has(section)) placeTable(section);

  const types = new Map(template?.fields.map((field) => [field.key, field.type]));
  const fields = [...evidenceFields(input)]
    .sort(byKey)
    .map(([key, value]) => ({ label: humanize(key), value: formatField(value, types.get(key), dispute) }));
  if (fields.length > 0) blocks.push({ kind: 'pairs', title: 'Evidence fields', rows: fields });
  blocks.push(...attachmentBlocks(input.files ?? [], placer));

  return {
    title: 'Dispute response',
    subtitle: `Evidence for dispute ${dispute.id}, generated ${formatMoment(generatedAt)}`,
    pageLabel: `Dispute ${dispute.id}`,
    generatedAt,
    summary: summaryRows(dispute),
    blocks,
    files: placer.files,
  };
}

/**
 * A qualified Visa CE 3.0 case, first after the summary: what decides a card-absent fraud dispute for the
 * issuer's analyst (docs/api.md, "Compelling evidence"). Nothing when the case does not qualify.
 */
function compellingEvidenceBlocks(dispute: DisputeRecord): DocumentBlock[] {
  const table = compellingEvidenceTable(dispute);
  if (!table) return [];
  return [
    { kind: 'heading', text: 'Visa Compelling Evidence 3.0' },
    {
      kind: 'paragraph',
      text:
        'The card was used for two earlier payments, made 120 to 365 days before the disputed one, that ' +
        'were neither disputed nor reported as fraud. The data elements below match across all three payments.',
    },
    { kind: 'table', table },
  ];
}

// ---------------------------------------------------------------------------------------------------------
// Plain text.

const indent = (text: string, prefix: string) => text.replace(/^(?=.)/gm, prefix);
const imageText = (image: DrawnImage) => `[Image ${image.file}]`;

/** The model as plain text: headings underlined, tables as numbered records of `Label: value` lines. */
export function documentText(model: EvidenceDocument): string {
  const out = [`${model.title}\n${'='.repeat(model.title.length)}`, model.subtitle];
  const pairs = (rows: LabelledValue[]) => rows.map((row) => `${row.label}: ${row.value}`).join('\n');
  const heading = (text: string) => `${text}\n${'-'.repeat(text.length)}`;
  out.push(pairs(model.summary));
  for (const block of model.blocks) {
    if (block.kind === 'heading') out.push(heading(block.text));
    else if (block.kind === 'paragraph') out.push(block.text);
    else if (block.kind === 'pairs') out.push(heading(block.title), pairs(block.rows));
    else if (block.kind === 'image') out.push(heading(block.title), block.caption, imageText(block.image));
    else {
      const { table } = block;
      out.push(heading(table.title));
      table.rows.forEach((row, index) => {
        const cells = table.columns.flatMap((column, at) => {
          const value = row.cells[at] ?? '';
          return value === '' ? [] : [`${column.label}: ${value.replaceAll('\n', ', ')}`];
        });
        out.push(`${index + 1}. ${indent(cells.join('\n'), '   ').trimStart()}`);
        if (row.detail) out.push(indent(row.detail, '   '));
        if (row.image) out.push(indent(imageText(row.image), '   '));
      });
    }
  }
  return `${out.join('\n\n')}\n`;
}
