import { closedStates, type DisputeState } from '../../domain/states.js';
import type { kinds, Reason } from '../../domain/vocabulary.js';
import { type NetworkSpellings, networkReader, reported } from '../network-names.js';
import { networkReason } from '../network-reasons.js';
import { normalizedDispute } from '../normalized.js';
import type { EvidenceLimits, NormalizedDispute } from '../types.js';

/**
 * Adyen disputes in this service's vocabulary. Adyen has no dispute object to fetch: a dispute is known by
 * its events (Standard webhooks, or rows of the Dispute transaction details report), each naming the
 * dispute's PSP reference and an event code
 * (docs.adyen.com/risk-management/disputes-api/dispute-notifications). The state is read from the event
 * code alone (docs/architecture.md, "Adyen"): its outcome when it is one in itself, else the status it
 * tells, in the dispute's stage.
 */

type Kind = (typeof kinds)[number];

/**
 * The dispute statuses an event code tells (Adyen's `disputeStatus` values). A push's own
 * `additionalData.disputeStatus` is not covered by its HMAC and is not read (docs/operations.md, "Adyen"),
 * nor is `defendable`; the report has neither.
 */
export type DisputeStatus = 'Undefended' | 'Pending' | 'Expired';

/** A request for information is answered with a retrieval's states, every later stage with a chargeback's. */
type Stage = 'retrieval' | 'chargeback';

export const statusStates: Record<DisputeStatus, Record<Stage, DisputeState>> = {
  Undefended: { chargeback: 'needs_response', retrieval: 'warning_needs_response' },
  // Defended (by the merchant, or auto-defended by Adyen) and waiting for the issuer.
  Pending: { chargeback: 'under_review', retrieval: 'warning_under_review' },
  // Not defended in time, or accepted: either way the funds stay with the cardholder.
  Expired: { chargeback: 'lost', retrieval: 'warning_closed' },
};

interface EventRuleBase {
  /** `by_codes`: a retrieval while the event carries only RFI codes, else a chargeback. */
  kind: Kind | 'by_codes';
  /** The event raises the dispute or its current stage: its date is when it was disputed. */
  opens: boolean;
}

/** An event that is an outcome in itself, or one whose state is the dispute's status. */
export type EventRule = EventRuleBase &
  (
    | { outcome: DisputeState }
    /** The dispute's status after the event, whose state depends on the stage. */
    | { status: DisputeStatus }
  );

/**
 * Dispute event codes (docs.adyen.com/api-explorer/Webhooks/1, the dispute events). Any other event code
 * (AUTHORISATION, REFUND, ...) is not a dispute's and is ignored. NOTIFICATION_OF_FRAUD (the issuer's
 * TC40 or SAFE fraud report) is no dispute: no money moves and nothing is answered. It is an alert
 * (`fraudNotificationCode`, notifications.ts; docs/api.md, "Alerts").
 */
export const eventRules: Record<string, EventRule> = {
  REQUEST_FOR_INFORMATION: { kind: 'retrieval', opens: true, status: 'Undefended' },
  NOTIFICATION_OF_CHARGEBACK: { kind: 'chargeback', opens: true, status: 'Undefended' },
  CHARGEBACK: { kind: 'chargeback', opens: true, status: 'Undefended' },
  // "Defense documents uploaded or dispute auto-defended": sent for RFIs and chargebacks alike.
  INFORMATION_SUPPLIED: { kind: 'by_codes', opens: false, status: 'Pending' },
  ISSUER_COMMENTS: { kind: 'by_codes', opens: false, status: 'Pending' },
  // Not defended in time, or accepted.
  DISPUTE_DEFENSE_PERIOD_ENDED: { kind: 'by_codes', opens: false, status: 'Expired' },
  // "The issuer accepted your defense of the dispute or did not respond in time."
  ISSUER_RESPONSE_TIMEFRAME_EXPIRED: { kind: 'chargeback', opens: false, outcome: 'won' },
  // Won, though a second chargeback may still follow.
  CHARGEBACK_REVERSED: { kind: 'chargeback', opens: false, outcome: 'won' },
  SECOND_CHARGEBACK: { kind: 'pre_arbitration', opens: true, outcome: 'lost' },
  PREARBITRATION_WON: { kind: 'pre_arbitration', opens: false, outcome: 'won' },
  PREARBITRATION_LOST: { kind: 'pre_arbitration', opens: false, outcome: 'lost' },
};

