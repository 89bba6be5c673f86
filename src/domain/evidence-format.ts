import { type DisputeRecord, toDisputeObject } from './disputes.js';
import { type FieldValue, own } from './evidence.js';
import { minorUnitExponent } from './money.js';
import type { FieldType, TemplateShape } from './templates.js';
import { parseTimestamp } from './values.js';

/**
 * Evidence values formatted for a reader: amounts in major units with the currency code, moments as UTC
 * dates, booleans as yes/no; and the text of each `{{key}}` of a template body (`placeholderValues`).
 */

export type EvidenceValue = string | number | boolean;

/** `4999, 'usd'` → `49.99 USD`; `5000, 'jpy'` → `5000 JPY`; no currency: the bare number. */
export function formatAmount(amount: number, currency: string | null): string {
  if (!currency || !Number.isSafeInteger(amount)) return String(amount);
  const code = currency.toUpperCase();
  const exponent = minorUnitExponent(code);
  const digits = Math.abs(amount)
    .toString()
    .padStart(exponent + 1, '0');
  const whole = digits.slice(0, digits.length - exponent);
  const fraction = exponent > 0 ? `.${digits.slice(digits.length - exponent)}` : '';
  return `${amount < 0 ? '-' : ''}${whole}${fraction} ${code}`;
}

/** `YYYY-MM-DD`, with ` HH:MM UTC` when the time is not midnight. */
export function formatMoment(date: Date): string {
  const iso = date.toISOString();
  const time = iso.slice(11, 16);
  return time === '00:00' ? iso.slice(0, 10) : `${iso.slice(0, 10)} ${time} UTC`;
}

/** A date as sent (Unix seconds or ISO 8601); anything else is shown as it was written. */
export function formatDateValue(value: string | number): string {
  const date = parseTimestamp(value);
  return date ? formatMoment(date) : String(value);
}

function formatScalar(value: EvidenceValue): string {
  if (typeof value === 'boolean') return value ? 'yes' : 'no';
  return String(value);
}

/** A field's value by its template type; amounts are in the dispute's currency. */
export function formatField(
  value: EvidenceValue,
  type: FieldType | undefined,
  dispute: DisputeRecord,
): string {
  if (type === 'amount' && typeof value === 'number') return formatAmount(value, dispute.currency);
  if (type === 'date' && typeof value !== 'boolean') return formatDateValue(value);
  return formatScalar(value);
}

/** The values that are given, joined; null, undefined and empty ones are left out. */
export function joined(values: (string | null | undefined)[], separator: string): string {
  return values.filter((value): value is string => Boolean(value)).join(separator);
}

export const nonEmpty = (value: FieldValue | undefined): value is EvidenceValue =>
  value !== undefined && value !== null && value !== '';

/** Dispute attributes that are amounts, with the attribute holding their currency. */
const amountAttributes: Record<string, 'currency' | 'reversal_currency'> = {
  amount: 'currency',
  fee: 'currency',
  reversal_amount: 'reversal_currency',
  reversal_total: 'reversal_currency',
};
const momentAttributes = new Set([
  'charged_at',
  'disputed_at',
  'due_by',
  'submitted_at',
  'closed_at',
  'created',
  'updated',
]);
/** API plumbing rather than facts about the dispute. */
const hiddenAttributes = new Set(['object', 'url']);

/**
 * The text of each `{{key}}`: the dispute's attributes under their API names, formatted for a reader,
 * overridden by the field of the same name. A field is formatted by its template type; one the template
 * does not declare takes the format of the attribute it is named after (a field `amount` is an amount).
 */
export function placeholderValues(input: {
  dispute: DisputeRecord;
  template: TemplateShape | null;
}): Record<string, string> {
  const { dispute, template } = input;
  const object: Record<string, unknown> = toDisputeObject(dispute, template);
  const values: Record<string, string> = {};
  for (const [key, value] of Object.entries(object)) {
    if (hiddenAttributes.has(key) || value === null || typeof value === 'object') continue;
    const currencyKey = amountAttributes[key];
    if (currencyKey && typeof value === 'number') {
      values[key] = formatAmount(value, (object[currencyKey] as string | null) ?? dispute.currency);
    } else if (momentAttributes.has(key) && typeof value === 'string') {
      values[key] = formatDateValue(value);
    } else if (key === 'currency' || key === 'reversal_currency') {
      values[key] = String(value).toUpperCase();
    } else {
      values[key] = formatScalar(value as EvidenceValue);
    }
  }
  const types = new Map(template?.fields.map((field) => [field.key, field.type]));
  for (const [key, value] of Object.entries(dispute.fields)) {
    if (!nonEmpty(value)) continue;
    const type =
      types.get(key) ??
      (own(amountAttributes, key) ? 'amount' : momentAttributes.has(key) ? 'date' : undefined);
    values[key] = formatField(value, type, dispute);
  }
  return values;
}

/** A code as words: `access_activity_log` is "Access activity log". */
export const humanize = (code: string) => {
  const words = code.replace(/[_\-.]+/g, ' ').trim();
  return words.charAt(0).toUpperCase() + words.slice(1);
};
