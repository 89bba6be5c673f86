import { expect } from 'vitest';
import type { createApp } from '../../src/api/app.js';
import type { TestApi } from './api.js';

/**
 * The OpenAPI document as a client reads it (`GET /v1/openapi.json`), and what tests generate requests
 * from: its operations, their parameters and bodies, and objects for their path ids.
 */

export type JsonSchema = {
  $ref?: string;
  type?: string | string[];
  enum?: unknown[];
  const?: unknown;
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
  allOf?: JsonSchema[];
  properties?: Record<string, JsonSchema>;
  required?: string[];
  additionalProperties?: boolean | JsonSchema;
  items?: JsonSchema;
  minItems?: number;
  maxItems?: number;
  minLength?: number;
  maxLength?: number;
  pattern?: string;
  format?: string;
  minimum?: number;
  maximum?: number;
  default?: unknown;
  description?: string;
};

interface MediaType {
  schema?: JsonSchema;
  encoding?: Record<string, { contentType?: string; style?: string }>;
}

export interface OpenApiResponse {
  description: string;
  headers?: Record<string, unknown>;
  content?: Record<string, MediaType>;
}

interface Parameter {
  name: string;
  in: 'path' | 'query' | 'header';
  required?: boolean;
  schema?: JsonSchema;
}

interface RawOperation {
  operationId: string;
  security?: unknown[];
  parameters?: (Parameter | { $ref: string })[];
  requestBody?: { content: Record<string, MediaType> };
  responses: Record<string, OpenApiResponse>;
}

export interface OpenApiDocument {
  openapi: string;
  paths: Record<string, Record<string, RawOperation>>;
  components: { schemas: Record<string, JsonSchema>; parameters?: Record<string, Parameter> };
}

/** One operation, its references resolved. */
export interface Operation {
  method: string;
  /** As the document spells it: `/v1/disputes/{id}`. */
  path: string;
  operationId: string;
  keyed: boolean;
  pathParams: Parameter[];
  query: Parameter[];
  /** The body's object schema, resolved; undefined when the operation takes no body. */
  body?: JsonSchema;
  /** Body properties a form sends as one JSON-text value (the document's `encoding`). */
  jsonTextInForms: string[];
  responses: Record<string, OpenApiResponse>;
}

export async function readOpenApiDocument(api: TestApi): Promise<OpenApiDocument> {
  const response = await api.call<OpenApiDocument>('GET', '/v1/openapi.json');
  expect(response.status, response.text).toBe(200);
  return response.body;
}

/** Follows `$ref`s (local ones, as the document has) until a schema that is not one. */
export function resolve(doc: OpenApiDocument, schema: JsonSchema): JsonSchema {
  if (!schema.$ref) return schema;
  const name = schema.$ref.replace('#/components/schemas/', '');
  const target = doc.components.schemas[name];
  if (!target) throw new Error(`unresolvable ${schema.$ref}`);
  return resolve(doc, target);
}

export function operationsOf(doc: OpenApiDocument): Operation[] {
  return Object.entries(doc.paths).flatMap(([path, methods]) =>
    Object.entries(methods).map(([method, raw]): Operation => {
      const parameters = (raw.parameters ?? []).map((parameter) =>
        '$ref' in parameter
          ? (doc.components.parameters?.[parameter.$ref.replace('#/components/parameters/', '')] as Parameter)
          : parameter,
      );
      const form = raw.requestBody?.content['application/x-www-form-urlencoded'];
      const json = raw.requestBody?.content['application/json'];
      return {
        method: method.toUpperCase(),
        path,
        operationId: raw.operationId,
        // Operations without a key say `security: []`; the rest inherit the document's.
        keyed: raw.security === undefined || raw.security.length > 0,
        pathParams: parameters.filter((parameter) => parameter.in === 'path'),
        query: parameters.filter((parameter) => parameter.in === 'query'),
        ...(json?.schema && { body: resolve(doc, json.schema) }),
        jsonTextInForms: Object.entries(form?.encoding ?? {})
          .filter(([, how]) => how.contentType === 'application/json')
          .map(([name]) => name),
        responses: raw.responses,
      };
    }),
  );
}

/** The types a schema allows, `anyOf` and type lists flattened. */
export function typesOf(doc: OpenApiDocument, schema: JsonSchema): string[] {
  const resolved = resolve(doc, schema);
  const alternatives = resolved.anyOf ?? resolved.oneOf;
  if (alternatives) return alternatives.flatMap((alternative) => typesOf(doc, alternative));
  if (resolved.enum)
    return [...new Set(resolved.enum.map((value) => (value === null ? 'null' : typeof value)))];
  if (Array.isArray(resolved.type)) return resolved.type;
  return resolved.type ? [resolved.type] : [];
}