/** The event code of an issuer's fraud report: an alert, not a dispute event. */
export const fraudNotificationCode = 'NOTIFICATION_OF_FRAUD';

/**
 * Adyen's scheme codes (`chargebackSchemeCode`, the report's "CB Scheme Code") and payment method names
 * (`paymentMethod`, "Payment Method"): `visa`, `mc`, `amex`, `discover`, `jcb`, `cup` (China UnionPay),
 * `diners`, `maestro`. A payment method variant that begins with one (`visadankort`, `mccredit`,
 * `amex_applepay`) is that network's.
 */
export const schemeNames: NetworkSpellings = {
  visa: 'visa',
  mc: 'mastercard',
  mastercard: 'mastercard',
  maestro: 'mastercard',
  amex: 'amex',
  discover: 'discover',
  jcb: 'jcb',
  cup: 'unionpay',
  unionpay: 'unionpay',
  diners: 'diners',
};
const networkOf = networkReader(schemeNames, { variants: true });

/** A scheme's reason code and the scheme that gave it (`visa`, `mc`, `amex`, ...). */
export interface SchemeCode {
  reason: string | null;
  scheme: string | null;
}

/** One dispute event, from a webhook or a report row, in plain values. */
export interface DisputeEvent {
  /** The dispute's PSP reference: the same for all of a dispute's events. */
  pspReference: string;
  /** The disputed payment's PSP reference. */
  originalReference: string | null;
  eventCode: keyof typeof eventRules;
  eventDate: Date;
  /** Minor units, as Adyen's amounts are. */
  amount: number | null;
  currency: string | null;
  /** `defensePeriodEndsAt`: the deadline. */
  dueBy: Date | null;
  /** When the dispute was raised, where the source says so (the report); else an opening event's date. */
  disputedAt: Date | null;
  chargedAt: Date | null;
  chargeback: SchemeCode;
  rfi: SchemeCode;
  paymentMethod: string | null;
  shopperReference: string | null;
}

function kindOf(event: DisputeEvent): Kind {
  const { kind } = eventRules[event.eventCode] as EventRule;
  if (kind !== 'by_codes') return kind;
  return event.chargeback.reason === null && event.rfi.reason !== null ? 'retrieval' : 'chargeback';
}

function stateOf(event: DisputeEvent, kind: Kind): DisputeState {
  const rule = eventRules[event.eventCode] as EventRule;
  if ('outcome' in rule) return rule.outcome;
  return statusStates[rule.status][kind === 'retrieval' ? 'retrieval' : 'chargeback'];
}

/**
 * The scheme's code the event tells: the chargeback's, else the request for information's; its network is
 * the scheme that gave it, else the payment's method.
 */
function schemeCodeOf(event: DisputeEvent) {
  const told = event.chargeback.reason !== null ? event.chargeback : event.rfi;
  return { code: reported(told.reason), network: networkOf(told.scheme) ?? networkOf(event.paymentMethod) };
}

function reasonOf(event: DisputeEvent, kind: Kind): Reason {
  if (kind === 'retrieval') return 'retrieved';
  return networkReason(event.chargeback.reason, schemeCodeOf(event).network);
}

export function disputeFromEvent(event: DisputeEvent): NormalizedDispute {
  const kind = kindOf(event);
  const state = stateOf(event, kind);
  const opens = (eventRules[event.eventCode] as EventRule).opens;
  const scheme = schemeCodeOf(event);
  return normalizedDispute({
    id: event.pspReference,
    state,
    reason: reasonOf(event, kind),
    kind,
    chargedAt: event.chargedAt,
    disputedAt: event.disputedAt ?? (opens ? event.eventDate : null),
    dueBy: event.dueBy,
    closedAt: closedStates.includes(state) ? event.eventDate : null,
    charge: event.originalReference,
    amount: event.amount,
    currency: event.currency?.toLowerCase() ?? null,
    customer: event.shopperReference,
    network: scheme.network,
    networkReasonCode: scheme.code,
    // Adyen tells a dispute by its events, and the event code is what its HMAC signs (`disputeStatus` is
    // not signed, notifications.ts): the latest event is the dispute's status in Adyen's words.
    processorStatus: event.eventCode,
  });
}

