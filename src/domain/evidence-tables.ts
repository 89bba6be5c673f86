import type { DisputeRecord } from './disputes.js';
import type { CorrespondenceItem, PastPayment, Product } from './evidence.js';
import { formatAmount, formatDateValue, joined } from './evidence-format.js';
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
  /** The item section it shows, or the list of evidence files. */
  section: SectionKey | 'attachments';
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
