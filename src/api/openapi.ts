import {
  OpenAPIRegistry,
  OpenApiGeneratorV31,
  type ResponseConfig,
  type RouteConfig,
} from '@asteasolutions/zod-to-openapi';
import type { Request, Response } from 'express';
import { z } from 'zod';
import { type ErrorType, errorStatus } from '../domain/errors.js';
import { apiVersions, latestVersion } from '../domain/versions.js';
import {
  type Endpoint,
  type EndpointDocs,
  type ErrorAnswer,
  type InputSettings,
  type KeylessRoute,
  type Method,
  resolveSchema,
} from './endpoint.js';
import { apiKeyScheme, ComponentNames, type Components, registerComponents } from './openapi-components.js';
import { formEncoding, multipartBody, withJsonTextArrays } from './openapi-forms.js';
import { downloadDocumentRoute } from './routes/documents/download.js';
import { downloadFileRoute } from './routes/files/download.js';

/**
 * GET /v1/openapi.json: an OpenAPI 3.1 document of the public API, generated from the `endpoints` of
 * app.ts: each declares its documentation and the schemas the app checks its requests with
 * (api/endpoint.ts), so an endpoint cannot ship undocumented, nor be documented with schemas it does not
 * check. Built on the first request and kept.
 *
 * The generator reads what a client sends: the input side of a transform (`"42"` or 42 for an integer) and
 * the schema behind a preprocess (the array a JSON-text form value becomes). Refinements have no JSON Schema
 * form; the document's overview says so. The overrides are `queryObject` below and the JSON-text
 * alternative of arrays (api/openapi-forms.ts).
 */
export const openApiPath = '/v1/openapi.json';

/** `settings`: those the app's input schemas are made with (the webhook endpoints' URL rule). */
export function serveOpenApi(endpoints: readonly Endpoint[], settings: InputSettings) {
  let json: string | undefined;
  return (_req: Request, res: Response): void => {
    json ??= JSON.stringify(buildOpenApiDocument(endpoints, settings));
    res.status(200).type('json').send(json);
  };
}

/** Routes outside `endpoints` that need no key, mounted by app.ts before the key check. */
const keylessRoutes: readonly KeylessRoute[] = [
  downloadDocumentRoute,
  downloadFileRoute,
  {
    method: 'get',
    path: openApiPath,
    docs: {
      operationId: 'openApiDocument',
      summary: 'This document',
      success: { 200: 'The OpenAPI document.' },
      returns: { description: 'An OpenAPI 3.1 document.', mediaType: 'application/json' },
      errors: [],
    },
  },
];

/** What any call with a key can meet: a bad key, plain HTTP, a bad version header or body, limits, a bug. */
const keyedErrors: readonly ErrorType[] = [
  'authentication',
  'insecure_connection',
  'invalid_request',
  'request_too_large',
  'rate_limited',
  'server_error',
];
/**
 * What any call without a key can meet: plain HTTP, limits, a bug, and what every request can meet before
 * its route (a path that is not valid percent-encoding, a query nested too deeply: 400; headers over 16 KiB:
 * 413, src/api/client-errors.ts).
 */
const keylessErrors: readonly ErrorType[] = [
  'insecure_connection',
  'invalid_request',
  'request_too_large',
  'rate_limited',
  'server_error',
];

/** What a write (POST, PUT, DELETE) with a key can meet besides: its Idempotency-Key refused or busy. */
const writeErrors: readonly ErrorType[] = ['idempotency_error', 'idempotency_in_progress'];

const legacyNames =
  'Before `2017-10-30` the request may also carry the parameters of that version (`Service-Version`).';

/** An operation as the document shows it. */
interface Operation {
  docs: EndpointDocs;
  /** Path parameters by name; one not given is a plain string. */
  params?: Record<string, z.ZodType>;
  query?: z.ZodType;
  body?: z.ZodType;
  /** Takes the parameter names of versions before 2017-10-30 too. */
  legacyParameters?: boolean;
  /** The error types its input's parameters answer with. */
  inputErrors?: readonly ErrorType[];
  /** A multipart body, with the file in this part (api/middleware/upload.ts). */
  upload?: string;
}

