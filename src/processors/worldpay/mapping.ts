import { z } from 'zod';
import { closedStates, type DisputeState } from '../../domain/states.js';
import type { kinds, Reason } from '../../domain/vocabulary.js';
import { startOfDay } from '../dates.js';
import { type NetworkSpellings, networkReader, reported } from '../network-names.js';
import { networkReason } from '../network-reasons.js';
import { normalizedDispute } from '../normalized.js';
import type { NormalizedDispute } from '../types.js';

/**
 * Worldpay disputes in this service's vocabulary. Worldpay tells a dispute as a status of the disputed
 * payment (docs/architecture.md, "Worldpay"): the Merchant Interface's Dispute Management statuses
 * (support.worldpay.com/support/kb/gg/merchantadmininterface/content/5risk/dispute_management.htm), which
 * its Events webhook spells in camelCase, and the Worldpay Dashboard's "In progress" / "Expired"
 * (help.worldpay.com/disputes-page-overview). A dispute is known by the payment's transaction reference
 * (the order code): an information request and the chargeback that follows it are one dispute.
 */

type Kind = (typeof kinds)[number];

export const worldpayStatuses = [
  'INFORMATION_REQUESTED',
  'INFORMATION_SUPPLIED',
  'CHARGED_BACK',
  'CHARGEBACK_REVERSED',
  'IN_PROGRESS',
  'EXPIRED',
] as const;
export type WorldpayStatus = (typeof worldpayStatuses)[number];

interface StatusRule {
  /** The kind the status itself says; otherwise the dispute's cycle does, or it is a chargeback. */
  kind?: Kind;
  /** The status is news of a new dispute (or stage): its date is when it was disputed. */
  opens: boolean;
  state: Record<Kind, DisputeState>;
}

const every = (state: DisputeState): Record<Kind, DisputeState> => ({
  retrieval: state,
  chargeback: state,
  pre_arbitration: state,
});

export const statusRules: Record<WorldpayStatus, StatusRule> = {
  // "A request for information ... the amount of the disputed transaction has been held": a chargeback
  // usually follows if it is not answered.
  INFORMATION_REQUESTED: { kind: 'retrieval', opens: true, state: every('warning_needs_response') },
  // Defence sent; "some acquirers do not notify Worldpay if they drop the chargeback", so it may stay here.
  INFORMATION_SUPPLIED: {
    opens: false,
    state: { retrieval: 'warning_under_review', chargeback: 'under_review', pre_arbitration: 'under_review' },
  },
  // "A chargeback has been issued ... you can counter the chargeback by supplying information."
  CHARGED_BACK: { opens: true, state: every('needs_response') },
  // "Additional defence information has reversed a chargeback decision."
  CHARGEBACK_REVERSED: {
    opens: false,
    state: { retrieval: 'warning_closed', chargeback: 'won', pre_arbitration: 'won' },
  },
  // Dashboard: evidence can be submitted (once) until the due date.
  IN_PROGRESS: {
    opens: false,
    state: {
      retrieval: 'warning_needs_response',
      chargeback: 'needs_response',
      pre_arbitration: 'needs_response',
    },
  },
  // Dashboard: past the due date, "you will no longer be able to defend it".
  EXPIRED: {
    opens: false,
    state: { retrieval: 'warning_closed', chargeback: 'lost', pre_arbitration: 'lost' },
  },
};

/** Events webhook `eventDetails.type` values that are dispute statuses. */
export const eventStatuses: Record<string, WorldpayStatus> = {
  informationRequested: 'INFORMATION_REQUESTED',
  informationSupplied: 'INFORMATION_SUPPLIED',
  chargedBack: 'CHARGED_BACK',
  chargebackReversed: 'CHARGEBACK_REVERSED',
};

/** The Dashboard's cycle column, lower-cased: requests for information are listed as such. */
export const cycleKinds: Record<string, Kind> = {
  'request for information': 'retrieval',
  rfi: 'retrieval',
  'first cycle': 'chargeback',
  'first chargeback': 'chargeback',
  'second cycle': 'pre_arbitration',
  'second chargeback': 'pre_arbitration',
};

/** The Dashboard's reason category, lower-cased, where the scheme's code says nothing the tables know. */
export const categoryReasons: Record<string, Reason> = {
  fraud: 'fraudulent',
  authorisation: 'general',
  authorization: 'general',
  'processing errors': 'general',
  'consumer disputes': 'general',
};

/**
 * The card network as Worldpay's dispute screens name it (the Dispute Resolution Centre's Network column:
 * "Visa, Mastercard, American Express (AMEX)"; support.worldpay.com/support/kb/gg/drc/content/queues.htm).
 */
