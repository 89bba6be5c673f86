import { z } from 'zod';
import { type AlertObject, alertOutcomes } from '../domain/alerts.js';
import { describing, livemode, timestamp } from './openapi-responses.js';

/**
 * The alert object (docs/api.md, "Alerts") as a zod schema, for the OpenAPI document only, checked against
 * its serializer's type as the other response objects are (openapi-responses.ts).
 */
export const alertObjectSchema = describing<AlertObject>()(
  z.object({
    object: z.literal('alert'),
    id: z.string().meta({ description: "The processor's own id of the warning." }),
    processor: z.string(),
    account: z.string().meta({ description: "The connected account's name." }),
    charge: z.string().nullable(),
    amount: z.number().int().nullable().meta({ description: "The charge's amount in minor units." }),
    currency: z.string().nullable(),
    fraud_type: z.string().nullable(),
    actionable: z
      .boolean()
      .meta({ description: 'Whether the charge can still be refunded to head off a dispute.' }),
    created: timestamp,
    outcome: z.enum(alertOutcomes),
    refund: z.string().nullable().meta({ description: "The processor's refund id once refunded." }),
    refund_failure: z
      .string()
      .nullable()
      .meta({ description: "The processor's reason when it refused the refund (`refund_failed`)." }),
    dispute: z
      .string()
      .nullable()
      .meta({ description: 'The dispute that later arrived for the same charge.' }),
    livemode,
    url: z.string().meta({ description: "The alert's own path, `/v1/alerts/<id>`." }),
  }),
);
