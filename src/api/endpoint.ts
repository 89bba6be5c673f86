import type { z } from 'zod';
import type { TrustProxy } from '../config.js';
import type { Db } from '../db/client.js';
import type { DocumentLinks } from '../documents/links.js';
import type { DocumentLimits } from '../domain/document-size.js';
import type { ApiError, ErrorType } from '../domain/errors.js';
import { parseInput } from '../domain/parse-input.js';
import type { AlertRefunder } from '../features/alerts/refund-dispatch.js';
import type { DisputeObjectCache } from '../features/disputes/object-cache.js';
import type { ProductImageFetcher } from '../features/disputes/product-images.js';
import type { FileStorage } from '../features/files/storage.js';
import type { RefreshDispatcher } from '../features/mirroring/push.js';
import type { KeyResolver } from '../features/organisations/authenticate.js';
import type { RemovalDispatcher } from '../features/personal-data/removal.js';
import type { Submitter } from '../features/submissions/port.js';
import type { Caller } from '../features/tenancy.js';
import type { Logger } from '../logger.js';
import type { AdapterRegistry } from '../processors/registry.js';
import type { RateLimits } from '../rate-limits.js';
import type { Readiness } from '../readiness.js';
import type { SecretBox } from '../secrets.js';
import { renameLegacyParameters } from './legacy-parameters.js';
import type { UploadLimits } from './middleware/upload.js';

/** What the HTTP layer needs from the rest of the service; tests build it with their own database. */
export interface AppDeps {
  db: Db;
  keys: KeyResolver;
  /** The request, answer-size and per-endpoint limits, and those per client address (docs/api.md, "Limits"). */
  rateLimits: RateLimits;
  adapters: AdapterRegistry;
  submitter: Submitter;
  /** Hands personal-data removal requests to their jobs. */
  removals: RemovalDispatcher;
  /** Hands disputes a processor's push named to `refreshDispute` jobs. */
  refresher: RefreshDispatcher;
  /** Hands alerts to their refund jobs: a refund by hand whose processor call must be tried again. */
  alertRefunds: AlertRefunder;
  /** Whether Postgres and Redis answer (GET /readyz). */
  readiness: Readiness;
  disputeObjects: DisputeObjectCache;
  logger: Logger;
  /** PUBLIC_URL: its origin is the service's own site (api/middleware/origin.ts). */
  publicUrl?: string | undefined;
  /** TRUST_PROXY: whose X-Forwarded-For and X-Forwarded-Proto count. */
  trustProxy: TrustProxy;
  /** Seals webhook signing secrets (src/secrets.ts). */
  secrets: SecretBox;
  /** Signs and checks links to response documents (src/documents/links.ts). */
  links: DocumentLinks;
  /** WEBHOOK_ALLOW_PRIVATE: webhook endpoint URLs may use plain http. */
  allowPrivateWebhooks: boolean;
  /** WEBHOOK_ENDPOINTS_MAX: the webhook endpoints one organisation may have in each mode. */
  webhookEndpointsMax: number;
  /** DOCUMENT_MAX_CHARACTERS and DOCUMENT_MAX_PAGES, checked when evidence or a template is saved. */
  documentLimits: DocumentLimits;
  /** Where uploaded files' bytes are kept (features/files/storage.ts). */
  fileStorage: FileStorage;
  /** FILES_MAX_BYTES: the bytes of files one organisation may keep in each mode. */
  filesMaxBytes: number;
  /** Fetches products' `image` URLs when products are saved (docs/api.md, "Files", "Product images"). */
  productImages: ProductImageFetcher;
  /** How long a request holds its Idempotency-Key before a repeat may take it over (docs/api.md, "Idempotent requests"). */
  idempotencyLeaseMs: number;
}

/** A request as the app hands it over, before its endpoint's checks. */
export interface RequestContext {
  caller: Caller;
  params: Record<string, string>;
  /** Query parameters merged under the body (docs/api.md, "Conventions"). */
  input: Record<string, unknown>;
  /** The request path without its query string: every response's `url`. */
  url: string;
  /** Which of `types` the request's Accept header prefers (the first when it names none of them), or false. */
  accepts(types: string[]): string | false;
  deps: AppDeps;
}

