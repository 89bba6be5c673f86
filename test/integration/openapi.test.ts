import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp, endpoints } from '../../src/api/app.js';
import { defineEndpoint } from '../../src/api/endpoint.js';
import { openApiPath, openApiPathOf } from '../../src/api/openapi.js';
import { documentPath, fileLinkPath } from '../../src/documents/links.js';
import { errorStatus } from '../../src/domain/errors.js';
import { startTestApi, type TestApi } from '../helpers/api.js';
import { servedRoutes } from '../helpers/openapi.js';

/**
 * GET /v1/openapi.json: served without a key (over HTTPS only), and documenting exactly the routes the app
 * answers, so that a route added without documentation, or documentation left behind by a removed route,
 * fails here.
 */

type Json = Record<string, unknown>;
interface Operation extends Json {
  operationId: string;
  security?: unknown[];
  parameters?: Json[];
  requestBody?: { content: Record<string, { schema: Json }> };
  responses: Record<string, Json>;
}
interface Document extends Json {
  openapi: string;
  info: { title: string; version: string };
  paths: Record<string, Record<string, Operation>>;
  components: Record<string, Record<string, Json>>;
}

const methods = ['get', 'post', 'put', 'delete', 'patch'] as const;
/** Routes outside the `endpoints` array that are public and need no key. */
const keyless = [
  `get ${openApiPathOf(documentPath(':id'))}`,
  `get ${openApiPathOf(fileLinkPath(':id'))}`,
  `get ${openApiPath}`,
];

let api: TestApi;
let key: string;
let document: Document;

beforeAll(async () => {
  api = await startTestApi({ workers: [] });
  key = (await api.createOrg()).test_key;
  document = (await api.call<Document>('GET', openApiPath)).body;
});
afterAll(async () => {
  await api.close();
});

const upperFirst = (name: string) => name.replace(/^./, (first) => first.toUpperCase());

/** Every documented operation as `<method> <path>`. */
function operations(): { route: string; method: string; path: string; operation: Operation }[] {
  return Object.entries(document.paths).flatMap(([path, item]) =>
    Object.entries(item).map(([method, operation]) => ({
      route: `${method} ${path}`,
      method,
      path,
      operation,
    })),
  );
}

/** A documented path with its parameters filled in: ids that exist nowhere. */
const concrete = (path: string) => path.replace(/\{\w+\}/g, 'nothing_here');

/** The object a local `$ref` points at, or undefined. */
function resolve(ref: string): unknown {
  if (!ref.startsWith('#/')) return undefined;
  let at: unknown = document;
  for (const part of ref.slice(2).split('/')) {
    const key = part.replaceAll('~1', '/').replaceAll('~0', '~');
    if (typeof at !== 'object' || at === null || !Object.hasOwn(at, key)) return undefined;
    at = (at as Json)[key];
  }
  return at;
}

function refsIn(value: unknown, found: string[] = []): string[] {
  if (Array.isArray(value)) for (const item of value) refsIn(item, found);
  else if (typeof value === 'object' && value !== null) {
    for (const [name, inner] of Object.entries(value)) {
      if (name === '$ref' && typeof inner === 'string') found.push(inner);
      else refsIn(inner, found);
    }
  }
  return found;
}

function bodySchema(path: string, method: string, mediaType = 'application/json'): Json {
  const schema = document.paths[path]?.[method]?.requestBody?.content[mediaType]?.schema ?? {};
  return (typeof schema.$ref === 'string' ? resolve(schema.$ref) : schema) as Json;
}

describe('GET /v1/openapi.json', () => {
  it('answers 200 with JSON, without a key', async () => {
    const response = await api.call('GET', openApiPath);
    expect(response.status).toBe(200);
    expect(response.headers['content-type']).toMatch(/^application\/json/);
    expect(response.body).toMatchObject({ openapi: '3.1.0' });
  });

  it('is built once: every answer is the same text', async () => {
    const [first, second] = await Promise.all([api.call('GET', openApiPath), api.call('GET', openApiPath)]);
    expect(second?.text).toBe(first?.text);
  });

  it('is HTTPS only, like the rest of /v1', async () => {
    const response = await api.callPlain('GET', openApiPath);
    expect(response.status).toBe(403);
    expect(response.body).toMatchObject({ error: { type: 'insecure_connection' } });
  });

  it('only GET: 405', async () => {
    const response = await api.call('POST', openApiPath);
    expect(response.status).toBe(405);
    expect(response.headers.allow).toBe('GET');
  });
});

