import { formatTimestamp } from './disputes.js';

/**
 * The alert's vocabulary (docs/api.md, "Alerts"): a pre-dispute warning mirrored from a processor, and
 * what became of it here.
 * - open: nothing done yet (a refund rule did not cover it, or it waits for a hand).
 * - refunded: the charge was refunded through the processor (`refund` holds the processor's id).
 * - refund_failed: the processor refused the refund (`refund_failure` holds its reason); not retried.
 * - ignored: the processor no longer offers it for action and nothing here acted on it.
 * - disputed: a dispute arrived for the charge before anything was refunded.
 */
export const alertOutcomes = ['open', 'refunded', 'refund_failed', 'ignored', 'disputed'] as const;
export type AlertOutcome = (typeof alertOutcomes)[number];

/** The stored alert as the serializer needs it (a database row satisfies this). */
export interface AlertRecord {
  id: string;
  livemode: boolean;
  processor: string;
  account: string;
  charge: string | null;
  amount: number | null;
  currency: string | null;
  fraudType: string | null;
  actionable: boolean;
  reportedAt: Date | null;
  outcome: AlertOutcome;
  refund: string | null;
  refundFailure: string | null;
  dispute: string | null;
  createdAt: Date;
}

export const alertPath = (id: string) => `/v1/alerts/${encodeURIComponent(id)}`;

/** The alert object of docs/api.md, "Alerts"; every field present, `null` when absent. */
export function toAlertObject(alert: AlertRecord) {
  return {
    object: 'alert' as const,
    id: alert.id,
    processor: alert.processor,
    account: alert.account,
    charge: alert.charge,
    amount: alert.amount,
    currency: alert.currency,
    fraud_type: alert.fraudType,
    actionable: alert.actionable,
    created: formatTimestamp(alert.reportedAt ?? alert.createdAt),
    outcome: alert.outcome,
    refund: alert.refund,
    refund_failure: alert.refundFailure,
    dispute: alert.dispute,
    livemode: alert.livemode,
    url: alertPath(alert.id),
  };
}
export type AlertObject = ReturnType<typeof toAlertObject>;
