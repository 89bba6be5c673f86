import { Agent, request } from 'node:https';
import fc from 'fast-check';
import qs from 'qs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CreatedOrganisation } from '../../src/features/organisations/organisations.js';
import { startTestApi, type TestApi } from '../helpers/api.js';
import {
  type JsonSchema,
  makePathObjects,
  type OpenApiDocument,
  type Operation,
  operationsOf,
  type PathObjects,
  pathWith,
  plausible,
  readOpenApiDocument,
  requiredBase,
  resolve,
  typesOf,
} from '../helpers/openapi.js';
import { basicAuth, contractErrorStatus, snapshotTables, type TableSnapshot } from '../helpers/security.js';

/**
 * Requests generated from the OpenAPI document the running API serves, for every operation it lists (new
 * ones included): plausible and random valid-looking ones, malformed ones, ones naming another
 * organisation's objects, and ones without a key. Every answer must be a status the document lists for
 * the operation (429 `rate_limited` always allowed), never a 5xx, JSON unless the document gives that
 * status another media type, with `Request-Id`, and an error type docs/api.md names for that status. A
 * request that is wrong may not succeed, and a refused request changes no row of any table. Bounded: a
 * fixed seed and a few runs per operation.
 */

let api: TestApi;
let org: CreatedOrganisation;
let doc: OpenApiDocument;
let mine: PathObjects;
let theirs: PathObjects;
let latest: TableSnapshot;
const agent = new Agent({ keepAlive: true, rejectUnauthorized: false });

beforeAll(async () => {
  // No workers: nothing changes rows behind the requests' backs; a submit does not wait for a processor.
  api = await startTestApi({ workers: [], env: { SUBMIT_WAIT_MS: '0' } });
  org = await api.createOrg('Generated');
  const other = await api.createOrg('Other');
  mine = await makePathObjects(api, org.test_key, 'mine');
  theirs = await makePathObjects(api, other.test_key, 'theirs');
  doc = await readOpenApiDocument(api);
  latest = await snapshotTables(api.db.sql);
});
afterAll(async () => {
  agent.destroy();
  await api.close();
});

type Kind = 'valid' | 'malformed' | 'other tenant' | 'no key';

interface Generated {
  kind: Kind;
  /** What was made wrong, for the failure message. */
  wrong?: string;
  path: string;
  query: Record<string, unknown> | string;
  body?: { json: unknown } | { form: string } | { raw: string };
  key: boolean;
  /** A header that takes the request line and headers over 16 KiB. */
  padding?: boolean;
}

/** Values a schema allows, with the plausible one (docs/api.md's rules the schema cannot state) often. */
function valuesOf(name: string, schema: JsonSchema): fc.Arbitrary<unknown> {
  const resolved = resolve(doc, schema);
  const alternatives = resolved.anyOf ?? resolved.oneOf;
  const generated: fc.Arbitrary<unknown> = resolved.enum
    ? fc.constantFrom(...resolved.enum)
    : alternatives
      ? fc.oneof(...alternatives.map((alternative) => valuesOf(name, alternative)))
      : fc.oneof(
          ...typesOf(doc, resolved).map((type) => valuesOfType(name, type, resolved)),
          fc.constant('x'),
        );
  return fc.oneof(fc.constant(plausible(doc, name, resolved)), generated);
}

function valuesOfType(name: string, type: string, schema: JsonSchema): fc.Arbitrary<unknown> {
  switch (type) {
    case 'string':
      return stringsOf(schema);
    case 'integer':
    case 'number':
      return fc.integer({ min: Math.max(schema.minimum ?? -1000, -1000), max: 2_000_000_000 });
    case 'boolean':
      return fc.boolean();
    case 'null':
      return fc.constant(null);
    case 'array':
      return fc.array(valuesOf(name, schema.items ?? {}), {
        minLength: schema.minItems ?? 0,
        maxLength: Math.max(schema.minItems ?? 0, Math.min(schema.maxItems ?? 3, 3)),
      });
    case 'object':
      return objectsOf(schema);
    default:
      return fc.constant('x');
  }
}

/** Strings matching the schema's pattern where fast-check can read it (no lookahead), else short strings. */
function stringsOf(schema: JsonSchema): fc.Arbitrary<unknown> {
  const short = fc.string({ maxLength: Math.min(schema.maxLength ?? 40, 40) });
  if (!schema.pattern) return short;
  try {
    return fc.stringMatching(new RegExp(schema.pattern)).filter((text) => text.length <= 255);
  } catch {
    return short;
  }
}

function objectsOf(schema: JsonSchema, required = schema.required ?? []): fc.Arbitrary<unknown> {
  const extra = schema.additionalProperties;
  if (schema.properties) {
    const shape = Object.fromEntries(
      Object.entries(schema.properties).map(([name, inner]) => [name, valuesOf(name, inner)]),
    );
    return fc.record(shape, { requiredKeys: required });
  }
  if (typeof extra === 'object')
    return fc.dictionary(fc.stringMatching(/^[a-z_]{1,12}$/), valuesOf('value', extra), { maxKeys: 3 });
  return fc.constant({});
}

