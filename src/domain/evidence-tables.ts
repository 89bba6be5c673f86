import {
  type CompellingEvidenceElement,
  compellingEvidenceFields,
  compellingEvidenceOf,
  daysBefore,
  matchedElementValues,
  pastPaymentDate,
} from './compelling-evidence.js';
import type { DisputeRecord } from './disputes.js';
import { type CorrespondenceItem, own, type PastPayment, type Product } from './evidence.js';
import { formatAmount, formatDateValue, formatMoment, joined } from './evidence-format.js';
import type { SectionKey } from './template-body.js';

/** The evidence items of a dispute as the tables of its evidence document, one per item section. */

export interface TableColumn {
  label: string;
  /** Share of the table's width, relative to the other columns. */
  weight: number;
}

export interface TableRow {
  cells: string[];
  /** Long text shown under the row across the table's width (a message's body, a product's description). */
  detail: string | null;
  /** An image drawn under the row (a product's thumbnail). */
  image?: DrawnImage;
  /**
   * The attachment's pages among those appended after the document: the layout turns them into the
   * file's page numbers (the document's own count is known only once it is laid out).
   */
  appended?: AppendedPages;
}

/** An image on the page: where the renderer maps its bytes, which file they are, its size in points. */
export interface DrawnImage {
  path: string;
  file: string;
  width: number;
  height: number;
}

/** An attachment's first and last page among the pages appended after the document. */
export interface AppendedPages {
  first: number;
  last: number;
}

export interface EvidenceTable {
  /** The item section it shows, the list of evidence files, or the Visa CE 3.0 comparison. */
  section: SectionKey | 'attachments' | 'compelling_evidence';
  title: string;
  columns: TableColumn[];
  rows: TableRow[];
}

/** Every item section's table, empty ones included: the document decides where each goes, if anywhere. */
export function itemTables(dispute: DisputeRecord): Record<SectionKey, EvidenceTable> {
  return {
    products: productsTable(dispute.products, dispute.currency),
    correspondence: correspondenceTable(dispute.correspondence),
    past_payments: pastPaymentsTable(dispute.pastPayments),
  };
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

const elementLabels: Record<CompellingEvidenceElement, string> = {
  ip_address: 'IP address',
  device_id: 'Device ID',
  shipping_address: 'Shipping address',
  customer_account_id: 'Customer account / login',
};

/**
 * The Visa CE 3.0 comparison (docs/api.md, "Compelling evidence"): the disputed payment and the two prior
 * payments the verdict compared, as columns; their ids, dates, amounts and descriptions, then one row per
 * matched element. Only for a `qualified` verdict: the document goes to the issuer, and a case that does
 * not qualify is not put forward as one. Null otherwise.
 */
export function compellingEvidenceTable(dispute: DisputeRecord): EvidenceTable | null {
  const verdict = compellingEvidenceOf(dispute);
  if (verdict?.status !== 'qualified' || !dispute.chargedAt) return null;
  const chargedAt = dispute.chargedAt;
  const prior = verdict.prior_payments.map((id) => dispute.pastPayments.find((payment) => payment.id === id));
  const [first, second] = prior;
  if (!first || !second) return null;
  const dated = (payment: PastPayment) => {
    const date = pastPaymentDate(payment);
    return date ? `${formatMoment(date)}\n${daysBefore(chargedAt, date)} days before` : '';
  };
  const description = own(dispute.fields, compellingEvidenceFields.description);
  const disputedItem =
    description !== undefined && description !== null && description !== ''
      ? String(description)
      : dispute.products.map((product) => product.name).join('\n');
  const row = (label: string, disputed: string, earlier: (payment: PastPayment) => string): TableRow => ({
    cells: [label, disputed, earlier(first), earlier(second)],
    detail: null,
  });
  return {
    section: 'compelling_evidence',
    title: 'Matching data elements',
    columns: [
      { label: 'Data', weight: 1.5 },
      { label: 'Disputed payment', weight: 2.3 },
      { label: 'Prior undisputed payment', weight: 2.3 },
      { label: 'Prior undisputed payment', weight: 2.3 },
    ],
    rows: [
      row('Payment', dispute.charge ?? '', (payment) => payment.id),
      row('Date', formatMoment(chargedAt), dated),
      row(
        'Amount',
        dispute.amount === null ? '' : formatAmount(dispute.amount, dispute.currency),
        (payment) => formatAmount(payment.amount, payment.currency),
      ),
      row('Description', disputedItem, (payment) => payment.item_description ?? ''),
      ...matchedElementValues(dispute, verdict).map((match) => ({
        cells: [elementLabels[match.element], match.disputed, ...match.prior],
        detail: null,
      })),
    ],
  };
}
