import { z } from 'zod';
import { maxRepeatedValues } from '../middleware/body.js';

/**
 * Query parameters that take one value or several meaning any of them, as the list endpoints' filters do
 * (docs/api.md, "Disputes", "Alerts"): the parser, and the list a feature takes from what it read. One
 * home, so every list refuses a bad value in the same words.
 */

/** Values a filter may list: as many as a query string may repeat a parameter. */
export const maxFilterValues = maxRepeatedValues;

/**
 * One value, or several meaning any of them: `reason=a&reason=b`, `reason[]=a&reason[]=b`, or a JSON array.
 * A bad value's message is its own problem, with its place among several.
 */
export function oneOrMany<T extends z.ZodType>(item: T, description: string) {
  return z
    .union([item, z.array(item).max(maxFilterValues, `must have at most ${maxFilterValues} values`)], {
      error: (issue) => {
        if (issue.code !== 'invalid_union') return undefined;
        const [single, many] = issue.errors;
        const first = (Array.isArray(issue.input) ? many : single)?.[0];
        if (!first) return undefined;
        return first.path.length ? `${first.message} (value ${Number(first.path[0]) + 1})` : first.message;
      },
    })
    .optional()
    .meta({ description });
}

/** A filter on one attribute: the objects whose attribute is any of the values. */
export const anyOf = <T extends z.ZodType>(item: T, description: string) =>
  oneOrMany(item, `${description} Repeat it for any of several.`);

/** What `oneOrMany` read, as a list: one value is a list of one; absent stays absent (no filter). */
export const listOf = <T>(value: T | T[] | undefined) =>
  value === undefined ? undefined : ([value].flat() as T[]);
