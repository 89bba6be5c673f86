import { type DisputeRecord, fillingAttributes, formatTimestamp, toDisputeObject } from './disputes.js';
import type { CorrespondenceItem, FieldValue, PastPayment, Product } from './evidence.js';
import { parseTimestamp } from './params.js';
import type { FieldType, TemplateField } from './templates.js';

/**
 * Terminology:
 * - evidence dictionary: the evidence as processors receive it (`evidenceDictionary`);
 * - evidence document: what a person reads, as a plain data model (`buildEvidenceDocument`) that the PDF
 *   renderer (documents/pdf.ts) and `documentText` both draw;
 * - template body: the template's text with `{{key}}` placeholders, rendered by `renderTemplateBody`.
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
}

export type EvidenceValue = string | number | boolean;

// ---------------------------------------------------------------------------------------------------------
// Formatting: amounts in major units with the currency code, moments as UTC dates.

const exponents = new Map<string, number>();

/** Minor-unit digits of a currency, from ICU under a fixed locale; 2 for a code ICU does not know. */
function minorUnitExponent(code: string): number {
  let exponent = exponents.get(code);
  if (exponent === undefined) {
    try {
      const format = new Intl.NumberFormat('en-US', { style: 'currency', currency: code });
      exponent = format.resolvedOptions().maximumFractionDigits ?? 2;
    } catch {
      exponent = 2;
    }
    exponents.set(code, exponent);
  }
  return exponent;
}

/** `4999, 'usd'` → `49.99 USD`; `5000, 'jpy'` → `5000 JPY`; no currency: the bare number. */
function formatAmount(amount: number, currency: string | null): string {
  if (!currency || !Number.isSafeInteger(amount)) return String(amount);
  const code = currency.toUpperCase();
  const exponent = minorUnitExponent(code);
  const digits = Math.abs(amount)
    .toString()
    .padStart(exponent + 1, '0');
  const whole = digits.slice(0, digits.length - exponent);
  const fraction = exponent > 0 ? `.${digits.slice(digits.length - exponent)}` : '';
  return `${amount < 0 ? '-' : ''}${whole}${fraction} ${code}`;
}

/** `YYYY-MM-DD`, with ` HH:MM UTC` when the time is not midnight. */
function formatMoment(date: Date): string {
  const iso = date.toISOString();
  const time = iso.slice(11, 16);
  return time === '00:00' ? iso.slice(0, 10) : `${iso.slice(0, 10)} ${time} UTC`;
}

/** A date as sent (Unix seconds or ISO 8601); anything else is shown as it was written. */
function formatDateValue(value: string | number): string {
  const date = parseTimestamp(value);
  return date ? formatMoment(date) : String(value);
}

function formatScalar(value: EvidenceValue): string {
  if (typeof value === 'boolean') return value ? 'yes' : 'no';
  return String(value);
}

/** A key's value, never one inherited from Object's prototype (`constructor` is a valid field key). */
const own = <T>(record: Record<string, T>, key: string): T | undefined =>
  Object.hasOwn(record, key) ? record[key] : undefined;

const nonEmpty = (value: FieldValue | undefined): value is EvidenceValue =>
  value !== undefined && value !== null && value !== '';

/** Dispute attributes that are amounts, with the attribute holding their currency. */
const amountAttributes: Record<string, 'currency' | 'reversal_currency'> = {
  amount: 'currency',
  fee: 'currency',
  reversal_amount: 'reversal_currency',
  reversal_total: 'reversal_currency',
};
const momentAttributes = new Set([
  'charged_at',
  'disputed_at',
  'due_by',
  'submitted_at',
  'closed_at',
  'created',
  'updated',
]);
/** API plumbing rather than facts about the dispute. */
const hiddenAttributes = new Set(['object', 'url']);

function formatField(value: EvidenceValue, type: FieldType | undefined, dispute: DisputeRecord): string {
  if (type === 'amount' && typeof value === 'number') return formatAmount(value, dispute.currency);
  if (type === 'date' && typeof value !== 'boolean') return formatDateValue(value);
  return formatScalar(value);
}

// ---------------------------------------------------------------------------------------------------------
// Placeholders and the template body.

/**
 * The text of each `{{key}}`: the dispute's attributes under their API names, formatted for a reader,
 * overridden by the field of the same name. A field is formatted by its template type; one the template
 * does not declare takes the format of the attribute it is named after (a field `amount` is an amount).
 */
