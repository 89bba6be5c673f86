import { latestById } from '../../domain/mirrored-changes.js';
import { type ReportRow, readReportRows } from '../report-files.js';
import type { NormalizedDispute } from '../types.js';
import { type DisputeEvent, disputeFromEvent, eventRules, fraudNotificationCode } from './mapping.js';

/**
 * Adyen's Dispute transaction details report (Customer Area, Reports; dispute_report_YYYY_MM_DD.csv;
 * docs.adyen.com/reporting/disputed-transactions). One row per dispute event, named by its Record Type
 * (the event code in CamelCase: NotificationOfChargeback is NOTIFICATION_OF_CHARGEBACK), so a dispute is
 * read from its latest row, as from its latest webhook. The report carries no disputeStatus: each record
 * type's own status is assumed (mapping.ts, eventRules). Dates are in the account's time zone, named in a
 * "<column> TimeZone" column beside each date. NotificationOfFraud rows are issuers' fraud reports, not
 * disputes: they are left out (they reach this service as alerts by the webhook, docs/api.md, "Alerts").
 */
export const reportColumns = {
  disputeReference: 'Dispute PSP Reference',
  paymentReference: 'Psp Reference',
  paymentMethod: 'Payment Method',
  recordType: 'Record Type',
  recordDate: 'Record Date',
  currency: 'Dispute Currency',
  amount: 'Dispute Amount',
  rfiScheme: 'RFI Scheme Code',
  rfiReason: 'RFI Reason Code',
  chargebackScheme: 'CB Scheme Code',
  chargebackReason: 'CB Reason Code',
  paymentDate: 'Payment Date',
  disputeDate: 'Dispute Date',
  disputeEndDate: 'Dispute End Date',
} as const;

const required = [
  reportColumns.disputeReference,
  reportColumns.recordType,
  reportColumns.recordDate,
  reportColumns.currency,
  reportColumns.amount,
];

/** Offsets (minutes east of UTC) of the zone abbreviations Adyen's reports name; IST is ambiguous. */
export const zoneOffsets: Record<string, number> = {
  UTC: 0,
  GMT: 0,
  WET: 0,
  WEST: 60,
  BST: 60,
  CET: 60,
  CEST: 120,
  EET: 120,
  EEST: 180,
  MSK: 180,
  EST: -300,
  EDT: -240,
  CST: -360,
  CDT: -300,
  MST: -420,
  MDT: -360,
  PST: -480,
  PDT: -420,
  AKST: -540,
  AKDT: -480,
  HST: -600,
  BRT: -180,
  ART: -180,
  SGT: 480,
  HKT: 480,
  AWST: 480,
  JST: 540,
  KST: 540,
  ACST: 570,
  ACDT: 630,
  AEST: 600,
  AEDT: 660,
  NZST: 720,
  NZDT: 780,
};

export function readAdyenReport(csv: string): NormalizedDispute[] {
  const events = readReportRows(csv, required)
    .map(eventOfRow)
    .filter((event): event is DisputeEvent => event !== null);
  // A file lists events as they were booked; the latest of each dispute is its state.
  const ordered = events
    .map((event, at) => ({ event, at }))
    .sort((a, b) => a.event.eventDate.getTime() - b.event.eventDate.getTime() || a.at - b.at);
  return latestById(ordered.map(({ event }) => disputeFromEvent(event)));
}

/** The row's dispute event; null for a fraud report's row. */
function eventOfRow(row: ReportRow): DisputeEvent | null {
  const value = (column: string) => row.get(column) || null;
  const recordType = row.get(reportColumns.recordType);
  const eventCode = recordType.replace(/(?<=[a-z])(?=[A-Z])/g, '_').toUpperCase();
  if (eventCode === fraudNotificationCode) return null;
  if (!Object.hasOwn(eventRules, eventCode)) throw row.fail(`"${recordType}" is not a dispute record type`);
  const reference = row.get(reportColumns.disputeReference);
  if (!reference) throw row.fail(`"${reportColumns.disputeReference}" is empty`);
  const { amount, currency } = row.amount(reportColumns.amount, reportColumns.currency);
  const date = (column: string) => {
    const text = row.get(column);
    if (!text) return null;
    const at = momentOf(text, row.get(`${column} TimeZone`) || 'UTC');
    if (!at) throw row.fail(`"${column}" ${text} ${row.get(`${column} TimeZone`)} is not a date`.trimEnd());
    return at;
  };
  const recordDate = date(reportColumns.recordDate);
  if (!recordDate) throw row.fail(`"${reportColumns.recordDate}" is empty`);
  return {
    pspReference: reference,
    originalReference: value(reportColumns.paymentReference),
    eventCode,
    eventDate: recordDate,
    amount,
    currency,
    dueBy: date(reportColumns.disputeEndDate),
    disputedAt: date(reportColumns.disputeDate),
    chargedAt: date(reportColumns.paymentDate),
    chargeback: {
      reason: value(reportColumns.chargebackReason),
      scheme: value(reportColumns.chargebackScheme),
    },
    rfi: { reason: value(reportColumns.rfiReason), scheme: value(reportColumns.rfiScheme) },
    paymentMethod: value(reportColumns.paymentMethod),
    shopperReference: null,
  };
}

/** `2024-04-22 19:58:55` (or a bare date) in a named zone or a `+01:00` offset. */
function momentOf(text: string, zone: string): Date | null {
  const match = /^(\d{4})-(\d{2})-(\d{2})(?:[ T](\d{2}):(\d{2})(?::(\d{2}))?)?$/.exec(text);
  const offset = offsetOf(zone.trim().toUpperCase());
  if (!match || offset === null) return null;
  const [year, month, day, hour, minute, second] = match.slice(1).map((part) => Number(part ?? 0)) as [
    number,
    number,
    number,
    number,
    number,
    number,
  ];
  const local = new Date(Date.UTC(year, month - 1, day, hour, minute, second));
  // Date.UTC rolls 2024-02-30 over into March: a date that does not come back as written is not one.
  const exact =
    local.getUTCMonth() === month - 1 && local.getUTCDate() === day && local.getUTCHours() === hour;
  return exact && minute < 60 && second < 60 ? new Date(local.getTime() - offset * 60_000) : null;
}

function offsetOf(zone: string): number | null {
  if (Object.hasOwn(zoneOffsets, zone)) return zoneOffsets[zone] as number;
  const numeric = /^([+-])(\d{2}):?(\d{2})$/.exec(zone);
  if (!numeric) return null;
  const [, sign, hours = '0', minutes = '0'] = numeric;
  return (sign === '-' ? -1 : 1) * (Number(hours) * 60 + Number(minutes));
}
