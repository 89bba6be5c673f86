import { latestById } from '../../domain/mirrored-changes.js';
import { type ReportRow, readReportRows } from '../report-files.js';
import type { NormalizedDispute } from '../types.js';
import {
  cycleKinds,
  disputeFromRecord,
  statusRules,
  type WorldpayRecord,
  type WorldpayStatus,
} from './mapping.js';

/**
 * The dispute list exported from Worldpay's portal, read by `dispute import`. Worldpay publishes no
 * column names for it, so the columns are named plainly after the fields its Dashboard and Merchant
 * Interface show (docs/architecture.md, "Worldpay", help.worldpay.com/disputes-page-overview): the order
 * code the payment was made under, its dispute status, the cycle, the reason code and category, the card
 * network (the Dispute Resolution Centre's Network column), the chargeback amount and currency, the due
 * date, the transaction date, and the date of the status. Other columns (MID, card number, transaction
 * amount) are ignored. Dates are `YYYY-MM-DD` or the UK's `DD/MM/YYYY`.
 */
export const reportColumns = {
  orderCode: 'Order Code',
  status: 'Status',
  cycle: 'Cycle',
  reasonCode: 'Reason Code',
  reasonCategory: 'Reason Category',
  network: 'Network',
  amount: 'Chargeback Amount',
  currency: 'Currency',
  dueDate: 'Due Date',
  transactionDate: 'Transaction Date',
  statusDate: 'Status Date',
} as const;

const required = [
  reportColumns.orderCode,
  reportColumns.status,
  reportColumns.amount,
  reportColumns.currency,
];

export function readWorldpayReport(csv: string): NormalizedDispute[] {
  return latestById(readReportRows(csv, required).map((row) => disputeFromRecord(recordOfRow(row))));
}

function recordOfRow(row: ReportRow): WorldpayRecord {
  const reference = row.get(reportColumns.orderCode);
  if (!reference) throw row.fail(`"${reportColumns.orderCode}" is empty`);
  const statusText = row.get(reportColumns.status);
  const status = statusText.toUpperCase().replace(/[\s-]+/g, '_');
  if (!Object.hasOwn(statusRules, status)) throw row.fail(`"${statusText}" is not a dispute status`);
  const cycle = row.get(reportColumns.cycle);
  const kind = cycle ? cycleKinds[cycle.toLowerCase()] : null;
  if (kind === undefined) throw row.fail(`"${cycle}" is not a dispute cycle`);
  const { amount, currency } = row.amount(reportColumns.amount, reportColumns.currency);
  const date = (column: string) => {
    const text = row.get(column);
    if (!text) return null;
    const at = dayOf(text);
    if (!at) throw row.fail(`"${column}" ${text} is not a date`);
    return at;
  };
  return {
    reference,
    status: status as WorldpayStatus,
    kind,
    at: date(reportColumns.statusDate),
    amount,
    currency,
    chargedAt: date(reportColumns.transactionDate),
    // The day evidence is due by, taken from its start: answering must not wait for its last hour.
    dueBy: date(reportColumns.dueDate),
    reasonCode: row.get(reportColumns.reasonCode) || null,
    reasonCategory: row.get(reportColumns.reasonCategory) || null,
    network: row.get(reportColumns.network) || null,
  };
}

/** `2026-07-20` or `20/07/2026`, at the start of the day, UTC. */
function dayOf(text: string): Date | null {
  const iso = /^(\d{4})-(\d{2})-(\d{2})$/.exec(text);
  const uk = /^(\d{2})\/(\d{2})\/(\d{4})$/.exec(text);
  const [year, month, day] = iso
    ? [iso[1], iso[2], iso[3]].map(Number)
    : uk
      ? [uk[3], uk[2], uk[1]].map(Number)
      : [Number.NaN, Number.NaN, Number.NaN];
  const at = new Date(Date.UTC(year as number, (month as number) - 1, day as number));
  return at.getUTCFullYear() === year && at.getUTCMonth() === (month as number) - 1 && at.getUTCDate() === day
    ? at
    : null;
}