describe('the documented routes are the routes the app answers', () => {
  it('documents exactly the endpoints array and the routes that need no key', () => {
    const declared = endpoints.map(
      (endpoint) => `${endpoint.method} ${openApiPathOf(`/v1${endpoint.path}`)}`,
    );
    expect(new Set(declared).size).toBe(declared.length);
    expect(
      operations()
        .map((operation) => operation.route)
        .sort(),
    ).toEqual([...declared, ...keyless].sort());
  });

  it('documents every route the express app serves under /v1, however it was mounted', () => {
    // A route may be mounted in more than one layer (an upload's body reader before its handler): once here.
    const served = [
      ...new Set(
        servedRoutes(createApp(api.deps))
          .filter(({ path }) => path.startsWith('/v1/'))
          .map(({ method, path }) => `${method} ${openApiPathOf(path)}`),
      ),
    ];
    expect(served.length).toBeGreaterThan(endpoints.length);
    expect(served.sort()).toEqual(
      operations()
        .map((operation) => operation.route)
        .sort(),
    );
  });

  it('without a key, every operation that needs one answers 401 and the others do not', async () => {
    for (const { route, method, path, operation } of operations()) {
      const response = await api.call(method.toUpperCase(), concrete(path));
      if (keyless.includes(route)) {
        expect(operation.security, route).toEqual([]);
        expect(response.status, route).not.toBe(401);
      } else {
        expect(operation.security, route).toBeUndefined();
        expect(response.status, route).toBe(401);
        expect(response.body, route).toMatchObject({ error: { type: 'authentication' } });
      }
    }
  });

  it('with a key, every documented operation is routed: never not_found or method_not_allowed', async () => {
    for (const { route, method, path } of operations()) {
      const response = await api.call(method.toUpperCase(), concrete(path), {
        key,
        ...(method === 'post' || method === 'put' ? { json: {} } : {}),
      });
      expect(response.status, `${route}: ${response.text}`).not.toBe(405);
      expect((response.body.error as Json | undefined)?.type, `${route}: ${response.text}`).not.toBe(
        'not_found',
      );
    }
  });

  it('every method a documented path does not list answers 405', async () => {
    for (const [path, item] of Object.entries(document.paths)) {
      for (const method of methods.filter((method) => !(method in item))) {
        const response = await api.call(method.toUpperCase(), concrete(path), { key });
        expect(response.status, `${method} ${path}`).toBe(405);
        expect(response.body, `${method} ${path}`).toMatchObject({ error: { type: 'method_not_allowed' } });
      }
    }
  });

  it('an endpoint must declare exactly the parameters of its path', () => {
    const declare = (path: string) => () =>
      defineEndpoint({
        method: 'get',
        path,
        docs: { operationId: 'x', summary: 'x', success: { 200: 'x' }, returns: 'dispute', errors: [] },
        handle: async () => ({ status: 200, body: {} }),
      });
    expect(declare('/things/:id')).toThrow('get /things/:id: params must declare exactly: id');
    expect(declare('/things')()).toMatchObject({ method: 'get', path: '/things' });
  });

  it('paths the document does not have answer 404 not_found', async () => {
    for (const path of ['/v1/nothing', '/v1/disputes/a/b', '/v1/templates/a/submit', '/v1/openapi.yaml']) {
      const response = await api.call('GET', path, { key });
      expect(response.status, path).toBe(404);
      expect(response.body, path).toMatchObject({ error: { type: 'not_found' } });
    }
  });
});