export const networkNames: NetworkSpellings = {
  Visa: 'visa',
  Mastercard: 'mastercard',
  Maestro: 'mastercard',
  'American Express': 'amex',
  'American Express (AMEX)': 'amex',
  AMEX: 'amex',
  Discover: 'discover',
  JCB: 'jcb',
  'Diners Club': 'diners',
  Diners: 'diners',
  UnionPay: 'unionpay',
  'China UnionPay': 'unionpay',
};
const networkOf = networkReader(networkNames);

/** One dispute status of a payment, from a webhook event or a report row, in plain values. */
export interface WorldpayRecord {
  /** The payment's transaction reference (order code). */
  reference: string;
  status: WorldpayStatus;
  /** From the report's cycle; null when the source does not say. */
  kind: Kind | null;
  /** When the payment reached the status, where the source says. */
  at: Date | null;
  amount: number | null;
  currency: string | null;
  chargedAt: Date | null;
  dueBy: Date | null;
  reasonCode: string | null;
  reasonCategory: string | null;
  /** The card network's name, where the source names it (the report's Network column). */
  network: string | null;
}

export function disputeFromRecord(record: WorldpayRecord): NormalizedDispute {
  const rule = statusRules[record.status];
  const kind = rule.kind ?? record.kind ?? 'chargeback';
  const state = rule.state[kind];
  const closed = closedStates.includes(state);
  return normalizedDispute({
    id: record.reference,
    state,
    reason: reasonOf(record, kind),
    kind,
    chargedAt: record.chargedAt,
    disputedAt: rule.opens ? record.at : null,
    dueBy: record.dueBy,
    // An expired dispute closed at its due date when nothing says otherwise.
    closedAt: closed ? (record.at ?? (record.status === 'EXPIRED' ? record.dueBy : null)) : null,
    charge: record.reference,
    amount: record.amount,
    currency: record.currency?.toLowerCase() ?? null,
    network: networkOf(record.network),
    networkReasonCode: reported(record.reasonCode),
    // The payment's dispute status in the Merchant Interface's spelling (CHARGED_BACK), from either source.
    processorStatus: record.status,
  });
}

function reasonOf(record: WorldpayRecord, kind: Kind): Reason {
  if (kind === 'retrieval') return 'retrieved';
  const byCode = networkReason(record.reasonCode, networkOf(record.network));
  if (byCode !== 'general') return byCode;
  return categoryReasons[(record.reasonCategory ?? '').toLowerCase()] ?? 'general';
}

// ---------------------------------------------------------------------------------------------------------
// The Events webhook (docs.worldpay.com/access/products/events): one event per POST.

export const eventSchema = z.object({
  eventId: z.string(),
  eventTimestamp: z.string(),
  eventDetails: z.object({
    classification: z.string(),
    transactionReference: z.string().min(1),
    type: z.string(),
    /** "The date you first submitted the payment." */
    date: z.string().optional(),
    amount: z.object({ value: z.number().int(), currencyCode: z.string().length(3) }).optional(),
  }),
});
export type WorldpayEvent = z.infer<typeof eventSchema>;

export const isDisputeEvent = (event: WorldpayEvent) => Object.hasOwn(eventStatuses, event.eventDetails.type);

/** When the event happened; Worldpay's timestamps carry no zone (2018-06-13T14:18:13.407): read as UTC. */
export function eventTime(event: WorldpayEvent): Date {
  const stamp = event.eventTimestamp;
  return new Date(/(?:Z|[+-]\d{2}:?\d{2})$/.test(stamp) ? stamp : `${stamp}Z`);
}

/**
 * A dispute event's record, or null when a date in it cannot be read. The event carries no reason, no
 * network and no deadline (docs.worldpay.com/access/products/events/openapi/chargeback): they stay unknown.
 */
export function recordOfEvent(event: WorldpayEvent): WorldpayRecord | null {
  const details = event.eventDetails;
  const at = eventTime(event);
  const chargedAt = startOfDay(details.date);
  // A date given but not a day the calendar has (startOfDay's null) makes the event unreadable.
  if (Number.isNaN(at.getTime()) || (details.date && !chargedAt)) return null;
  return {
    reference: details.transactionReference,
    status: eventStatuses[details.type] as WorldpayStatus,
    kind: null,
    at,
    amount: details.amount?.value ?? null,
    currency: details.amount?.currencyCode ?? null,
    chargedAt,
    dueBy: null,
    reasonCode: null,
    reasonCategory: null,
    network: null,
  };
}