function operationOf(endpoint: Endpoint, settings: InputSettings): Operation {
  const { input } = endpoint;
  return {
    docs: endpoint.docs,
    params: Object.fromEntries(
      Object.entries(endpoint.params ?? {}).map(([name, parameter]) => [name, parameter.schema]),
    ),
    ...(input?.query && { query: resolveSchema(input.query, settings) }),
    ...(input?.body && { body: resolveSchema(input.body, settings) }),
    legacyParameters: input?.legacyParameters !== undefined,
    inputErrors: Object.values(input?.errorTypes ?? {}).filter((type) => type !== undefined),
    ...(endpoint.upload && { upload: endpoint.upload.part }),
  };
}

/** Express paths (`/disputes/:id`) in OpenAPI's spelling (`/disputes/{id}`). */
export const openApiPathOf = (path: string) => path.replace(/:(\w+)/g, '{$1}');

export function buildOpenApiDocument(endpoints: readonly Endpoint[], settings: InputSettings) {
  const names = new ComponentNames();
  try {
    const registry = new OpenAPIRegistry();
    const components = registerComponents(registry, names);
    const routes = [
      ...endpoints.map((endpoint) => ({
        method: endpoint.method,
        path: `/v1${endpoint.path}`,
        operation: operationOf(endpoint, settings),
        keyed: true,
      })),
      ...keylessRoutes.map(({ method, path, ...operation }) => ({ method, path, operation, keyed: false })),
    ];
    for (const route of routes) registry.registerPath(routeConfig(route, components));

    const document = new OpenApiGeneratorV31(registry.definitions).generateDocument({
      openapi: '3.1.0',
      info: { title: 'Rebuttal API', version: latestVersion, description: overview() },
      security: [{ [apiKeyScheme]: [] }],
    });
    return withJsonTextArrays(document, components.jsonTextArrays);
  } finally {
    names.forget();
  }
}

function routeConfig(
  route: { method: Method; path: string; operation: Operation; keyed: boolean },
  components: Components,
): RouteConfig {
  const { operation, keyed } = route;
  const { docs } = operation;
  // Writes with a key take an Idempotency-Key (docs/api.md, "Idempotent requests").
  const write = keyed && route.method !== 'get';
  const names = [...route.path.matchAll(/:(\w+)/g)].map((match) => match[1] as string);
  const params = z.object(
    Object.fromEntries(names.map((name) => [name, operation.params?.[name] ?? z.string()])),
  );
  const description = [docs.description, operation.legacyParameters && legacyNames].filter(Boolean).join(' ');
  const errors = [
    ...(keyed ? keyedErrors : keylessErrors),
    ...(write ? writeErrors : []),
    ...(operation.inputErrors ?? []),
    ...docs.errors,
  ];
  return {
    method: route.method,
    path: openApiPathOf(route.path),
    operationId: docs.operationId,
    summary: docs.summary,
    ...(description !== '' && { description }),
    tags: [route.path.split('/')[2] ?? ''],
    ...(keyed
      ? {
          parameters: [components.versionParameter, ...(write ? [components.idempotencyKeyParameter] : [])],
        }
      : { security: [] }),
    request: {
      ...(names.length > 0 && { params }),
      ...(operation.query && { query: queryObject(operation.query) }),
      ...(operation.body && {
        body: operation.upload
          ? multipartBody(docs, operation.body, operation.upload)
          : requestBody(docs, operation.body, components),
      }),
    },
    responses: {
      ...successResponses(docs, keyed, write, components),
      ...errorResponses(errors, write, components),
    },
  };
}

/**
 * Query parameters as one object. The list endpoints validate `pageParams.and(...)`, an intersection, which
 * the generator cannot split into parameters; an intersection of objects takes the parameters of both.
 * Refinements across parameters (not both cursors) stay with the validator.
 */
function queryObject(schema: z.core.$ZodType): z.ZodObject {
  if (schema instanceof z.ZodObject) return schema;
  if (schema instanceof z.ZodIntersection) {
    return z.object({ ...queryObject(schema.def.left).shape, ...queryObject(schema.def.right).shape });
  }
  throw new Error('openapi.ts: query parameters must be an object or an intersection of objects');
}

/**
 * Bodies are JSON or form-encoded (middleware/body.ts). One schema serves both: the validators take each
 * value as JSON or as its text form. In a form, a dictionary is `key[name]=value` (deepObject) and an array
 * is one JSON-text value, which `encoding` says per property.
 */
