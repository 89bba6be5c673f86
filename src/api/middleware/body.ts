import { isUtf8 } from 'node:buffer';
import express, { type NextFunction, type Request, type Response } from 'express';
import qs from 'qs';
import { ApiError } from '../../domain/errors.js';

/** Bodies are at most 1 MiB (docs/api.md, "Limits"). */
export const maxBodyBytes = 1024 * 1024;

/** How many times a query string may repeat one parameter; a list's filters take as many values. */
export const maxRepeatedValues = 100;

/** qs limits: deep enough for `fields[key]`, shallow enough that a hostile body cannot cost much. */
const qsOptions = {
  depth: 3,
  arrayLimit: maxRepeatedValues,
  parameterLimit: 1000,
  strictDepth: true,
} as const;

export function parseQueryString(query: string): Record<string, unknown> {
  try {
    return qs.parse(query, { ...qsOptions, throwOnLimitExceeded: true });
  } catch (error) {
    const repeated = String(error).includes('Array limit') ? overRepeated(query) : undefined;
    throw new ApiError(
      'invalid_request',
      repeated === undefined
        ? 'The query string is nested too deeply or has too many parameters.'
        : `Invalid ${repeated}: must have at most ${qsOptions.arrayLimit} values.`,
    );
  }
}

/**
 * The parameter repeated more often than an array may hold (`state=a&state=b&…` or `state[]=…`), named as
 * any other bad value is (docs/api.md, "Disputes").
 */
function overRepeated(query: string): string | undefined {
  const counts = new Map<string, number>();
  for (const pair of query.split('&')) {
    const name = /^([\w.-]+)(?:\[\]|%5B%5D)?(?:=|$)/i.exec(pair)?.[1];
    if (name === undefined) continue;
    const count = (counts.get(name) ?? 0) + 1;
    counts.set(name, count);
    if (count > qsOptions.arrayLimit) return name;
  }
  return undefined;
}

const supportedTypes = ['application/json', 'application/x-www-form-urlencoded'];

/** A request has a body when it says so; a GET with Content-Length: 0 has none. */
function hasBody(req: Request): boolean {
  return req.headers['transfer-encoding'] !== undefined || (req.headers['content-length'] ?? '0') !== '0';
}

const parseJson = express.json({
  limit: maxBodyBytes,
  strict: true,
  verify(_req, _res, buffer) {
    if (!isUtf8(buffer)) throw new ApiError('invalid_request', 'The body is not valid UTF-8.');
  },
});

// body-parser 2 takes `depth` (and enforces it strictly); its published types predate the option.
const formOptions = {
  limit: maxBodyBytes,
  extended: true,
  depth: qsOptions.depth,
  parameterLimit: qsOptions.parameterLimit,
};
const parseForm = express.urlencoded(formOptions);

/**
 * Reads a JSON or form body when there is one; any other content type is refused. A body its route read
 * already (an upload, middleware/upload.ts) is left as it is.
 */
export function readBody(req: Request, res: Response, next: NextFunction): void {
  if (req.body !== undefined || !hasBody(req)) next();
  else if (req.is('application/json')) parseJson(req, res, next);
  else if (req.is('application/x-www-form-urlencoded')) parseForm(req, res, next);
  else
    throw new ApiError('invalid_request', `Unsupported content type: send ${supportedTypes.join(' or ')}.`);
}

/** Query parameters merge under the body on every method (docs/api.md, "Conventions"): the body wins a clash. */
export function mergeInput(req: Request, res: Response, next: NextFunction): void {
  const body: unknown = req.body ?? {};
  if (typeof body !== 'object' || Array.isArray(body)) {
    throw new ApiError('invalid_request', 'The body must be a JSON object.');
  }
  res.locals.input = { ...(req.query as Record<string, unknown>), ...(body as Record<string, unknown>) };
  next();
}