describe('the document', () => {
  it('is a structurally sound OpenAPI 3.1 document', () => {
    expect(document.openapi).toBe('3.1.0');
    expect(document.info).toMatchObject({ title: expect.any(String), version: expect.any(String) });
    expect(document.components.securitySchemes).toMatchObject({ apiKey: { type: 'http', scheme: 'basic' } });
    const ids = operations().map(({ operation }) => operation.operationId);
    expect(new Set(ids).size).toBe(ids.length);
    for (const { route, path, operation } of operations()) {
      expect(Object.keys(operation.responses).length, route).toBeGreaterThan(0);
      expect(
        Object.keys(operation.responses).some((status) => /^2\d\d$/.test(status)),
        route,
      ).toBe(true);
      for (const response of Object.values(operation.responses))
        expect(response.description, route).toEqual(expect.any(String));
      const pathParameters = (operation.parameters ?? [])
        .filter((parameter) => parameter.in === 'path')
        .map((parameter) => parameter.name);
      const templated = [...path.matchAll(/\{(\w+)\}/g)].map((match) => match[1]);
      expect(pathParameters.sort(), route).toEqual(templated.sort());
    }
    const refs = refsIn(document);
    expect(refs.length).toBeGreaterThan(0);
    for (const ref of refs) expect(resolve(ref), ref).toBeDefined();
  });

  it("answers each endpoint's success statuses with the object it declares, and names every error it declares", () => {
    for (const { method, path, docs } of endpoints) {
      const documented = openApiPathOf(`/v1${path}`);
      const route = `${method} ${documented}`;
      const responses: Record<string, Json> = document.paths[documented]?.[method]?.responses ?? {};
      for (const status of Object.keys(docs.success)) {
        const content = responses[status]?.content;
        const { returns, alsoAs = [] } = docs;
        const described = (mediaType: string | readonly string[], description: string) =>
          [mediaType].flat().map((type) => [type, { schema: { description } }]);
        expect(content, `${route} ${status}`).toEqual(
          Object.fromEntries([
            ...(typeof returns === 'string'
              ? [['application/json', { schema: { $ref: `#/components/schemas/${upperFirst(returns)}` } }]]
              : described(returns.mediaType, returns.description)),
            ...alsoAs.flatMap(({ mediaType, description }) => described(mediaType, description)),
          ]),
        );
      }
      for (const answer of docs.errors) {
        const [type, status] = typeof answer === 'string' ? [answer, errorStatus[answer]] : answer;
        expect(responses[String(status)]?.description, `${route} ${type}`).toContain(`\`${type}\``);
      }
    }
  });

  it('describes every error answer with the error object, and names the version header', () => {
    for (const { route, operation } of operations()) {
      for (const [status, response] of Object.entries(operation.responses)) {
        if (Number(status) < 400) continue;
        const content = response.content as Record<string, { schema: Json }>;
        expect(content['application/json']?.schema, `${route} ${status}`).toEqual({
          $ref: '#/components/schemas/Error',
        });
      }
    }
    expect(document.paths['/v1/disputes']?.get?.parameters).toContainEqual({
      $ref: '#/components/parameters/ServiceVersion',
    });
    expect(document.components.parameters?.ServiceVersion).toMatchObject({
      name: 'Service-Version',
      in: 'header',
      schema: { enum: ['2016-03-05', '2017-10-30', '2020-02-28', '2021-09-15'] },
    });
  });

  it('takes bodies as JSON and as forms, from the same schema', () => {
    const content = document.paths['/v1/disputes/{id}']?.put?.requestBody?.content ?? {};
    expect(Object.keys(content).sort()).toEqual(['application/json', 'application/x-www-form-urlencoded']);
    expect(content['application/x-www-form-urlencoded']?.schema).toEqual(content['application/json']?.schema);
    expect(content['application/x-www-form-urlencoded']).toMatchObject({
      encoding: { fields: { style: 'deepObject' }, products: { contentType: 'application/json' } },
    });
  });

  it('lets every array a form sends as JSON text be JSON text in a JSON body too, as the API takes it', async () => {
    const arrays = operations().flatMap(({ route, operation }) => {
      const form = operation.requestBody?.content['application/x-www-form-urlencoded'] as
        | { schema: Json; encoding?: Record<string, { contentType?: string }> }
        | undefined;
      const schema = (form && resolve(String(form.schema.$ref))) as { properties: Record<string, Json> };
      return Object.entries(form?.encoding ?? {})
        .filter(([, how]) => how.contentType === 'application/json')
        .map(([name]) => ({ route, name, property: schema.properties[name] }));
    });
    expect(arrays.map(({ route, name }) => `${route} ${name}`)).toEqual(
      expect.arrayContaining(['put /v1/disputes/{id} products', 'post /v1/webhook_endpoints events']),
    );
    for (const { route, name, property } of arrays) {
      const [array, text] = (property?.anyOf ?? []) as Json[];
      expect([array?.type].flat(), `${route} ${name}`).toContain('array');
      expect(text, `${route} ${name}`).toMatchObject({
        type: 'string',
        contentMediaType: 'application/json',
      });
    }

    const dispute = await api.call<{ id: string }>('POST', '/v1/test/disputes', { key, json: {} });
    const products = [{ name: 'Blue widget', quantity: 1, amount: 4999 }];
    const response = await api.call('PUT', `/v1/disputes/${dispute.body.id}`, {
      key,
      json: { products: JSON.stringify(products) },
    });
    expect(response.status, response.text).toBe(200);
    expect(response.body.products).toEqual(products);
  });

  it("lists a template's id and a dispute's reason as required, with their types", () => {
    const template = bodySchema('/v1/templates', 'post');
    expect(template.required).toContain('id');
    expect(template.properties).toMatchObject({ id: { type: 'string', pattern: expect.any(String) } });
    expect(template.required).not.toContain('name');

    const dispute = bodySchema('/v1/disputes', 'post', 'application/x-www-form-urlencoded');
    expect(dispute.required).toEqual(
      expect.arrayContaining(['id', 'charge', 'reason', 'charged_at', 'disputed_at', 'due_by', 'currency']),
    );
    expect(dispute.properties).toMatchObject({
      reason: { type: 'string', enum: expect.arrayContaining(['fraudulent']) },
    });
  });

  it("documents a path id's pattern, and an id outside it is not found", async () => {
    const cases = [
      ['/v1/webhook_endpoints/{id}', '^we_[0-9a-z]{20}$', 'webhook_endpoint_not_found'],
      ['/v1/events/{id}', '^evt_[0-9a-z]{20}$', 'event_not_found'],
      ['/v1/disputes/{id}', expect.any(String), 'dispute_not_found'],
    ] as const;
    for (const [path, pattern, type] of cases) {
      const parameter = document.paths[path]?.get?.parameters?.find((item) => item.in === 'path');
      expect(parameter, path).toMatchObject({ name: 'id', schema: { type: 'string', pattern } });
      const response = await api.call('GET', path.replace('{id}', 'not%20an%20id'), { key });
      expect(response.status, path).toBe(404);
      expect(response.body, path).toMatchObject({ error: { type } });
    }
  });

  it('lists what the keyless operations answer: 400 to a malformed id or query, 413 to oversized headers', async () => {
    const padding = { 'x-padding': 'x'.repeat(20_000) };
    const deepQuery = `a${'[b]'.repeat(10)}=1`;
    const cases = [
      ['/v1/documents/{id}', '/v1/documents/%E0%A4%A?expires=1&signature=x', {}, 400, 'invalid_request'],
      [
        '/v1/documents/{id}',
        `/v1/documents/doc_x?expires=1&signature=x&${deepQuery}`,
        {},
        400,
        'invalid_request',
      ],
      ['/v1/documents/{id}', '/v1/documents/doc_x?expires=1&signature=x', padding, 413, 'request_too_large'],
      ['/v1/openapi.json', '/v1/openapi.json', padding, 413, 'request_too_large'],
    ] as const;
    for (const [documented, sent, headers, status, type] of cases) {
      const response = await api.call('GET', sent, { headers });
      expect(response.status, `${sent}: ${response.text.slice(0, 300)}`).toBe(status);
      expect(response.body, sent).toMatchObject({ error: { type } });
      const listed = document.paths[documented]?.get?.responses[String(status)];
      expect(listed?.description, `${documented} lists ${status}`).toContain(`\`${type}\``);
    }
  });

  it('describes the dispute object a retrieve answers', () => {
    const ok = document.paths['/v1/disputes/{id}']?.get?.responses['200']?.content as Json;
    expect(ok).toEqual({ 'application/json': { schema: { $ref: '#/components/schemas/Dispute' } } });
    const dispute = resolve('#/components/schemas/Dispute') as { required: string[]; properties: Json };
    expect(dispute.required).toEqual(expect.arrayContaining(['id', 'state', 'missing_fields', 'livemode']));
    expect(dispute.properties.due_by).toMatchObject({ type: ['string', 'null'] });
  });
});
