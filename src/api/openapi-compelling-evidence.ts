import { z } from 'zod';
import {
  compellingEvidenceActions,
  compellingEvidenceElements,
  compellingEvidenceStatuses,
} from '../domain/compelling-evidence.js';

/**
 * The dispute object's `compelling_evidence` for the OpenAPI document (docs/api.md, "Compelling
 * evidence"); the dispute object's schema (api/openapi-responses.ts) checks it against the serializer.
 */
export const compellingEvidenceSchema = z
  .object({
    program: z.literal('visa_ce3'),
    status: z.enum(compellingEvidenceStatuses),
    required_actions: z.array(z.enum(compellingEvidenceActions)).meta({
      description: 'What to send for the dispute to qualify (empty when `qualified` or `not_qualified`).',
    }),
    matched: z.array(z.enum(compellingEvidenceElements)).meta({
      description: 'The elements that match across the disputed payment and both `prior_payments`.',
    }),
    prior_payments: z.array(z.string()).meta({
      description:
        'The ids of the two past payments compared, or none when fewer than two are in the window.',
    }),
    processor_status: z.string().nullable().meta({
      description: "The processor's own verdict where it gives one (Stripe's `enhanced_eligibility`).",
    }),
  })
  .nullable()
  .meta({
    description:
      "This service's Visa Compelling Evidence 3.0 verdict, decided from the evidence each time; null where the program does not apply (not a Visa `fraudulent` dispute).",
  });