function requestBody(docs: EndpointDocs, body: z.ZodType, components: Components) {
  if (!(body instanceof z.ZodObject))
    throw new Error(`openapi.ts: ${docs.operationId}: a body must be an object`);
  const encoding = Object.fromEntries(
    Object.entries(body.shape).flatMap(([name, value]) => {
      const how = formEncoding(value);
      return how ? [[name, how] as const] : [];
    }),
  );
  let schema = components.bodies.get(body);
  if (!schema) {
    const id = `${docs.operationId.replace(/^./, (first) => first.toUpperCase())}Params`;
    schema = components.names.name(id, body);
    components.bodies.set(body, schema);
    const arrays = Object.entries(encoding).filter(([, how]) => 'contentType' in how);
    components.jsonTextArrays.set(
      id,
      arrays.map(([name]) => name),
    );
  }
  return {
    content: {
      'application/x-www-form-urlencoded': { schema, ...(Object.keys(encoding).length > 0 && { encoding }) },
      'application/json': { schema },
    },
  };
}

function successResponses(
  docs: EndpointDocs,
  keyed: boolean,
  write: boolean,
  components: Components,
): Record<string, ResponseConfig> {
  const { returns, alsoAs = [] } = docs;
  const described = (mediaType: string | readonly string[], description: string) =>
    [mediaType].flat().map((type) => [type, { schema: { description } }]);
  const content = Object.fromEntries([
    ...(typeof returns === 'string'
      ? [['application/json', { schema: components.objects[returns] }]]
      : described(returns.mediaType, returns.description)),
    ...alsoAs.flatMap(({ mediaType, description }) => described(mediaType, description)),
  ]);
  const headers = {
    'Request-Id': components.headers.requestId,
    ...(keyed && { 'Service-Version': components.headers.version }),
    ...(write && { 'Idempotent-Replayed': components.headers.replayed }),
  };
  return Object.fromEntries(
    Object.entries(docs.success).map(([status, description]) => [status, { description, headers, content }]),
  );
}

/**
 * One response per status, naming the error types that answer with it. A write's error may be replayed
 * too: its kept 4xx, or a 5xx after it wrote.
 */
function errorResponses(answers: readonly ErrorAnswer[], write: boolean, components: Components) {
  const byStatus = new Map<number, Set<ErrorType>>();
  for (const answer of answers) {
    const [type, status] = typeof answer === 'string' ? [answer, errorStatus[answer]] : answer;
    byStatus.set(status, (byStatus.get(status) ?? new Set()).add(type));
  }
  return Object.fromEntries(
    [...byStatus].map(([status, types]): [string, ResponseConfig] => [
      String(status),
      {
        description: [...types].map((type) => `\`${type}\``).join(', '),
        headers: {
          'Request-Id': components.headers.requestId,
          ...((types.has('rate_limited') || types.has('idempotency_in_progress')) && {
            'Retry-After': components.headers.retryAfter,
          }),
          ...(write && { 'Idempotent-Replayed': components.headers.replayed }),
        },
        content: { 'application/json': { schema: components.error } },
      },
    ]),
  );
}

function overview(): string {
  const catalogue = Object.entries(errorStatus)
    .map(([type, status]) => `| \`${type}\` | ${status} |`)
    .join('\n');
  return [
    'Rebuttal fights payment chargebacks. This document is generated from the validators the API itself uses; docs/api.md in the repository is the contract in prose.',
    'HTTPS only. Authenticate with HTTP Basic, the API key as user name (no password needed; one sent is ignored). Every answer is JSON with `object`, `livemode` and `url` (the request path). Bodies are JSON or form-encoded (at most 1 MiB; in a form a dictionary is `fields[key]=value`, an array one JSON-text value (which a JSON body may send too), a boolean `true` or `false`), except `POST /v1/files`, which takes `multipart/form-data` with one file part of at most 5 MB; query-string parameters also count on POST and PUT, the body winning a clash; unknown parameters are ignored. Request timestamps are ISO 8601 (no zone means UTC) or Unix seconds; amounts are integers in minor units.',
    `Versions: ${apiVersions.map((version) => `\`${version}\``).join(', ')}; this document describes the latest. Send \`Service-Version\` to pick one per request.`,
    "Rules the schemas cannot state (URL schemes, non-negative amounts, real calendar dates, one cursor at most, …) are checked by the API and answer `invalid_request` or the parameter's own error type.",
    `Error types and their statuses (\`template_not_found\` is 404 on the templates endpoints):\n\n| type | status |\n|---|---|\n${catalogue}`,
  ].join('\n\n');
}
