/**
 * Deep redaction of JSON values: what removing a person's data does to stored evidence, event payloads
 * and document dictionaries. Pure: values come back as new objects, the given ones are left as they were.
 */

/** What every redacted occurrence, and every redacted attribute, becomes. */
export const redactedText = '[redacted]';

/**
 * `value` with every match of `pattern` in every string it holds (however deep in objects and arrays)
 * replaced by `[redacted]`. Object keys, numbers, booleans and nulls are kept, and so is the structure:
 * the same keys in the same order, the same array lengths. `pattern` must be global.
 */
export function replaceDeep<T>(value: T, pattern: RegExp): T {
  return mapStrings(value, (text) => text.replace(pattern, redactedText)) as T;
}

/** Whether any string inside `value` (not its object keys) matches `pattern`. */
export function containsDeep(value: unknown, pattern: RegExp): boolean {
  if (typeof value === 'string') return value.search(pattern) !== -1;
  if (Array.isArray(value)) return value.some((item) => containsDeep(item, pattern));
  if (isRecord(value)) return Object.values(value).some((item) => containsDeep(item, pattern));
  return false;
}

/**
 * `record` with each of `keys` it holds as a string replaced whole by `[redacted]` (attributes that are
 * personal data in their entirety, such as an IP address). Absent keys stay absent, nulls stay null.
 */
export function redactAttributes<T>(record: T, keys: readonly string[]): T {
  if (!isRecord(record)) return record;
  const copy: Record<string, unknown> = { ...record };
  for (const key of keys) {
    if (typeof copy[key] === 'string') copy[key] = redactedText;
  }
  return copy as T;
}

/** Whether two JSON values are the same: a redaction that found nothing need not be written. */
export function sameJson(a: unknown, b: unknown): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function mapStrings(value: unknown, map: (text: string) => string): unknown {
  if (typeof value === 'string') return map(value);
  if (Array.isArray(value)) return value.map((item) => mapStrings(item, map));
  // fromEntries defines keys as data, so a stored `__proto__` key stays a key.
  if (isRecord(value)) {
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, mapStrings(item, map)]));
  }
  return value;
}
