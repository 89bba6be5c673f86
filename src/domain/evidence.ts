import { z } from 'zod';
import { ApiError } from './errors.js';
import type { EvidenceFileEntry } from './evidence-files.js';
import { absoluteUrl, currency, integer, jsonArray, nonNegativeInteger, text } from './values.js';

/** Evidence items of docs/api.md, "The dispute object". Each array has its own error type (see `evidenceErrorTypes`). */

const quantity = z.union([text(100), z.number().int().min(0)]);
const timeValue = z.union([text(100), z.number().int()]);

export const product = z.object({
  name: text(1000),
  description: text().optional(),
  image: absoluteUrl.optional(),
  sku: text(255).optional(),
  quantity,
  amount: nonNegativeInteger,
  url: absoluteUrl.optional(),
  shipping_carrier: text(255).optional(),
  shipping_tracking_number: text(255).optional(),
});

export const correspondenceItem = z.object({
  to: text(1000),
  from: text(1000),
  subject: text(1000),
  body: text(),
  sent: timeValue.optional(),
  caption: text(1000).optional(),
});

export const pastPayment = z.object({
  id: text(255),
  amount: integer,
  currency,
  charged_at: timeValue,
  device_id: text(255).optional(),
  item_description: text(1000).optional(),
  user_id: text(255).optional(),
  ip_address: text(255).optional(),
  shipping_address: text(1000).optional(),
  /** The customer's email on that payment: the login Visa CE 3.0 compares (domain/compelling-evidence.ts). */
  email: text(320).optional(),
});

export type Product = z.infer<typeof product>;
export type CorrespondenceItem = z.infer<typeof correspondenceItem>;
export type PastPayment = z.infer<typeof pastPayment>;

export const maxPastPayments = 10;

export const products = jsonArray(product, 100);
export const correspondence = jsonArray(correspondenceItem, 100);
export const pastPayments = jsonArray(pastPayment, maxPastPayments);

/** A field value as sent: a scalar; `null` or `""` removes the key when merged. */
export const fieldValue = z.union([text(), z.number().finite(), z.boolean(), z.null()]);
export type FieldValue = z.infer<typeof fieldValue>;

/**
 * The evidence as submitted: the template's fields with the client's evidence items, as they stood when
 * the submission was made. A submission keeps it (its `evidence` column) and hands it to the adapter.
 */
export interface EvidencePackage {
  template: string | null;
  fields: Record<string, FieldValue>;
  products: Product[];
  correspondence: CorrespondenceItem[];
  pastPayments: PastPayment[];
  referenceUrl: string | null;
  /** Absent from submissions made before evidence files existed: read it with `evidenceFilesOf`. */
  evidenceFiles?: EvidenceFileEntry[];
}

/**
 * A key's own value, never one inherited from Object's prototype: `constructor` and `toString` are valid
 * field keys, and a dictionary that lacks them must not answer with Object's methods.
 */
export const own = <T>(record: Readonly<Record<string, T>>, key: string): T | undefined =>
  Object.hasOwn(record, key) ? record[key] : undefined;

/** `__proto__` would set an object's prototype instead of adding a key, so it is not a key. */
export const fieldKey = z
  .string()
  .regex(
    /^(?!__proto__$)[A-Za-z0-9_\-.]{1,100}$/,
    'field keys are 1-100 characters of A-Z a-z 0-9 _ - . (not __proto__)',
  );
/**
 * The fields dictionary. zod's record silently skips a `__proto__` key, so one sent is refused here
 * instead of being dropped without a word.
 */
export const fields = z.preprocess(
  (value, context) => {
    if (typeof value === 'object' && value !== null && Object.hasOwn(value, '__proto__')) {
      context.addIssue({ code: 'custom', message: "'__proto__' cannot be a field key" });
      return z.NEVER;
    }
    return value;
  },
  z.record(fieldKey, fieldValue).refine((value) => Object.keys(value).length <= 200, {
    message: 'must have at most 200 keys',
  }),
);

/**
 * The most evidence one dispute keeps, as JSON: fields merge across updates, so without a cap a dispute
 * could grow past what a list of 100 can carry. Generous: a typical dispute's evidence is a few KiB.
 */
export const maxEvidenceBytes = 512 * 1024;

export function checkEvidenceSize(evidence: {
  fields: Record<string, FieldValue>;
  products: Product[];
  correspondence: CorrespondenceItem[];
  pastPayments: PastPayment[];
}): void {
  const bytes = Buffer.byteLength(JSON.stringify(evidence));
  if (bytes > maxEvidenceBytes) {
    throw new ApiError(
      'invalid_request',
      `The dispute's evidence would take ${bytes} bytes; a dispute keeps at most ${maxEvidenceBytes}.`,
    );
  }
}