export function placeholderValues(input: EvidenceDocumentInput): Record<string, string> {
  const { dispute, template } = input;
  const object: Record<string, unknown> = toDisputeObject(dispute, template);
  const values: Record<string, string> = {};
  for (const [key, value] of Object.entries(object)) {
    if (hiddenAttributes.has(key) || value === null || typeof value === 'object') continue;
    const currencyKey = amountAttributes[key];
    if (currencyKey && typeof value === 'number') {
      values[key] = formatAmount(value, (object[currencyKey] as string | null) ?? dispute.currency);
    } else if (momentAttributes.has(key) && typeof value === 'string') {
      values[key] = formatDateValue(value);
    } else if (key === 'currency' || key === 'reversal_currency') {
      values[key] = String(value).toUpperCase();
    } else {
      values[key] = formatScalar(value as EvidenceValue);
    }
  }
  const types = new Map(template?.fields.map((field) => [field.key, field.type]));
  for (const [key, value] of Object.entries(dispute.fields)) {
    if (!nonEmpty(value)) continue;
    const type =
      types.get(key) ??
      (own(amountAttributes, key) ? 'amount' : momentAttributes.has(key) ? 'date' : undefined);
    values[key] = formatField(value, type, dispute);
  }
  return values;
}

const sectionKeys = ['products', 'correspondence', 'past_payments'] as const;
export type SectionKey = (typeof sectionKeys)[number];

/** The template body in reading order: paragraphs of filled text, and the places of the item sections. */
export type BodyPart = { kind: 'paragraph'; text: string } | { kind: 'section'; section: SectionKey };

const sectionLine = /^\s*\{\{\s*(products|correspondence|past_payments)\s*\}\}\s*$/;
const placeholder = /\{\{([^{}]*)\}\}/g;

/**
 * Fills `{{key}}` (spaces inside the braces allowed) from `values`; an unknown or empty key becomes empty
 * text, never the raw placeholder. A line holding only `{{products}}`, `{{correspondence}}` or
 * `{{past_payments}}` places that section there (its first such line only). Blank lines separate
 * paragraphs; a paragraph keeps its single line breaks. Values are inserted once, never re-read as
 * template text.
 */
export function renderTemplateBody(body: string, values: Readonly<Record<string, string>>): BodyPart[] {
  const parts: BodyPart[] = [];
  const placed = new Set<SectionKey>();
  let lines: string[] = [];
  const flush = () => {
    const filled = lines.join('\n').replace(placeholder, (_, key: string) => {
      return own(values, key.trim()) ?? '';
    });
    for (const paragraph of filled.split(/\n[ \t]*\n/)) {
      const text = paragraph.replace(/[ \t]+$/gm, '').replace(/^\n+|\n+$/g, '');
      if (text.trim() !== '') parts.push({ kind: 'paragraph', text });
    }
    lines = [];
  };
  for (const line of body.replace(/\r\n?/g, '\n').split('\n')) {
    const section = sectionLine.exec(line)?.[1] as SectionKey | undefined;
    if (section && !placed.has(section)) {
      flush();
      placed.add(section);
      parts.push({ kind: 'section', section });
    } else if (!section) {
      lines.push(line);
    }
  }
  flush();
  return parts;
}

