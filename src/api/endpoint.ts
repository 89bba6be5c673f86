import type { z } from 'zod';
import type { Db } from '../db/client.js';
import type { DocumentLinks } from '../documents/links.js';
import { ApiError, type ErrorType } from '../domain/errors.js';
import type { Logger } from '../logger.js';
import type { AdapterRegistry } from '../processors/registry.js';
import type { SecretBox } from '../secrets.js';
import type { KeyResolver } from '../services/authenticate.js';
import type { DisputeObjectCache } from '../services/dispute-object-cache.js';
import type { Caller } from '../services/disputes.js';
import type { RemovalDispatcher } from '../services/personal-data-removal.js';
import type { RefreshDispatcher } from '../services/processor-push.js';
import type { RateLimiter } from '../services/rate-limit.js';
import type { Readiness } from '../services/readiness.js';
import type { Submitter } from '../services/submissions.js';

/** What the HTTP layer needs from the rest of the service; tests build it with their own database. */
export interface AppDeps {
  db: Db;
  keys: KeyResolver;
  rateLimiter: RateLimiter;
  adapters: AdapterRegistry;
  submitter: Submitter;
  /** Hands personal-data removal requests to their jobs. */
  removals: RemovalDispatcher;
  /** Hands disputes a processor's push named to `refreshDispute` jobs. */
  refresher: RefreshDispatcher;
  /** Whether Postgres and Redis answer (GET /readyz). */
  readiness: Readiness;
  disputeObjects: DisputeObjectCache;
  logger: Logger;
  trustProxy: boolean;
  /** Seals webhook signing secrets (src/secrets.ts). */
  secrets: SecretBox;
  /** Signs and checks links to response documents (src/documents/links.ts). */
  links: DocumentLinks;
  /** WEBHOOK_ALLOW_PRIVATE: webhook endpoint URLs may use plain http. */
  allowPrivateWebhooks: boolean;
}

export interface RequestContext {
  caller: Caller;
  params: Record<string, string>;
  /** Query parameters merged under the body (API.md section 1). */
  input: Record<string, unknown>;
  /** The request path without its query string: every response's `url`. */
  url: string;
  /** `https://<host>` as the client reached this service, for links it hands back. */
  origin: string;
  deps: AppDeps;
}

/** A response: an object to serialize, or JSON text made already (lists of cached dispute objects). */
export type Reply = { status: number; body: object } | { status: number; json: string };

/**
 * One endpoint: a method, a path under /v1, and a handler that validates, calls one service function
 * and serializes. The app registers them all; the set of paths also answers 405 for other methods.
 */
export interface Endpoint {
  method: 'get' | 'post' | 'put' | 'delete';
  path: string;
  handle(context: RequestContext): Promise<Reply>;
}

/**
 * Parses request input with a zod schema. The first problem becomes the error: its type is the one
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
