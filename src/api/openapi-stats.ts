import { z } from 'zod';
import { maxStatsGroups, statsDimensions } from '../domain/dispute-stats.js';
import type { disputeStatsObject } from '../features/stats/objects.js';
import { amount, describing, livemode, timestamp, url } from './openapi-responses.js';

/**
 * The `dispute_stats` object (docs/api.md, "Statistics") as a zod schema, for the OpenAPI document only,
 * checked against its serializer's type as the other response objects are (openapi-responses.ts).
 */

const count = z.number().int();
const currencyAmounts = z.object({ disputed: amount, won: amount, lost: amount });

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
});

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
    livemode,
    url,
  }),
);