/** The body as one text: its paragraphs; the item sections travel as items of their own, not as text. */
function bodyText(parts: BodyPart[]): string {
  return parts.flatMap((part) => (part.kind === 'paragraph' ? [part.text] : [])).join('\n\n');
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

export interface TableColumn {
  label: string;
  /** Share of the table's width, relative to the other columns. */
  weight: number;
}

export interface TableRow {
  cells: string[];
  /** Long text shown under the row across the table's width (a message's body, a product's description). */
  detail: string | null;
}

export interface EvidenceTable {
  section: SectionKey;
  title: string;
  columns: TableColumn[];
  rows: TableRow[];
}

export type DocumentBlock =
  | { kind: 'heading'; text: string }
  | { kind: 'paragraph'; text: string }
  | { kind: 'table'; table: EvidenceTable }
  | { kind: 'pairs'; title: string; rows: LabelledValue[] };

/** What a reviewer reads, renderer-neutral: the PDF and `documentText` draw the same model. */
export interface EvidenceDocument {
  title: string;
  subtitle: string;
  /** Shown on every page, so that a page printed alone still names its dispute. */
  pageLabel: string;
  generatedAt: Date;
  summary: LabelledValue[];
  blocks: DocumentBlock[];
}

const humanize = (code: string) => {
  const words = code.replace(/[_\-.]+/g, ' ').trim();
  return words.charAt(0).toUpperCase() + words.slice(1);
};

function joined(values: (string | null | undefined)[], separator: string): string {
  return values.filter((value): value is string => Boolean(value)).join(separator);
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

const timeValue = (value: string | number | undefined) => (value === undefined ? '' : formatDateValue(value));

function productsTable(products: Product[], currency: string | null): EvidenceTable {
  return {
    section: 'products',
    title: `Products (${products.length})`,
    columns: [
      { label: 'Product', weight: 3.2 },
      { label: 'SKU', weight: 1.4 },
      { label: 'Qty', weight: 0.7 },
      { label: 'Amount', weight: 1.3 },
      { label: 'Shipping', weight: 2.4 },
    ],
    rows: products.map((product) => ({
      cells: [
        joined([product.name, product.url], '\n'),
        product.sku ?? '',
        String(product.quantity),
        formatAmount(product.amount, currency),
        joined([product.shipping_carrier, product.shipping_tracking_number], '\n'),
      ],
      detail: product.description || null,
    })),
  };
}

function correspondenceTable(items: CorrespondenceItem[]): EvidenceTable {
  return {
    section: 'correspondence',
    title: `Correspondence (${items.length})`,
    columns: [
      { label: 'Sent', weight: 1.6 },
      { label: 'From', weight: 2.1 },
      { label: 'To', weight: 2.1 },
      { label: 'Subject', weight: 3.2 },
    ],
    rows: items.map((item) => ({
      cells: [timeValue(item.sent), item.from, item.to, item.subject],
      detail: joined([item.body, item.caption && `Caption: ${item.caption}`], '\n\n') || null,
    })),
  };
}

function pastPaymentsTable(payments: PastPayment[]): EvidenceTable {
  return {
    section: 'past_payments',
    title: `Past payments (${payments.length})`,
    columns: [
      { label: 'Payment', weight: 2.3 },
      { label: 'Charged', weight: 1.5 },
      { label: 'Amount', weight: 1.3 },
      { label: 'Device / user', weight: 1.6 },
      { label: 'IP address', weight: 1.4 },
      { label: 'Item', weight: 1.8 },
      { label: 'Shipping address', weight: 2.2 },
    ],
    rows: payments.map((payment) => ({
      cells: [
        payment.id,
        timeValue(payment.charged_at),
        formatAmount(payment.amount, payment.currency),
        joined([payment.device_id, payment.user_id && `user ${payment.user_id}`], '\n'),
        payment.ip_address ?? '',
        payment.item_description ?? '',
        payment.shipping_address ?? '',
      ],
      detail: null,
    })),
  };
}

/**
 * The document: a summary of the dispute; the template body (under the template's name) with the item
 * sections where it places them; then every non-empty section it did not place, so that no evidence item
 * is left out; then the evidence fields, formatted by their template types.
 */
export function buildEvidenceDocument(input: EvidenceDocumentInput): EvidenceDocument {
  const { dispute, template, generatedAt } = input;
  const tables: Record<SectionKey, EvidenceTable> = {
    products: productsTable(dispute.products, dispute.currency),
    correspondence: correspondenceTable(dispute.correspondence),
    past_payments: pastPaymentsTable(dispute.pastPayments),
  };
  const body = template?.body ? renderTemplateBody(template.body, placeholderValues(input)) : [];
  const blocks: DocumentBlock[] =
    body.length > 0 ? [{ kind: 'heading', text: template?.name || 'Response' }] : [];
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

  return {
    title: 'Dispute response',
    subtitle: `Evidence for dispute ${dispute.id}, generated ${formatMoment(generatedAt)}`,
    pageLabel: `Dispute ${dispute.id}`,
    generatedAt,
    summary: summaryRows(dispute),
    blocks,
  };
}

// ---------------------------------------------------------------------------------------------------------
// Plain text.

const indent = (text: string, prefix: string) => text.replace(/^(?=.)/gm, prefix);

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
      });
    }
  }
  return `${out.join('\n\n')}\n`;
}