// ---------------------------------------------------------------------------------------------------------
// Defending: which defense reason to defend with, which of its document types our PDF is, and which the
// evidence files are.

/** `defenseDocumentTypes[].requirementLevel` of retrieveApplicableDefenseReasons. */
type RequirementLevel = 'Required' | 'OneOrMore' | 'Optional' | 'AlternativeRequired';

export interface DefenseReason {
  defenseReasonCode: string;
  defenseDocumentTypes: { defenseDocumentTypeCode: string; requirementLevel: string }[];
}

/** Adyen's generic defense document: the one the response PDF (the whole defense, in one file) is. */
const genericDocumentType = 'DefenseMaterial';

/**
 * The defense reason to defend with: the best met by one PDF (below) among those that also take every
 * document type of the evidence files (`documentTypes`, whatever their requirement level) besides the
 * PDF's own, since Adyen keeps one document a type (deleteDisputeDefenseDocument names a type only).
 * None where no reason offered does.
 *
 * How well one PDF meets a defense reason, best first:
 * 0. the reason requires exactly the generic DefenseMaterial (Adyen's SupplyDefenseMaterial reason);
 * 1. the reason takes a generic document in place of its requirements (AlternativeRequired, where Adyen
 *    has enabled it for the merchant);
 * 2. the reason requires exactly one document, of another type;
 * 3. the reason requires nothing but one or more of a set of documents.
 * A reason that needs two documents or more cannot be met with one PDF.
 */
export function defenseFor(
  reasons: readonly DefenseReason[],
  documentTypes: readonly string[] = [],
): { reason: string; documentType: string } | null {
  let best: { rank: number; reason: string; documentType: string } | null = null;
  for (const reason of reasons) {
    const option = documentFor(reason);
    const offered = new Set(reason.defenseDocumentTypes.map((type) => type.defenseDocumentTypeCode));
    const takesFiles = documentTypes.every((type) => offered.has(type) && type !== option?.documentType);
    if (option && takesFiles && (best === null || option.rank < best.rank)) {
      best = { ...option, reason: reason.defenseReasonCode };
    }
  }
  return best && { reason: best.reason, documentType: best.documentType };
}

function documentFor(reason: DefenseReason): { rank: number; documentType: string } | null {
  const at = (level: RequirementLevel) =>
    reason.defenseDocumentTypes
      .filter((type) => type.requirementLevel === level)
      .map((type) => type.defenseDocumentTypeCode);
  const required = at('Required');
  const [only] = required;
  if (required.length === 1 && only === genericDocumentType) return { rank: 0, documentType: only };
  const [alternative] = at('AlternativeRequired');
  if (alternative) return { rank: 1, documentType: alternative };
  if (required.length === 1 && only) return { rank: 2, documentType: only };
  const anyOf = at('OneOrMore');
  const pick = anyOf.find((type) => type === genericDocumentType) ?? anyOf[0];
  if (required.length === 0 && pick) return { rank: 3, documentType: pick };
  return null;
}

/** Adyen's size limit for a PDF defense document (Diners and Discover take 3 MB; 2 MB holds for all). */
export const pdfLimitBytes = 2 * 1024 * 1024;

/**
 * What Adyen takes as defense documents (supplyDefenseDocument; docs/architecture.md, "Adyen"): each a
 * document of a defense document type, JPG, TIFF or PDF (no PNG: a PNG stays in the response PDF), a
 * JPG at most 10 MB and a PDF at most 2 MB (`pdfLimitBytes`, checked by the adapter). The types a
 * dispute takes depend on its defense reason; the one a category matches in every reason that offers
 * it is TIDorInvoice, the transaction information document or invoice, for a receipt. Other categories
 * have no type of their own that means the same, and go in the response PDF. Adyen's 19-page limit
 * holds for Mastercard chargebacks only, whose scheme a submission does not carry: not checked here.
 * There is no text field: everything is a document.
 */
export const evidenceLimits: EvidenceLimits = {
  slots: { receipt: 'TIDorInvoice' },
  types: ['pdf', 'jpg'],
  maxFileBytes: 10 * 1024 * 1024,
  maxTotalBytes: null,
  maxPages: null,
  textLimits: {},
};
