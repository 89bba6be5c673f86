import {
  OpenAPIRegistry,
  OpenApiGeneratorV31,
  type ResponseConfig,
  type RouteConfig,
} from '@asteasolutions/zod-to-openapi';
import type { Request, Response } from 'express';
import { z } from 'zod';
import { documentPath } from '../documents/links.js';
import { type ErrorType, errorStatus } from '../domain/errors.js';
import { apiVersions, latestVersion } from '../domain/versions.js';
import type { Endpoint } from './endpoint.js';
import {
  type ErrorAnswer,
  keyedErrors,
  keylessErrors,
  type Operation,
  operationsOf,
  type ResponseObjects,
} from './openapi-operations.js';
import {
  deletedTemplateSchema,
  deletedWebhookEndpointSchema,
  disputeObject,
  errorObjectSchema,
  eventObjectSchema,
  listOf,
  personalDataRequestSchema,
  responsePackageSchema,
  templateObjectSchema,
  webhookEndpointSchema,
} from './openapi-responses.js';

/**
 * GET /v1/openapi.json: an OpenAPI 3.1 document of the public API, generated from the `endpoints` of
 * app.ts and the zod schemas their handlers validate with (the table of openapi-operations.ts). Every
 * endpoint must have an entry there, and every entry an endpoint, else building the document throws: an
 * endpoint cannot ship undocumented, nor documentation outlive its endpoint. Built on the first request and
 * kept.
 *
 * The generator reads what a client sends: the input side of a transform (`"42"` or 42 for an integer) and
 * the schema behind a preprocess (the array a JSON-text form value becomes). Refinements have no JSON Schema
 * form; the document's overview says so. The one override is `queryObject` below.
 */
export const openApiPath = '/v1/openapi.json';

export function serveOpenApi(endpoints: readonly Endpoint[]) {
  let json: string | undefined;
  return (_req: Request, res: Response): void => {
    json ??= JSON.stringify(buildOpenApiDocument(endpoints));
    res.status(200).type('json').send(json);
  };
}

type Method = Endpoint['method'];

/** Routes outside `endpoints` that need no key, mounted by app.ts before the key check. */
function keylessOperations(): Record<string, Operation> {
  return {
    // routes/documents/download.ts
    [`get ${documentPath(':id')}`]: {
      operationId: 'downloadDocument',
      summary: 'The PDF behind a `response_url`; the signed link is the credential, no key',
      params: { id: z.string().meta({ description: 'A `doc_…` id.' }) },
      query: z.object({ expires: z.string(), signature: z.string() }),
      success: { 200: 'The response document.' },
      returns: { description: 'The PDF.', mediaType: 'application/pdf' },
      errors: ['invalid_link', 'not_found'],
    },
    [`get ${openApiPath}`]: {
      operationId: 'openApiDocument',
      summary: 'This document',
      success: { 200: 'The OpenAPI document.' },
      returns: { description: 'An OpenAPI 3.1 document.', mediaType: 'application/json' },
      errors: [],
    },
  };
}

const apiKeyScheme = 'apiKey';

/** Express paths (`/disputes/:id`) in OpenAPI's spelling (`/disputes/{id}`). */
export const openApiPathOf = (path: string) => path.replace(/:(\w+)/g, '{$1}');

export function buildOpenApiDocument(endpoints: readonly Endpoint[]) {
  const names = new ComponentNames();
  try {
    const registry = new OpenAPIRegistry();
    const components = registerComponents(registry, names);
    const operations = operationsOf(components.objects);
    const keys = new Set(endpoints.map((endpoint) => `${endpoint.method} ${endpoint.path}`));
    for (const key of keys)
      if (!operations[key]) throw new Error(`openapi-operations.ts does not document ${key}`);
    for (const key of Object.keys(operations))
      if (!keys.has(key)) throw new Error(`openapi-operations.ts documents ${key}, which no endpoint serves`);

    const routes = [
      ...endpoints.map((endpoint) => ({
        method: endpoint.method,
        path: `/v1${endpoint.path}`,
        operation: operations[`${endpoint.method} ${endpoint.path}`] as Operation,
        keyed: true,
      })),
      ...Object.entries(keylessOperations()).map(([key, operation]) => {
        const [method, path] = key.split(' ') as [Method, string];
        return { method, path, operation, keyed: false };
      }),
    ];
    for (const route of routes) registry.registerPath(routeConfig(route, components));

    return new OpenApiGeneratorV31(registry.definitions).generateDocument({
      openapi: '3.1.0',
      info: { title: 'Rebuttal API', version: latestVersion, description: overview() },
      security: [{ [apiKeyScheme]: [] }],
    });
  } finally {
    names.forget();
  }
}

