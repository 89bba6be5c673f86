import { z } from 'zod';

/**
 * The value types the domain's schemas are built of (text Postgres can store, ids, amounts, timestamps,
 * currencies, URLs) and their limits. Values arrive as JSON or as text (form bodies, query strings, CLI
 * flags), so each accepts the JSON type or its text form (`"true"`, `"42"`, a JSON-text array) and nothing
 * looser: `1.5`, `"abc"` or `{}` for an integer is still refused.
 */

const maxText = 10_000;

/**
 * A value as a message quotes it: a string in double quotes as JSON shows it (its first 200 characters), a
 * number, boolean or null as itself, an array or object by its kind only. Never the whole of a nested value:
 * one nested thousands deep would overflow the stack while the message is built (a 500 instead of a 400).
 */
export function show(value: unknown): string {
  if (typeof value === 'string')
    return JSON.stringify(value.length > 200 ? `${value.slice(0, 200)}…` : value);
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'object' && value !== null) return 'an object';
  return String(value);
}

/**
 * Text that Postgres can store as it was sent: no NUL character (text and jsonb refuse it) and no lone
 * UTF-16 surrogate (jsonb refuses it; text would silently turn it into U+FFFD).
 */
export const storable = (value: string) => !value.includes('\u0000') && value.isWellFormed();
const storableMessage = 'must not contain NUL characters or unpaired surrogates';

export const text = (max = maxText) =>
  z.string().max(max, `must be at most ${max} characters`).refine(storable, storableMessage);

/** Dispute and template ids: 1-255 characters of A-Z a-z 0-9 _ - . : (docs/api.md, "Endpoints"). */
export const idPattern = /^[A-Za-z0-9_\-.:]{1,255}$/;
export const resourceId = z.string().regex(idPattern, 'must be 1-255 characters of A-Z a-z 0-9 _ - . :');

/** A message of the value's own for a union none of whose options takes it, instead of zod's "Invalid input". */
const unionMessage = (message: string) => ({
  error: (issue: { code?: string }) => (issue.code === 'invalid_union' ? message : undefined),
});

export const integer = z.union(
  [
    z.number().int().min(Number.MIN_SAFE_INTEGER).max(Number.MAX_SAFE_INTEGER),
    z
      .string()
      .regex(/^-?\d{1,15}$/, 'must be an integer')
      .transform(Number),
  ],
  unionMessage('must be an integer'),
);

export const nonNegativeInteger = integer.pipe(z.number().min(0, 'must not be negative'));

export const boolean = z.union(
  [z.boolean(), z.enum(['true', 'false']).transform((value) => value === 'true')],
  unionMessage('must be true or false'),
);

/** An array sent as JSON, or as one JSON-text value in a form or query string. */
export function jsonArray<T extends z.ZodType>(item: T, max: number) {
  return z.preprocess(
    (value) => {
      if (typeof value !== 'string') return value;
      try {
        return JSON.parse(value);
      } catch {
        return value;
      }
    },
    z
      .array(item, 'must be an array (in a form, one JSON-text value)')
      .max(max, `must have at most ${max} items`),
  );
}

const isoTimestamp =
  /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.\d{1,9})?)?)?(Z|[+-]\d{2}:?\d{2})?$/;

/**
 * Request timestamps: ISO 8601 with or without a zone (none means UTC) or Unix seconds, from 1970 to the
 * end of year 9999 in UTC (a dispute has no business outside it, and Postgres cannot take every moment
 * JavaScript can: no year 0, no six-digit years).
 */
const timestampMessage = 'must be an ISO 8601 timestamp or Unix seconds';
export const timestamp = z
  .union([z.number(), z.string().max(40, timestampMessage)], unionMessage(timestampMessage))
  .transform((value, ctx) => {
    const parsed = parseTimestamp(value);
    if (!parsed) {
      ctx.addIssue({ code: 'custom', message: timestampMessage });
      return z.NEVER;
    }
    return parsed;
  });

export function parseTimestamp(value: number | string): Date | null {
  if (typeof value === 'number' || /^\d{1,12}$/.test(value)) {
    const seconds = Number(value);
    if (!Number.isInteger(seconds) || seconds < 0 || seconds > 253_402_300_799) return null;
    return new Date(seconds * 1000);
  }
  const match = isoTimestamp.exec(value);
  if (!match) return null;
  const withZone = match[7] ? value : `${value}${match[4] ? '' : 'T00:00:00'}Z`;
  const date = new Date(withZone.replace(' ', 'T'));
  if (Number.isNaN(date.getTime())) return null;
  // Date accepts 2021-02-31 by rolling over; a timestamp a client mistyped should be refused instead.
  const [year, month, day] = [Number(match[1]), Number(match[2]), Number(match[3])];
  const calendar = new Date(Date.UTC(year, month - 1, day));
  if (calendar.getUTCMonth() !== month - 1 || calendar.getUTCDate() !== day) return null;
  return inRange(date) ? date : null;
}

/** The last moment a request timestamp may name. */
export const latestTimestamp = Date.UTC(9999, 11, 31, 23, 59, 59, 999);
const inRange = (date: Date) => date.getTime() >= 0 && date.getTime() <= latestTimestamp;

export const absoluteUrl = text(2048).refine((value) => {
  try {
    const url = new URL(value);
    return url.protocol === 'http:' || url.protocol === 'https:';
  } catch {
    return false;
  }
}, 'must be an absolute http or https URL');

export const currency = z
  .string()
  .regex(/^[A-Za-z]{3}$/, 'must be a 3-letter currency code')
  .transform((value) => value.toLowerCase());
