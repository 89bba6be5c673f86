import { z } from 'zod';
import type { RemoveInput, RetrieveInput } from '../../domain/personal-data.js';
import { text } from '../../domain/values.js';

/**
 * Request parameters of the personal data endpoints (docs/api.md, "Personal data requests"), parsed into
 * what the personal data use cases take (domain/personal-data.ts).
 */

const emailAddress = z
  .string()
  .trim()
  .max(254, 'must be at most 254 characters')
  .pipe(z.email('must be a valid email address'));

/**
 * At least two letters: a name is matched as whole words in free text, and a shorter one (`J`, a digit)
 * would be found in almost every text.
 */
const personName = text(1000)
  .trim()
  .min(1, 'must not be empty')
  .refine((name) => (name.match(/\p{L}/gu) ?? []).length >= 2, 'must contain at least 2 letters');

export const retrieveInput = z.object({
  email: emailAddress,
  name: personName,
  notification_email: emailAddress,
}) satisfies z.ZodType<RetrieveInput>;

export const removeInput = z.object({
  email: emailAddress,
  name: personName,
  notification_email: emailAddress.optional(),
}) satisfies z.ZodType<RemoveInput>;