/**
 * Stands for an array nested 5,000 deep, which a JSON body carries as text: the value itself would overflow
 * this process's own JSON.stringify. In a form or query string it is a small dictionary, refused as well.
 */
const deepMarker = { deep: 5_000 };
const deepText = `${'['.repeat(5_000)}${']'.repeat(5_000)}`;

/** Values no parameter takes: no string, number, boolean, array of items or dictionary of scalars is one. */
const hostile = fc.constantFrom<unknown>(
  { nested: { a: 1 } },
  [[[[['deep']]]]],
  [{ a: [{ b: {} }] }],
  deepMarker,
);

/** A form body as the document says a form carries each value: arrays as JSON text, dictionaries bracketed. */
function formOf(operation: Operation, body: Record<string, unknown>): string {
  const sent = Object.entries(body).filter(([, value]) => value !== null && value !== undefined);
  return qs.stringify(
    Object.fromEntries(
      sent.map(([name, value]) => [
        name,
        operation.jsonTextInForms.includes(name) ? JSON.stringify(value) : value,
      ]),
    ),
  );
}

function encoded(
  operation: Operation,
  body: Record<string, unknown>,
  encoding: 'json' | 'form' | 'json text',
) {
  if (encoding === 'form') return { form: formOf(operation, body) };
  if (encoding === 'json') return { json: body };
  const asText = (name: string, value: unknown) =>
    operation.jsonTextInForms.includes(name) && Array.isArray(value) ? JSON.stringify(value) : value;
  return {
    json: Object.fromEntries(Object.entries(body).map(([name, value]) => [name, asText(name, value)])),
  };
}

function requestsFor(operation: Operation): fc.Arbitrary<Generated> {
  // Half the time only what is required, with plausible values (fresh ids): requests that should succeed.
  const required = fc.constant(undefined).map(() => requiredBase(doc, operation.body));
  const bodies = operation.body
    ? fc.oneof(
        required,
        fc
          .tuple(required, objectsOf(operation.body, []))
          .map(([base, body]) => ({ ...base, ...(body as Record<string, unknown>) })),
      )
    : fc.constant(undefined);
  const queries = fc.oneof(
    fc.constant({}),
    fc.record(
      Object.fromEntries(
        operation.query.map((parameter) => [
          parameter.name,
          valuesOf(parameter.name, parameter.schema ?? {}),
        ]),
      ),
      { requiredKeys: [] },
    ),
  );
  // JSON, a form, or JSON with its arrays as JSON text (which clients of the original interface send).
  const encodings = fc.constantFrom('json' as const, 'form' as const, 'json text' as const);
  const plain = fc
    .record({ body: bodies, query: queries, encoding: encodings })
    .map(({ body, query, encoding }) => ({
      path: pathWith(operation, mine),
      query: query as Record<string, unknown>,
      body: body && encoded(operation, body, encoding),
      key: operation.keyed,
    }));

  const kinds: fc.Arbitrary<Generated>[] = [plain.map((request) => ({ ...request, kind: 'valid' as const }))];
  const malformed: fc.Arbitrary<Generated>[] = [];
  const bodyNames = Object.keys(operation.body?.properties ?? {});
  if (bodyNames.length > 0) {
    malformed.push(
      fc.tuple(plain, fc.constantFrom(...bodyNames), hostile).map(([request, name, value]) => ({
        ...request,
        kind: 'malformed' as const,
        wrong: `body ${name}`,
        body: {
          json: {
            ...(request.body && 'json' in request.body ? (request.body.json as object) : {}),
            [name]: value,
          },
        },
      })),
    );
  }
  if (operation.keyed) {
    malformed.push(
      plain.map((request) => ({
        ...request,
        kind: 'malformed' as const,
        wrong: 'JSON',
        body: { raw: '{"a":' },
      })),
    );
  }
  if (operation.query.length > 0) {
    malformed.push(
      fc
        .tuple(plain, fc.constantFrom(...operation.query.map((parameter) => parameter.name)), hostile)
        .map(([request, name, value]) => ({
          ...request,
          kind: 'malformed' as const,
          wrong: `query ${name}`,
          query: { ...(request.query as object), [name]: value },
        })),
    );
  }
  if (operation.pathParams.length > 0) {
    const badIds = fc.constantFrom('not an id!', 'x'.repeat(300), 'we_SHOUTING', '..', 'a/b', '\u0000');
    malformed.push(
      fc.tuple(plain, badIds).map(([request, id]) => ({
        ...request,
        kind: 'malformed' as const,
        wrong: `path id ${JSON.stringify(id)}`,
        path: pathWith(operation, mine, id),
      })),
      // Not percent-encoding at all.
      plain.map((request) => ({
        ...request,
        kind: 'malformed' as const,
        wrong: 'path id %E0%A4%A',
        path: operation.path.replace(/\{\w+\}/g, '%E0%A4%A'),
      })),
    );
    if (operation.keyed)
      kinds.push(
        plain.map((request) => ({
          ...request,
          kind: 'other tenant' as const,
          path: pathWith(operation, theirs),
        })),
      );
  }
  malformed.push(
    plain.map((request) => ({
      ...request,
      kind: 'malformed' as const,
      wrong: 'headers over 16 KiB',
      padding: true,
    })),
  );
  kinds.push(fc.oneof(...malformed));
  if (operation.keyed)
    kinds.push(plain.map((request) => ({ ...request, kind: 'no key' as const, key: false })));
  return fc.oneof(...kinds);
}

