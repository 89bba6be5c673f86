import { z } from 'zod';
import { type AlertObject, alertOutcomes } from '../domain/alerts.js';
import { amount, describing, livemode, timestamp, url } from './openapi-responses.js';

/**
 * The alert object (docs/api.md, "Alerts") as a zod schema, for the OpenAPI document only, checked against
 * its serializer's type as the other response objects are (openapi-responses.ts).
 */
export const alertObjectSchema = describing<AlertObject>()(
  z
    .object({
      object: z.literal('alert'),
      id: z.string().meta({ description: "The processor's id of the warning." }),
      processor: z
        .string()
        .meta({ description: 'The processor that raised it (`mock` for the mock processor).' }),
      account: z.string().meta({ description: 'The connected account it came from (its name).' }),
      charge: z.string().nullable(),
      amount: amount.nullable().meta({ description: "The charge's amount, in minor units." }),
      currency: z.string().nullable(),
      fraud_type: z.string().nullable().meta({ description: "The processor's fraud type, as it spells it." }),
      actionable: z.boolean().meta({
        description: "The processor's word that refunding the charge can still head off a dispute.",
      }),
      created: timestamp.nullable().meta({ description: 'When the processor raised the warning.' }),
      outcome: z.enum(alertOutcomes),
      refund: z.string().nullable().meta({ description: "The processor's refund id once refunded here." }),
      refund_failure: z
        .string()
        .nullable()
        .meta({ description: "The processor's reason when it refused the refund (`refund_failed`)." }),
      dispute: z.string().nullable().meta({
        description: 'The id of the dispute for the same charge, linked whichever came first.',
      }),
      livemode,
      url,
    })
    .meta({
      description: 'The alert object (docs/api.md, "Alerts"): every field present, `null` when absent.',
    }),
);