/** What a handler gets: the request with its path parameters checked and its input parsed. */
export interface EndpointContext<P extends string, I> extends Omit<RequestContext, 'params' | 'input'> {
  params: Record<P, string>;
  input: I;
}

/**
 * A response: an object to serialize, JSON text made already (lists of cached dispute objects), or bytes
 * that are not JSON (a file's contents) with their headers, Content-Type among them.
 */
export type Reply =
  /**
   * `costBytes`: what the answer cost to make, where that is more than its body (a preview's JSON form
   * renders the whole PDF, a list's counts read every dispute they count): the rate limit charges the
   * larger (docs/api.md, "Limits"). `headers`: beside the JSON's own, as `Vary` for an answer that has
   * another form.
   */
  | { status: number; body: object; costBytes?: number; headers?: Record<string, string> }
  | { status: number; json: string; costBytes?: number }
  | { status: number; bytes: Buffer; headers: Record<string, string> };

export type Method = 'get' | 'post' | 'put' | 'delete';
export type SuccessStatus = 200 | 201 | 202;
/** An error type, or a type and its status here where the catalogue gives it two (template_not_found). */
export type ErrorAnswer = ErrorType | readonly [ErrorType, number];
/** The response objects of the OpenAPI document, each a component that operations share by reference. */
export type ResponseObject =
  | 'dispute'
  | 'disputeList'
  | 'template'
  | 'templateList'
  | 'deletedTemplate'
  | 'webhookEndpoint'
  | 'webhookEndpointList'
  | 'deletedWebhookEndpoint'
  | 'event'
  | 'eventList'
  | 'response'
  | 'personalDataRequest'
  | 'file'
  | 'fileList'
  | 'deletedFile'
  | 'disputeStats'
  | 'alert'
  | 'alertList';

/** An operation of the OpenAPI document (api/openapi.ts), beyond what its schemas say. */
export interface EndpointDocs {
  operationId: string;
  summary: string;
  description?: string;
  success: Partial<Record<SuccessStatus, string>>;
  /** The object of every success answer, or a description of what has none (a PDF, the document itself). */
  returns: ResponseObject | { description: string; mediaType: string | readonly string[] };
  /** The same answer in other forms, which a request asks for by its Accept header (CSV). */
  alsoAs?: readonly { mediaType: string; description: string }[];
  /**
   * Error types beyond those every operation of its kind can answer (openapi.ts) and those its input's
   * `errorTypes` name.
   */
  errors: readonly ErrorAnswer[];
}

/**
 * A route outside `endpoints` that needs no key, as the OpenAPI document shows it. Its handler reads its own
 * request, so these schemas are documentation only.
 */
export interface KeylessRoute {
  method: Method;
  path: string;
  docs: EndpointDocs;
  params?: Record<string, z.ZodType>;
  query?: z.ZodObject;
}

/**
 * A path parameter: its schema documents it and checks it. A value outside the schema names nothing that
 * can exist, so it answers `notFound` (with the value cut to 255 characters), as a lookup would.
 */
export interface PathParameter {
  schema: z.ZodType<string, string>;
  notFound: (value: string) => ApiError;
}

/** What an input schema may depend on: the app's settings, never the request. */
export type InputSettings = Pick<AppDeps, 'allowPrivateWebhooks'>;
/** A schema, or one made from the app's settings (the webhook endpoints' URL rule). */
export type SchemaOf<S extends z.ZodType> = S | ((settings: InputSettings) => S);

export function resolveSchema<S extends z.ZodType>(schema: SchemaOf<S>, settings: InputSettings): S {
  return typeof schema === 'function' ? schema(settings) : schema;
}

/**
 * The input of an endpoint: one schema for the query parameters merged with the body (docs/api.md, "Conventions").
 * `query` or `body` says only where the document tells clients to send them: query for GET, body for POST
 * and PUT.
 */
