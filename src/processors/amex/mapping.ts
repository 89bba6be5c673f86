import { Failure } from '../../domain/failure.js';
import { type AmountProblem, readMinorUnits } from '../../domain/money.js';
import { closedStates, type DisputeState } from '../../domain/states.js';
import type { kinds } from '../../domain/vocabulary.js';
import { folded, foldKeys } from '../folded-names.js';
import { reported } from '../network-names.js';
import { networkReason } from '../network-reasons.js';
import { normalizedDispute } from '../normalized.js';
import type { NormalizedDispute } from '../types.js';

/**
 * American Express disputes as the Disputes tool of the Amex Merchant Account lists them in its CSV
 * download. Amex publishes no merchant disputes API and no description of this file (docs/architecture.md,
 * "Amex"). The column names are those a public guide to downloading it shows
 * (developers.justt.ai/docs/amex-extract: "Case Number", "Type", "Status", "Reason Code", "Amount" with
 * "Include currency" ticked, "Date Received", "Transaction Date", "Charge Reference Number"); the rest are
 * named as the tool's case page names its fields (americanexpress.com/us/merchant/support-center/disputes/
 * managing-a-disputes-case.html: "Case Type", "Disputes Amount", the reply-by date). Each field is found
 * under any of its names, whatever their case and spacing; status and type values are a judgement from
 * the tool's tabs ("Response Needed", "Review in Progress", "Closed") and docs/architecture.md, "Amex".
 */

type Kind = (typeof kinds)[number];

export const reportColumns = {
  caseNumber: ['Case Number'],
  type: ['Type', 'Case Type'],
  status: ['Status'],
  reasonCode: ['Reason Code'],
  amount: ['Amount', 'Dispute Amount', 'Disputes Amount'],
  currency: ['Currency', 'Dispute Currency'],
  replyBy: ['Reply By Date', 'Reply By', 'Respond By', 'Expiration Date'],
  received: ['Date Received', 'Case Date'],
  charged: ['Transaction Date', 'Charge Date'],
  charge: ['Charge Reference Number', 'Reference Number'],
  closed: ['Closed Date', 'Status Date'],
  cardMemberName: ['Card Member Name', 'Cardmember Name'],
} as const;
export type ReportField = keyof typeof reportColumns;

/** Without these a row says nothing usable. */
export const requiredFields: readonly ReportField[] = ['caseNumber', 'type', 'status', 'amount'];

/**
 * Case types (the summary table's "type of Dispute"). An Inquiry asks for support before any chargeback;
 * a Dispute Alert (Accelerated Dispute Resolution) likewise warns before one: both are retrieval-like.
 */
export const caseTypes: Record<string, Kind> = {
  Chargeback: 'chargeback',
  'Upfront Chargeback': 'chargeback',
  Inquiry: 'retrieval',
  'Dispute Alert': 'retrieval',
};

type StatePair = { chargeback: DisputeState; inquiry: DisputeState };
const open: StatePair = { chargeback: 'needs_response', inquiry: 'warning_needs_response' };
const inReview: StatePair = { chargeback: 'under_review', inquiry: 'warning_under_review' };
const reversed: StatePair = { chargeback: 'won', inquiry: 'warning_closed' };
// An inquiry left unanswered becomes a chargeback (R13, no reply): the merchant lost it (section 8.4).
const upheld: StatePair = { chargeback: 'lost', inquiry: 'lost' };

/** Statuses, by the state of a chargeback and of an inquiry in them. */
export const statusStates: Record<string, StatePair> = {
  'Response Needed': open,
  Open: open,
  New: open,
  'Review in Progress': inReview,
  'In Review': inReview,
  Responded: inReview,
  Won: reversed,
  Reversed: reversed,
  'Chargeback Reversed': reversed,
  // Amex debits a chargeback when it is raised: one closed without being reversed stays debited.
  Closed: { chargeback: 'lost', inquiry: 'warning_closed' },
  Lost: upheld,
  Upheld: upheld,
  'Chargeback Upheld': upheld,
  'No Reply': upheld,
  Expired: upheld,
  Refunded: { chargeback: 'charge_refunded', inquiry: 'charge_refunded' },
};

/** A cell Amex wrote that this service cannot read, named by its field. */
export class CellProblem extends Failure {
  override readonly name = 'CellProblem';
  readonly permanent = true;
  readonly field: ReportField;

  constructor(field: ReportField, message: string) {
    super(message);
    this.field = field;
  }
}

const typesByName = foldKeys(caseTypes);
const statusesByName = foldKeys(statusStates);

/** Where each field is in a header row: its column index, by any of its names. */
export function fieldColumns(header: readonly string[]): Partial<Record<ReportField, number>> {
  const found: Partial<Record<ReportField, number>> = {};
  const names = header.map(folded);
  for (const [field, aliases] of Object.entries(reportColumns) as [ReportField, readonly string[]][]) {
    const wanted = new Set(aliases.map(folded));
    const index = names.findIndex((name) => wanted.has(name));
    if (index >= 0) found[field] = index;
  }
  return found;
}

