import type { AlertOutcome } from './alerts.js';

/**
 * The organisation's refund rule for alerts (docs/api.md, "Refunds"): which alerts are refunded on their
 * own, and which may be refunded by hand. Pure, so that the job, its sweep, the mirroring's kick and the
 * route all ask the same question (one home per rule).
 */

/** `organisations.alert_refund_up_to`: per mode, the largest amount refunded on its own per currency. */
export type AlertRefundThresholds = {
  test?: Record<string, number>;
  live?: Record<string, number>;
};

/** What the rule reads of an alert (a stored alert row satisfies it). */
export interface RefundableAlert {
  livemode: boolean;
  outcome: AlertOutcome;
  actionable: boolean;
  charge: string | null;
  amount: number | null;
  currency: string | null;
  /** The dispute linked for the same charge: once it exists, the dispute is answered, not the alert. */
  dispute: string | null;
}

/** The organisation's threshold for this mode and currency (any case), or null when it set none. */
export function refundThreshold(
  thresholds: AlertRefundThresholds,
  livemode: boolean,
  currency: string,
): number | null {
  const ofMode = thresholds[livemode ? 'live' : 'test'];
  const key = currency.toLowerCase();
  if (!ofMode || !Object.hasOwn(ofMode, key)) return null;
  const threshold = ofMode[key];
  return typeof threshold === 'number' && Number.isFinite(threshold) ? threshold : null;
}

/**
 * Whether the alert is refunded without anyone asking: actionable, still open, with a charge, an amount
 * and a currency, and at most the organisation's threshold for its mode and currency. An alert over it,
 * or in a currency without one, stays open.
 */
export function refundsOnItsOwn(alert: RefundableAlert, thresholds: AlertRefundThresholds): boolean {
  if (refundRefusal(alert) !== null) return false;
  if (alert.amount === null || alert.currency === null) return false;
  const threshold = refundThreshold(thresholds, alert.livemode, alert.currency);
  return threshold !== null && alert.amount >= 0 && alert.amount <= threshold;
}

/**
 * Why the alert cannot be refunded at all (by hand or on its own), as the API says it, or null when it
 * can: only an open, actionable alert with a charge. A refused refund is not tried again under the
 * same key: the processor's answer stands (docs/operations.md, "Alert refunds").
 */
export function refundRefusal(alert: RefundableAlert): string | null {
  switch (alert.outcome) {
    case 'refunded':
      return 'The alert was refunded already.';
    case 'refund_failed':
      return 'The processor refused this refund already; see refund_failure.';
    case 'disputed':
      return disputedMessage;
    case 'ignored':
      return 'The processor no longer offers this alert for action.';
    case 'open':
      break;
  }
  if (!alert.actionable)
    return 'The alert is not actionable: the processor no longer offers a refund for it.';
  if (alert.charge === null) return 'The alert names no charge to refund.';
  // Linked while a refund held the alert, which kept it open (features/alerts/link.ts): a refund now
  // would pay the cardholder twice, once by refund and once by the chargeback.
  if (alert.dispute !== null) return disputedMessage;
  return null;
}

const disputedMessage = 'A dispute arrived for this charge: answer the dispute instead.';