interface Exchange {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
}

/** One request over HTTPS, whatever its answer's media type. */
function send(method: string, generated: Generated): Promise<Exchange> {
  const headers: Record<string, string> = {};
  let payload: Buffer | undefined;
  const { body } = generated;
  if (body && 'json' in body)
    payload = Buffer.from(JSON.stringify(body.json).replaceAll(JSON.stringify(deepMarker), deepText));
  if (body && 'raw' in body) payload = Buffer.from(body.raw);
  if (body && 'form' in body) payload = Buffer.from(body.form);
  if (payload) {
    headers['content-type'] =
      body && 'form' in body ? 'application/x-www-form-urlencoded' : 'application/json';
    headers['content-length'] = String(payload.length);
  }
  if (generated.key) headers.authorization = basicAuth(org.test_key);
  if (generated.padding) headers['x-padding'] = 'x'.repeat(20_000);
  const query = typeof generated.query === 'string' ? generated.query : qs.stringify(generated.query);
  const { port } = new URL(api.origin);
  return new Promise((done, fail) => {
    const req = request(
      {
        host: '127.0.0.1',
        port,
        method,
        path: query ? `${generated.path}?${query}` : generated.path,
        headers,
        agent,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () =>
          done({
            status: res.statusCode ?? 0,
            headers: res.headers,
            text: Buffer.concat(chunks).toString('utf8'),
          }),
        );
      },
    );
    req.on('error', fail);
    if (payload) req.write(payload);
    req.end();
  });
}

/** Refusals after which docs/api.md says what was sent stays saved ("Disputes", submit): not "nothing changed". */
const savedFirst = [
  'missing_template',
  'template_not_found',
  'missing_fields',
  'dispute_overdue',
  'processor_error',
];

async function check(operation: Operation, generated: Generated): Promise<void> {
  const answer = await send(operation.method, generated);
  const label = `${operation.method} ${operation.path} (${generated.kind}${generated.wrong ? `: ${generated.wrong}` : ''}) → ${answer.status} ${answer.text.slice(0, 200)}`;
  expect(answer.status, label).toBeLessThan(500);
  const listed = operation.responses[String(answer.status)];
  if (answer.status !== 429) expect(listed, `${label}: a status the document lists`).toBeDefined();
  expect(answer.headers['request-id'], label).toMatch(/^[A-Za-z0-9_.:-]{1,100}$/);
  const mediaType = String(answer.headers['content-type']).split(';')[0] ?? '';
  const binary = mediaType !== 'application/json' && Object.hasOwn(listed?.content ?? {}, mediaType);
  if (!binary) expect(mediaType, label).toBe('application/json');
  if (generated.kind !== 'valid') expect(answer.status, `${label}: refused`).toBeGreaterThanOrEqual(400);

  const after = await snapshotTables(api.db.sql);
  const before = latest;
  latest = after;
  if (answer.status < 400) return;
  const { error } = JSON.parse(answer.text) as { error: { type: string; status: number } };
  expect(error.status, label).toBe(answer.status);
  expect(
    contractErrorStatus[error.type],
    `${label}: a type docs/api.md names for ${answer.status}`,
  ).toContain(answer.status);
  if (listed)
    expect(listed.description, `${label}: the document names the type`).toContain(`\`${error.type}\``);
  const mayHaveSaved = savedFirst.includes(error.type) && operation.path.startsWith('/v1/disputes/{id}');
  if (!mayHaveSaved) expect(after, `${label}: nothing changed`).toEqual(before);
}

describe('requests generated from /v1/openapi.json', () => {
  it('every operation of the document answers as the document and docs/api.md say, and a refusal changes nothing', async () => {
    // Deletions last, so that the other operations find the objects they name.
    const operations = operationsOf(doc).sort(
      (a, b) => Number(a.method === 'DELETE') - Number(b.method === 'DELETE'),
    );
    expect(operations.length).toBeGreaterThanOrEqual(27);
    for (const operation of operations) {
      await fc.assert(
        fc.asyncProperty(requestsFor(operation), (generated) => check(operation, generated)),
        { seed: 20_160_305, numRuns: 12, endOnFailure: true },
      );
    }
  });
});
