import type { Tx } from '../db/client.js';
import type { DisputeRow } from './dispute-records.js';

/**
 * The one place where new disputes meet the organisation's workflow rules (API.md section 5): review rules
 * will mark a matching dispute `requires_review`, accept rules `accepted`. It runs inside the transaction
 * that inserted the disputes and before their `dispute.created` events are written, so an event carries
 * the state the rules chose.
 *
 * The rules themselves arrive with issue 4. Until then no organisation has any, and every new dispute
 * keeps the state its processor gave it: this returns the disputes as they are.
 */
export async function applyArrivalRules(_tx: Tx, disputes: DisputeRow[]): Promise<DisputeRow[]> {
  return disputes;
}