export type EndpointInput<S extends z.ZodType> = (
  | { query: SchemaOf<S>; body?: undefined }
  | { body: SchemaOf<S>; query?: undefined }
) & {
  /** The error type of a problem under each top-level parameter (`parseInput`); else invalid_request. */
  errorTypes?: Partial<Record<string, ErrorType>>;
  /** Renamed before parsing on versions before 2017-10-30 (api/legacy-parameters.ts). */
  legacyParameters?: Parameters<typeof renameLegacyParameters>[1];
  /**
   * Parse the input before checking the path parameters, so that a bad input answers its own error even on
   * an id that cannot exist. The dispute endpoints have always answered so; the others check the id first.
   */
  beforeParams?: boolean;
};

/**
 * One endpoint: a method, a path under /v1, its documentation, path parameters and input, and a handler
 * that calls one service function and serializes. The app checks the path parameters and parses the input
 * with these very schemas before `handle` (`requestReader`), and the OpenAPI document shows the same ones:
 * what is documented is what is checked. The set of paths also answers 405 for other methods.
 */
export interface Endpoint<P extends string = string, S extends z.ZodType = z.ZodType> {
  method: Method;
  path: string;
  docs: EndpointDocs;
  /** Every `:name` of the path (`defineEndpoint` checks). */
  params?: Record<P, PathParameter>;
  input?: EndpointInput<S>;
  /**
   * How long each database wait may take, where a read counts far more rows than a page (statistics), instead
   * of `requestDatabaseWaitMs` (db/bounded.ts).
   */
  databaseWaitMs?: number;
  /** A limit of its own per API key, beside the request limit, for a call that costs far more than it shows. */
  budget?: 'personalData' | 'testDisputes' | 'stats';
  /**
   * Takes `multipart/form-data` with one file part, read and bounded by middleware/upload.ts, instead of a
   * JSON or form body: the input holds the other parts and, under `part`, the file.
   */
  upload?: UploadLimits;
  handle(context: EndpointContext<P, z.output<S>>): Promise<Reply>;
}

/**
 * Declares an endpoint, typing `handle` by its path parameters and input schema. Throws (at import) when
 * `params` does not declare exactly the path's parameters.
 */
export function defineEndpoint<P extends string = never, S extends z.ZodType = z.ZodUndefined>(
  endpoint: Endpoint<P, S>,
): Endpoint<P, S> {
  const named = [...endpoint.path.matchAll(/:(\w+)/g)].map((match) => match[1]).sort();
  const declared = Object.keys(endpoint.params ?? {}).sort();
  if (named.join() !== declared.join()) {
    throw new Error(`${endpoint.method} ${endpoint.path}: params must declare exactly: ${named.join(', ')}`);
  }
  return endpoint;
}

/**
 * Reads requests for an endpoint of this app: checks the path parameters and parses the input, the
 * parameters first unless the input says `beforeParams`.
 */
export function requestReader(endpoint: Endpoint, settings: InputSettings) {
  const { params = {}, input } = endpoint;
  const schema = input && resolveSchema<z.ZodType>(input.query ?? input.body, settings);
  const readParams = (context: RequestContext) => {
    const checked: Record<string, string> = {};
    for (const [name, parameter] of Object.entries(params)) {
      const value = context.params[name] ?? '';
      if (!parameter.schema.safeParse(value).success) throw parameter.notFound(value.slice(0, 255));
      checked[name] = value;
    }
    return checked;
  };
  const readInput = (context: RequestContext): unknown => {
    if (!input || !schema) return undefined;
    const sent = input.legacyParameters
      ? renameLegacyParameters(context.caller.version, input.legacyParameters, context.input)
      : context.input;
    return parseInput(schema, sent, input.errorTypes);
  };
  return (context: RequestContext): { params: Record<string, string>; input: unknown } => {
    if (input?.beforeParams) {
      const parsed = readInput(context);
      return { params: readParams(context), input: parsed };
    }
    const checked = readParams(context);
    return { params: checked, input: readInput(context) };
  };
}