/**
 * Names schemas as components, with zod's `.meta({ id })` (which the generator reads), for one build. The
 * names go afterwards: zod's global registry refuses an id twice, and the document may be built again (by
 * another app in the same process). `.openapi(name)` would avoid the global registry, but it exists only on
 * schemas created after `extendZodWithOpenApi(z)`, and the validators are created at import.
 */
class ComponentNames {
  readonly #named: z.ZodType[] = [];

  name<S extends z.ZodType>(id: string, schema: S): S {
    const named = schema.meta({ id });
    this.#named.push(named);
    return named;
  }

  forget(): void {
    for (const schema of this.#named) z.globalRegistry.remove(schema);
  }
}

type Components = ReturnType<typeof registerComponents>;

function registerComponents(registry: OpenAPIRegistry, names: ComponentNames) {
  registry.registerComponent('securitySchemes', apiKeyScheme, {
    type: 'http',
    scheme: 'basic',
    description:
      'HTTP Basic with the API key (`test_…` or `live_…`) as user name and an empty password. The key decides the mode.',
  });
  const header = (name: string, description: string) =>
    registry.registerComponent('headers', name, { description, schema: { type: 'string' } }).ref;
  const version = registry.registerComponent('parameters', 'ServiceVersion', {
    name: 'Service-Version',
    in: 'header',
    required: false,
    description: "The API version of this request (alias `Chargehound-Version`); default the organisation's.",
    schema: { type: 'string', enum: [...apiVersions] },
  });
  const dispute = names.name('Dispute', disputeObject);
  const template = names.name('Template', templateObjectSchema);
  const webhookEndpoint = names.name('WebhookEndpoint', webhookEndpointSchema);
  const event = names.name('Event', eventObjectSchema);
  return {
    names,
    headers: {
      requestId: header(
        'Request-Id',
        "The request's id (the client's `Request-Id`/`X-Request-Id` when sane).",
      ),
      version: header('Service-Version', 'The API version the request was answered in.'),
      retryAfter: header('Retry-After', 'Seconds to wait before trying again.'),
    },
    versionParameter: version.ref,
    error: names.name('Error', errorObjectSchema),
    objects: {
      dispute,
      disputeList: names.name('DisputeList', listOf(dispute)),
      template,
      templateList: names.name('TemplateList', listOf(template)),
      deletedTemplate: names.name('DeletedTemplate', deletedTemplateSchema),
      webhookEndpoint,
      webhookEndpointList: names.name('WebhookEndpointList', listOf(webhookEndpoint)),
      deletedWebhookEndpoint: names.name('DeletedWebhookEndpoint', deletedWebhookEndpointSchema),
      event,
      eventList: names.name('EventList', listOf(event)),
      response: names.name('Response', responsePackageSchema),
      personalDataRequest: names.name('PersonalDataRequest', personalDataRequestSchema),
    } satisfies ResponseObjects,
    /** Request bodies by validator, so that PUT and POST /disputes/:id share one. */
    bodies: new Map<z.ZodType, z.ZodType>(),
  };
}

function routeConfig(
  route: { method: Method; path: string; operation: Operation; keyed: boolean },
  components: Components,
): RouteConfig {
  const { operation, keyed } = route;
  const names = [...route.path.matchAll(/:(\w+)/g)].map((match) => match[1] as string);
  const params = z.object(
    Object.fromEntries(names.map((name) => [name, operation.params?.[name] ?? z.string()])),
  );
  return {
    method: route.method,
    path: openApiPathOf(route.path),
    operationId: operation.operationId,
    summary: operation.summary,
    ...(operation.description !== undefined && { description: operation.description }),
    tags: [route.path.split('/')[2] ?? ''],
    ...(keyed ? { parameters: [components.versionParameter] } : { security: [] }),
    request: {
      ...(names.length > 0 && { params }),
      ...(operation.query && { query: queryObject(operation.query) }),
      ...(operation.body && { body: requestBody(operation, operation.body, components) }),
    },
    responses: {
      ...successResponses(operation, keyed, components),
      ...errorResponses([...(keyed ? keyedErrors : keylessErrors), ...operation.errors], components),
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
function requestBody(operation: Operation, body: z.ZodObject, components: Components) {
  let schema = components.bodies.get(body);
  if (!schema) {
    const id = operation.operationId.replace(/^./, (first) => first.toUpperCase());
    schema = components.names.name(`${id}Params`, body);
    components.bodies.set(body, schema);
  }
  const encoding = Object.fromEntries(
    Object.entries(body.shape).flatMap(([name, value]) => {
      const how = formEncoding(value);
      return how ? [[name, how] as const] : [];
    }),
  );
  return {
    content: {
      'application/x-www-form-urlencoded': { schema, ...(Object.keys(encoding).length > 0 && { encoding }) },
      'application/json': { schema },
    },
  };
}

/** How a form carries a value: a dictionary as `name[key]=value`, an array as one JSON-text value. */
function formEncoding(schema: z.core.$ZodType) {
  const inner = unwrap(schema);
  if (inner instanceof z.ZodArray) return { contentType: 'application/json' };
  if (inner instanceof z.ZodRecord) return { style: 'deepObject' as const, explode: true };
  return undefined;
}

/** The schema a value is validated by, past optional, nullable, default and preprocessing. */
function unwrap(schema: z.core.$ZodType): z.core.$ZodType {
  if (schema instanceof z.ZodOptional || schema instanceof z.ZodNullable || schema instanceof z.ZodDefault)
    return unwrap(schema.unwrap());
  if (schema instanceof z.ZodPipe)
    return unwrap(schema.in instanceof z.ZodTransform ? schema.out : schema.in);
  return schema;
}

function successResponses(
  operation: Operation,
  keyed: boolean,
  components: Components,
): Record<string, ResponseConfig> {
  const { returns } = operation;
  const content =
    returns instanceof z.ZodType
      ? { 'application/json': { schema: returns } }
      : { [returns.mediaType]: { schema: { description: returns.description } } };
  const headers = {
    'Request-Id': components.headers.requestId,
    ...(keyed && { 'Service-Version': components.headers.version }),
  };
  return Object.fromEntries(
    Object.entries(operation.success).map(([status, description]) => [
      status,
      { description, headers, content },
    ]),
  );
}

/** One response per status, naming the error types that answer with it. */
function errorResponses(answers: readonly ErrorAnswer[], components: Components) {
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
          ...(types.has('rate_limited') && { 'Retry-After': components.headers.retryAfter }),
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
    'Rebuttal fights payment chargebacks. This document is generated from the validators the API itself uses; README.md ("API reference") is the contract in prose.',
    'HTTPS only. Authenticate with HTTP Basic, the API key as user name and an empty password. Every answer is JSON with `object`, `livemode` and `url` (the request path). Bodies are JSON or form-encoded (at most 1 MiB; in a form a dictionary is `fields[key]=value`, an array one JSON-text value, a boolean `true` or `false`); query-string parameters also count on POST and PUT, the body winning a clash; unknown parameters are ignored. Request timestamps are ISO 8601 (no zone means UTC) or Unix seconds; amounts are integers in minor units.',
    `Versions: ${apiVersions.map((version) => `\`${version}\``).join(', ')}; this document describes the latest. Send \`Service-Version\` to pick one per request.`,
    "Rules the schemas cannot state (URL schemes, non-negative amounts, real calendar dates, one cursor at most, …) are checked by the API and answer `invalid_request` or the parameter's own error type.",
    `Error types and their statuses (\`template_not_found\` is 404 on the templates endpoints):\n\n| type | status |\n|---|---|\n${catalogue}`,
  ].join('\n\n');
}
