import type { AlertRecord } from '../domain/alerts.js';
import type { ConnectedRequest } from './types.js';

/** What adapters tell of alerts and refunds (docs/api.md, "Alerts"), beside types.ts's disputes. */

/**
 * A pre-dispute warning as its processor reports it (docs/api.md, "Alerts"): the processor-owned columns
 * of an alert (src/db/schema/alerts.ts), mapped by the adapter: the processor's id of the warning, the
 * charge with its amount (minor units) and currency (lower-case), the processor's fraud type as it spells
 * it, whether the charge can still be refunded to head off a dispute, and when it was raised.
 */
export type NormalizedAlert = Pick<
  AlertRecord,
  'id' | 'charge' | 'amount' | 'currency' | 'fraudType' | 'actionable' | 'reportedAt'
>;

export interface ListAlertsRequest extends ConnectedRequest {
  /** Where the last committed page of alerts ended (connected_accounts.alert_cursor); null from the start. */
  cursor: string | null;
  limit: number;
}

export interface AlertPage {
  alerts: NormalizedAlert[];
  nextCursor: string | null;
  hasMore: boolean;
}

export interface RefundChargeRequest extends ConnectedRequest {
  charge: string;
  amount: number | null;
  currency: string | null;
  /** Derived from the alert: the same for every try, so the processor refunds once. */
  idempotencyKey: string;
}

export interface RefundChargeResult {
  /** The processor's refund id. */
  refund: string;
}