/** Values that pass the checks the schemas cannot state, for parameters named so (docs/api.md). */
const plausibleByName: Record<string, () => unknown> = {
  url: () => 'https://example.com/hooks/rebuttal',
  reference_url: () => 'https://example.com/orders/1',
  email: () => 'ada@example.com',
  notification_email: () => 'privacy@example.com',
  name: () => 'Ada Lovelace',
  currency: () => 'usd',
  reversal_currency: () => 'usd',
};
let serial = 0;

/**
 * A value a parameter takes, from its name where the schema cannot say enough (a URL's scheme, an
 * email), else from its schema: the first of an enum, a fresh id for an id pattern, a timestamp for
 * `…_at`/`due_by`, a small number, `false`, the smallest array.
 */
export function plausible(doc: OpenApiDocument, name: string, schema: JsonSchema): unknown {
  const byName = plausibleByName[name];
  if (byName) return byName();
  const resolved = resolve(doc, schema);
  if (resolved.enum) return resolved.enum.find((value) => value !== null);
  const alternatives = resolved.anyOf ?? resolved.oneOf;
  if (alternatives) return plausible(doc, name, alternatives[0] as JsonSchema);
  if (/_at$|^due_by$/.test(name)) return 1_700_000_000;
  const types = typesOf(doc, resolved);
  if (types.includes('boolean')) return false;
  if (types.includes('integer') || types.includes('number')) return Math.max(resolved.minimum ?? 1, 1);
  if (types.includes('array')) {
    const item = resolved.items ? plausible(doc, name, resolved.items) : 'x';
    return Array.from({ length: resolved.minItems ?? 0 }, () => item);
  }
  if (types.includes('object')) return {};
  serial += 1;
  return `gen_${process.pid}_${serial}`;
}

/** Plausible values for the required properties of a body, which alone make a request get past them. */
export function requiredBase(doc: OpenApiDocument, body: JsonSchema | undefined): Record<string, unknown> {
  if (!body) return {};
  return Object.fromEntries(
    (body.required ?? []).map((name) => [name, plausible(doc, name, body.properties?.[name] ?? {})]),
  );
}

/** Objects of one organisation and mode that path ids can name, by the resource a path starts with. */
export type PathObjects = Record<string, string>;

/** A template, a test dispute, a webhook endpoint and its test event, made through the API with `key`. */
export async function makePathObjects(api: TestApi, key: string, tag: string): Promise<PathObjects> {
  const call = async (method: string, path: string, json: Record<string, unknown> = {}) => {
    const response = await api.call<{ id: string }>(method, path, { key, json });
    expect(response.status, `${method} ${path}: ${response.text}`).toBeLessThan(300);
    return response.body.id;
  };
  const templates = await call('POST', '/v1/templates', { id: `tpl_${tag}`, name: tag, body: 'x' });
  const disputes = await call('POST', '/v1/test/disputes', { id: `dp_${tag}` });
  const endpoints = await call('POST', '/v1/webhook_endpoints', { url: `https://example.com/${tag}` });
  const events = await call('POST', `/v1/webhook_endpoints/${endpoints}/test`);
  return { disputes, templates, webhook_endpoints: endpoints, events };
}

/** The operation's path with its ids: those of `objects` for the resource it names. */
export function pathWith(operation: Operation, objects: PathObjects, id?: string): string {
  const resource = operation.path.split('/')[2] ?? '';
  return operation.path.replace(/\{(\w+)\}/g, () =>
    encodeURIComponent(id ?? objects[resource] ?? 'doc_00000000000000000000'),
  );
}

interface RouterLayer {
  rawPath?: string;
  route?: { path: string; methods: Record<string, boolean> };
  handle: { stack?: RouterLayer[] };
}

/**
 * Every method and path the express app has a route for, read from its routers (express 5's layers: a
 * route's own path, a mounted router's `rawPath`); the catch-all 405 (`_all`) is not a method.
 */
export function servedRoutes(app: ReturnType<typeof createApp>): { method: string; path: string }[] {
  const walk = (stack: RouterLayer[], prefix: string): { method: string; path: string }[] =>
    stack.flatMap((layer) => {
      if (layer.route) {
        const { path, methods } = layer.route;
        return Object.keys(methods)
          .filter((method) => method !== '_all')
          .map((method) => ({ method, path: `${prefix}${path}` }));
      }
      return layer.handle.stack && typeof layer.rawPath === 'string'
        ? walk(layer.handle.stack, `${prefix}${layer.rawPath}`)
        : [];
    });
  return walk((app as unknown as { router: { stack: RouterLayer[] } }).router.stack, '');
}
