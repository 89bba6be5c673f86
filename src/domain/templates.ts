import { z } from 'zod';
import { ApiError } from './errors.js';
import { type FieldValue, fieldKey, own } from './evidence.js';
import { fileId } from './evidence-files.js';
import { jsonArray, resourceId, text } from './values.js';
import { reasons } from './vocabulary.js';

/** Template field types (docs/api.md, "The dispute object") and how a value of each is checked and normalised. */
export const fieldTypes = ['text', 'date', 'number', 'amount', 'url', 'email', 'file'] as const;
export type FieldType = (typeof fieldTypes)[number];

const fieldTypeCheck: Record<FieldType, z.ZodType<FieldValue>> = {
  text: z.string(),
  date: z.union([z.string().min(1), z.number().int()]),
  number: z.union([
    z.number().int(),
    z
      .string()
      .regex(/^-?\d{1,15}$/)
      .transform(Number),
  ]),
  amount: z.union([
    z.number().int(),
    z
      .string()
      .regex(/^-?\d{1,15}$/)
      .transform(Number),
  ]),
  url: z.url({ protocol: /^https?$/ }),
  email: z.email(),
  file: fileId,
};

const fieldTypeNoun: Record<FieldType, string> = {
  text: 'a string',
  date: 'a date string or Unix seconds',
  number: 'an integer',
  amount: 'an integer amount in minor units',
  url: 'an absolute http or https URL',
  email: 'a valid email address',
  file: 'a file id (file_…)',
};

export const templateField = z.object({
  key: fieldKey,
  type: z.enum(fieldTypes),
  required: z.boolean().default(false),
  description: text(1000).nullable().default(null),
});
export type TemplateField = z.infer<typeof templateField>;

export interface TemplateShape {
  id: string;
  fields: TemplateField[];
}

/**
 * Checks every value whose key the template declares, returning the dictionary with values normalised
 * (form text "42" becomes 42 for number fields). Keys the template does not declare pass unchanged.
 */
export function checkFieldValues(
  template: TemplateShape | null,
  values: Record<string, FieldValue>,
): Record<string, FieldValue> {
  if (!template) return values;
  const checked: Record<string, FieldValue> = { ...values };
  for (const field of template.fields) {
    const value = own(values, field.key);
    if (value === undefined || value === null) continue;
    const result = fieldTypeCheck[field.type].safeParse(value);
    if (!result.success) {
      throw new ApiError(
        'invalid_fields',
        `Field '${field.key}' must be ${fieldTypeNoun[field.type]} (template '${template.id}' declares it ${field.type}).`,
      );
    }
    checked[field.key] = result.data;
  }
  return checked;
}

/** Dispute attributes that satisfy a required field of the same name (docs/api.md, "The dispute object", missing_fields). */
export const attributesFillingFields = [
  'customer_name',
  'customer_email',
  'customer_purchase_ip',
  'charge',
  'amount',
  'currency',
  'charged_at',
  'statement_descriptor',
  'address_zip',
] as const;
export type FillingAttribute = (typeof attributesFillingFields)[number];
export type FillingAttributes = Partial<Record<FillingAttribute, unknown>>;

/**
 * `{key: type}` for each required field that neither `fields` nor a same-named attribute provides. Only
 * own keys count: a field named `constructor` is not provided by what every object inherits.
 */
export function missingFields(
  template: TemplateShape | null,
  values: Record<string, FieldValue>,
  attributes: FillingAttributes,
): Record<string, FieldType> {
  const missing: Record<string, FieldType> = {};
  if (!template) return missing;
  for (const field of template.fields) {
    if (!field.required) continue;
    const value = own(values, field.key);
    if (value !== undefined && value !== null && value !== '') continue;
    const attribute = own<unknown>(attributes, field.key);
    if (attribute !== undefined && attribute !== null) continue;
    missing[field.key] = field.type;
  }
  return missing;
}

/** Merges sent fields into stored ones: a key sent as null or "" is removed (docs/api.md, "The dispute object"). */
export function mergeFields(
  stored: Record<string, FieldValue>,
  sent: Record<string, FieldValue> | undefined,
): Record<string, FieldValue> {
  if (!sent) return stored;
  const merged: Record<string, FieldValue> = { ...stored };
  for (const [key, value] of Object.entries(sent)) {
    if (value === null || value === '') delete merged[key];
    else merged[key] = value;
  }
  return merged;
}

const templateFields = jsonArray(templateField, 200).refine(
  (fields) => new Set(fields.map((field) => field.key)).size === fields.length,
  'field keys must be unique',
);

/** Template attributes a client sets (docs/api.md, "Templates and response documents"); `id` only on create. */
export const templateInput = z.object({
  name: text(255).nullable().optional(),
  description: text().nullable().optional(),
  fields: templateFields.optional(),
  reasons: jsonArray(z.enum(reasons), reasons.length).nullable().optional(),
  body: text(100_000).nullable().optional(),
});
export const createTemplateInput = templateInput.extend({ id: resourceId });
export type TemplateInput = z.infer<typeof templateInput>;
export type CreateTemplateInput = z.infer<typeof createTemplateInput>;
