import { z } from 'zod';
import { absoluteUrl, currency, integer, jsonArray, nonNegativeInteger, text } from './params.js';

/** Evidence items of API.md section 3. Each array has its own error type (see `evidenceErrorTypes`). */

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
export const fieldKey = z
  .string()
  .regex(/^[A-Za-z0-9_\-.]{1,100}$/, 'field keys are 1-100 characters of A-Z a-z 0-9 _ - .');
export const fields = z.record(fieldKey, fieldValue).refine((value) => Object.keys(value).length <= 200, {
  message: 'must have at most 200 keys',
});
