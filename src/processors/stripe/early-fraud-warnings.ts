import { z } from 'zod';
import type { Logger } from '../../logger.js';
import type { AlertPage, ListAlertsRequest, NormalizedAlert } from '../alert-types.js';
import type { StripeClient } from './client.js';
import { type ChangeSource, listChangesOf } from './listing.js';
import { stripeCharge } from './mapping.js';

/**
 * Stripe's early fraud warnings (docs.stripe.com/api/early_fraud_warnings) as alerts (docs/api.md,
 * "Alerts"): a card issuer's report that a charge may be fraudulent, days before a dispute may follow.
 *
 * The cursor (connected_accounts.alert_cursor) is the dispute listing's, over the warnings' own list and
 * events (listing.ts): a backfill of `GET /v1/radar/early_fraud_warnings`, newest first, with the newest
 * `radar.early_fraud_warning.*` event remembered before its first page; then the events above it, each
 * warning named fetched again as it is now. The backfill reads the warnings of the last 120 days only
 * (`created[gte]`, fixed when it began): an older warning is past the networks' usual 120-day window for
 * a fraud dispute, and nothing is left to head off by refunding it.
 *
 * The amount and currency are the charge's (expanded in the same call); a read-only account gave no
 * access to charges, so its alerts have neither, and are not actionable (nor are its refunds made).
 */

/** `radar.early_fraud_warning.*`: a warning is created, and updated when it stops being actionable. */
export const earlyFraudWarningEventTypes = [
  'radar.early_fraud_warning.created',
  'radar.early_fraud_warning.updated',
] as const;

/** How far back the backfill reads warnings. */
export const backfillDays = 120;

/** What the adapter reads of an Early Fraud Warning (docs.stripe.com/api/early_fraud_warnings/object). */
export const stripeEarlyFraudWarning = z.object({
  id: z.string().min(1),
  object: z.literal('radar.early_fraud_warning'),
  actionable: z.boolean(),
  /** The charge's id, or the Charge itself when the call expanded it. */
  charge: z.union([z.string().min(1), stripeCharge]),
  created: z.number().int(),
  fraud_type: z.string().nullish(),
});
export type StripeEarlyFraudWarning = z.infer<typeof stripeEarlyFraudWarning>;

/**
 * The warning as an alert. `actionable` is Stripe's ("has not received a dispute and has not been fully
 * refunded"), and false where this service cannot refund (`refundable: false`, a read-only account).
 */
export function normalizeAlert(warning: StripeEarlyFraudWarning, refundable: boolean): NormalizedAlert {
  const charge = typeof warning.charge === 'object' ? warning.charge : null;
  return {
    id: warning.id,
    charge: charge ? charge.id : (warning.charge as string),
    amount: charge ? charge.amount : null,
    currency: charge ? charge.currency.toLowerCase() : null,
    fraudType: warning.fraud_type ?? null,
    actionable: warning.actionable && refundable,
    reportedAt: new Date(warning.created * 1000),
  };
}

/** One page of the account's warnings changed since the cursor. */
export async function listAlerts(
  client: StripeClient,
  request: Pick<ListAlertsRequest, 'cursor' | 'limit'>,
  refundable: boolean,
  logger?: Logger,
): Promise<AlertPage> {
  const source: ChangeSource<NormalizedAlert> = {
    what: 'early fraud warning',
    list: async ({ limit, startingAfter, startedAt }) => {
      const page = await client.listEarlyFraudWarnings({
        limit,
        startingAfter,
        createdFrom: startedAt - backfillDays * 86_400,
      });
      return {
        items: page.data.map((warning) => normalizeAlert(warning, refundable)),
        lastId: page.data.at(-1)?.id,
        hasMore: page.has_more,
      };
    },
    events: (query) => client.listEvents(query, earlyFraudWarningEventTypes),
    fetch: async (id) => {
      const warning = await client.retrieveEarlyFraudWarning(id);
      return warning && normalizeAlert(warning, refundable);
    },
  };
  const page = await listChangesOf(source, request, logger);
  return { alerts: page.items, nextCursor: page.nextCursor, hasMore: page.hasMore };
}

/** What a refund answer is read for (docs.stripe.com/api/refunds/object). */
export const stripeRefund = z.object({
  id: z.string().min(1),
  object: z.literal('refund'),
  status: z.string().nullish(),
  failure_reason: z.string().nullish(),
});