/** What is wrong with an amount cell, in the words the import reports it with. */
const amountProblems: Record<AmountProblem, (code: string) => string> = {
  not_decimal: () => 'is not an amount',
  too_many_decimals: (code) => `has more decimals than ${code} takes`,
  too_large: () => 'is too large',
};

/**
 * An amount cell (`USD 1,234.56`, `1234.56 USD`, `$1,234.56`, `(12.00)`) in minor units, exactly, with
 * its currency from the cell or the currency column. Chargebacks may show as debits (a sign or
 * parentheses): the disputed amount is the size.
 */
export function amountOf(
  cell: string,
  currencyCell: string | undefined,
): { amount: number; currency: string } {
  const text = cell.trim();
  const coded = /^([A-Za-z]{3})\s*(.*)$/.exec(text) ?? /^(.*?)\s*([A-Za-z]{3})$/.exec(text);
  const [inCell, figure] = coded
    ? /^[A-Za-z]{3}$/.test(coded[1] ?? '')
      ? [coded[1], coded[2] ?? '']
      : [coded[2], coded[1] ?? '']
    : [undefined, text];
  const fromColumn = currencyCell?.trim() || undefined;
  if (fromColumn !== undefined && !/^[A-Za-z]{3}$/.test(fromColumn)) {
    throw new CellProblem('currency', `"${fromColumn}" is not a currency code`);
  }
  if (inCell && fromColumn && inCell.toUpperCase() !== fromColumn.toUpperCase()) {
    throw new CellProblem('amount', `the amount is in ${inCell} but the currency column says ${fromColumn}`);
  }
  const code = (inCell ?? fromColumn)?.toUpperCase();
  if (!code) {
    throw new CellProblem(
      'amount',
      `"${cell}" has no currency (download the report with "Include currency")`,
    );
  }
  const decimal = /^\(?-?\$?((?:\d{1,3}(?:,\d{3})*|\d+)(?:\.\d+)?)\)?$/.exec(figure.replace(/\s/g, ''))?.[1];
  if (decimal === undefined) throw new CellProblem('amount', `"${cell}" is not an amount`);
  const read = readMinorUnits(decimal.replace(/,/g, ''), code);
  if ('problem' in read) throw new CellProblem('amount', `"${cell}" ${amountProblems[read.problem](code)}`);
  return { amount: read.amount, currency: code.toLowerCase() };
}

/**
 * A date cell: `MM/DD/YYYY` as the US Merchant Account writes dates, or `YYYY-MM-DD`; the start of the day
 * in UTC. Empty is none.
 */
export function dateOf(field: ReportField, cell: string | undefined): Date | null {
  const text = cell?.trim() ?? '';
  if (text === '') return null;
  const us = /^(\d{1,2})\/(\d{1,2})\/(\d{4})$/.exec(text);
  const iso = /^(\d{4})-(\d{2})-(\d{2})$/.exec(text);
  const [year, month, day] = us ? [us[3], us[1], us[2]] : iso ? [iso[1], iso[2], iso[3]] : [];
  const date = new Date(Date.UTC(Number(year), Number(month) - 1, Number(day)));
  if (!year || date.getUTCDate() !== Number(day) || date.getUTCMonth() !== Number(month) - 1) {
    throw new CellProblem(field, `"${text}" is not a date (MM/DD/YYYY or YYYY-MM-DD)`);
  }
  return date;
}

/** One report row, its cells by field, as this service's dispute. */
export function disputeFromRow(cells: Partial<Record<ReportField, string>>): NormalizedDispute {
  const id = cells.caseNumber?.trim() ?? '';
  if (id === '') throw new CellProblem('caseNumber', 'the case number is empty');
  const kind = typesByName.get(folded(cells.type ?? ''));
  if (!kind) throw new CellProblem('type', `"${cells.type ?? ''}" is not a known case type`);
  const states = statusesByName.get(folded(cells.status ?? ''));
  if (!states) throw new CellProblem('status', `"${cells.status ?? ''}" is not a known status`);
  const state = kind === 'retrieval' ? states.inquiry : states.chargeback;
  const { amount, currency } = amountOf(cells.amount ?? '', cells.currency);
  const dueBy = dateOf('replyBy', cells.replyBy);
  const disputedAt = dateOf('received', cells.received);
  const chargedAt = dateOf('charged', cells.charged);
  // The report names no closing day of its own: the latest day the row holds stands in, so that importing
  // the same file again changes nothing.
  const latest = [dueBy, disputedAt, chargedAt].reduce<Date | null>(
    (later, date) => (date && (!later || date > later) ? date : later),
    null,
  );
  return normalizedDispute({
    id,
    state,
    reason: networkReason(cells.reasonCode, 'amex'),
    kind,
    chargedAt,
    disputedAt,
    dueBy,
    closedAt: closedStates.includes(state) ? (dateOf('closed', cells.closed) ?? latest) : null,
    charge: cells.charge?.trim() || null,
    amount,
    currency,
    customerName: cells.cardMemberName?.trim() || null,
    // Amex is its own network; the status as the Disputes tool writes it ("Response Needed").
    network: 'amex',
    networkReasonCode: reported(cells.reasonCode),
    processorStatus: reported(cells.status),
  });
}
