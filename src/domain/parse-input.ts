import type { z } from 'zod';
import { ApiError, type ErrorType } from './errors.js';

/**
 * Input checked against its schema, the first problem made the API's error: shared by the API's endpoints
 * and the CLI commands that take the same objects (templates imported from a file).
 */

/**
 * Parses input with a zod schema. The first problem becomes the error: its type is the one
 * `errorTypes` names for the top-level parameter it is under, else invalid_request. The dispute endpoints
 * pass `evidenceErrors` (invalid_products for products, ...); a template's `fields` are definitions, not
 * evidence, so a bad one there is an invalid_request.
 */
export function parseInput<S extends z.ZodType>(
  schema: S,
  input: unknown,
  errorTypes: Partial<Record<string, ErrorType>> = {},
): z.infer<S> {
  const result = schema.safeParse(input);
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  const type = errorTypes[String(issue?.path[0] ?? '')] ?? 'invalid_request';
  const where = issue?.path.length ? issue.path.join('.') : 'request';
  const missing = issue?.code === 'invalid_type' && pathValue(input, issue.path) === undefined;
  throw new ApiError(
    type,
    missing ? `Missing required parameter: ${where}.` : `Invalid ${where}: ${issue?.message}.`,
  );
}

function pathValue(input: unknown, path: readonly PropertyKey[]): unknown {
  let value: unknown = input;
  for (const key of path) {
    if (typeof value !== 'object' || value === null) return undefined;
    value = (value as Record<PropertyKey, unknown>)[key];
  }
  return value;
}
