import { z } from 'zod';
import {
  alertStatsDimensions,
  compellingEvidenceStatsStatuses,
  maxStatsGroups,
  preventedResolutions,
  statsDimensions,
} from '../domain/dispute-stats.js';
import type { disputeStatsObject } from '../features/stats/objects.js';
import { amount, describing, livemode, timestamp, url } from './openapi-responses.js';

/**
 * The `dispute_stats` object (docs/api.md, "Statistics") as a zod schema, for the OpenAPI document only,
 * checked against its serializer's type as the other response objects are (openapi-responses.ts).
 */

const count = z.number().int();
const currencyAmounts = z.object({ disputed: amount, won: amount, lost: amount });
const rate = (of: string) =>
  z
    .number()
    .nullable()
    .meta({ description: `${of}, from 0 to 1; null when there are none.` });

const compellingEvidence = z
  .object({
    visa_fraud: count.meta({
      description: 'Visa disputes for reason `fraudulent` (network reason code 10.4 where given).',
    }),
    ...(Object.fromEntries(compellingEvidenceStatsStatuses.map((status) => [status, count])) as Record<
      (typeof compellingEvidenceStatsStatuses)[number],
      typeof count
    >),
    qualified_share: rate('`qualified / visa_fraud`'),
    win_rate_qualified: rate('`won / (won + lost)` of the qualified'),
    win_rate_not_qualified: rate(
      '`won / (won + lost)` of those submitted `requires_action` or `not_qualified`',
    ),
  })
  .meta({
    description:
      "The Visa fraud disputes by this service's CE 3.0 verdict at their latest submission that got through; `not_submitted` when none did.",
  });

const group = z.object({
  group: z
    .object(
      Object.fromEntries(statsDimensions.map((dimension) => [dimension, z.string().nullable().optional()])),
    )
    .meta({ description: 'The value of each `group_by` dimension; null where the disputes have none.' }),
  count,
  won: count,
  lost: count,
  accepted: count,
  open: count.meta({ description: 'Not decided yet.' }),
  closed_otherwise: count.meta({
    description:
      'Closed or out of reach without a ruling on evidence (`warning_closed`, `charge_refunded`, `response_disabled`).',
  }),
  prevented: count.meta({
    description:
      'Resolved by a pre-dispute program (`resolution` `rdr` or `alert_refund`), whatever the state.',
  }),
  prevented_by: z.object(
    Object.fromEntries(preventedResolutions.map((resolution) => [resolution, count])) as Record<
      (typeof preventedResolutions)[number],
      typeof count
    >,
  ),
  win_rate: z.number().nullable().meta({
    description: '`won / (won + lost)`; accepted disputes are not in it; null when none is decided.',
  }),
  amounts: z
    .record(z.string(), currencyAmounts)
    .meta({ description: 'Minor units per currency (lower case): disputed, won and lost.' }),
  submitted: count.meta({ description: 'Disputes submitted at or after their `disputed_at`.' }),
  median_seconds_to_submission: z
    .number()
    .int()
    .nullable()
    .meta({ description: 'From `disputed_at` to the last submission that got through; null when none.' }),
  compelling_evidence: compellingEvidence,
});

const alertGroup = z.object({
  group: z
    .object(
      Object.fromEntries(
        alertStatsDimensions.map((dimension) => [dimension, z.string().nullable().optional()]),
      ),
    )
    .meta({ description: 'The value of each `group_by` dimension alerts have (processor, month).' }),
  count,
  refunded: count.meta({ description: 'Alerts with outcome `refunded`.' }),
  refunded_amounts: z
    .record(z.string(), amount)
    .meta({ description: "The refunded alerts' amounts, minor units per currency (lower case)." }),
  followed_by_dispute: count.meta({
    description: 'Alerts a dispute followed for the same charge, refunded or not.',
  }),
});

const alertStats = z
  .object({
    group_by: z.array(z.enum(alertStatsDimensions)).meta({
      description:
        'The `group_by` dimensions alerts have; `reason`, `template` and `network` do not split them.',
    }),
    groups: z.array(alertGroup),
    has_more: z
      .boolean()
      .meta({ description: `More groups than the ${maxStatsGroups} answered had alerts.` }),
  })
  .meta({ description: 'The alerts created in the range (`created`: when the processor raised them).' });

export const disputeStatsSchema = describing<ReturnType<typeof disputeStatsObject>>()(
  z.object({
    object: z.literal('dispute_stats'),
    from: timestamp,
    to: timestamp,
    group_by: z.array(z.enum(statsDimensions)),
    groups: z.array(group),
    has_more: z
      .boolean()
      .meta({ description: `More groups than the ${maxStatsGroups} answered had disputes.` }),
    alerts: alertStats,
    livemode,
    url,
  }),
);
