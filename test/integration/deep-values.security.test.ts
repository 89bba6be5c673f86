import qs from 'qs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CreatedOrganisation } from '../../src/features/organisations/organisations.js';
import { type ApiResponse, startTestApi, type TestApi } from '../helpers/api.js';
import {
  makePathObjects,
  type OpenApiDocument,
  type Operation,
  operationsOf,
  type PathObjects,
  pathWith,
  readOpenApiDocument,
  requiredBase,
  typesOf,
} from '../helpers/openapi.js';
import { expectApiError, snapshotTables, type TableSnapshot, withTimeout } from '../helpers/security.js';

/**
 * Every body parameter of every operation of the OpenAPI document, sent as an array nested 5,000 deep
 * (in JSON, and as one JSON-text value in a form where the document says a form sends it so) beside
 * plausible values for the required ones: each answers 400 with the parameter's error type of
 * docs/api.md, "Errors", never a 500, and changes nothing. Building the error message once quoted the
 * whole value and overflowed the stack.
 */

let api: TestApi;
let org: CreatedOrganisation;
let doc: OpenApiDocument;
let objects: PathObjects;
let before: TableSnapshot;

beforeAll(async () => {
  api = await startTestApi({ workers: [] });
  org = await api.createOrg('Deep');
  objects = await makePathObjects(api, org.test_key, 'deep');
  doc = await readOpenApiDocument(api);
  before = await snapshotTables(api.db.sql);
});
afterAll(async () => {
  await api.close();
});

const depth = 5_000;
const deepArray = `${'['.repeat(depth)}${']'.repeat(depth)}`;

/** The error type of a problem under each parameter (docs/api.md, "Evidence"); else invalid_request. */
function typeFor(doc: OpenApiDocument, operation: Operation, name: string): string {
  const evidence: Record<string, string> = {
    products: 'invalid_products',
    correspondence: 'invalid_correspondence',
    past_payments: 'invalid_past_payments',
    evidence_files: 'invalid_evidence_files',
  };
  if (evidence[name]) return evidence[name];
  // A dispute's `fields` is the evidence dictionary (an object); a template's is a list of definitions.
  const schema = operation.body?.properties?.[name] ?? {};
  if (name === 'fields' && typesOf(doc, schema).includes('object')) return 'invalid_fields';
  return 'invalid_request';
}

/** `<label>: <status> <type>`, once the answer is checked to be the error body of docs/api.md, "Errors". */
function answered(label: string, response: ApiResponse, path: string): string {
  const { error } = response.body as { error?: { type?: string } };
  if (response.status < 500 && error?.type)
    expectApiError(response, { status: response.status, type: error.type, url: path });
  return `${label}: ${response.status} ${error?.type}`;
}

const bodyOperations = () =>
  operationsOf(doc).flatMap((operation) =>
    Object.keys(operation.body?.properties ?? {}).map((name) => ({ operation, name })),
  );

describe('a body parameter nested 5,000 deep', () => {
  it('is tried on the webhook endpoints, disputes and templates (the document lists them)', () => {
    const tried = new Set(bodyOperations().map(({ operation }) => operation.operationId));
    for (const id of ['createWebhookEndpoint', 'updateWebhookEndpoint', 'createDispute', 'createTemplate'])
      expect(tried).toContain(id);
  });

  it('answers 400 with its own error type in JSON, for every parameter of every operation', async () => {
    const answers: string[] = [];
    const expected: string[] = [];
    for (const { operation, name } of bodyOperations()) {
      const path = pathWith(operation, objects);
      const base = JSON.stringify({ ...requiredBase(doc, operation.body), [name]: 0 });
      const raw = base.replace(`"${name}":0`, `"${name}":${deepArray}`);
      const response = await withTimeout(
        api.call(operation.method, path, {
          key: org.test_key,
          raw,
          headers: { 'content-type': 'application/json' },
        }),
        15_000,
        `${operation.operationId} ${name}`,
      );
      answers.push(answered(`${operation.operationId} ${name}`, response, path));
      expected.push(`${operation.operationId} ${name}: 400 ${typeFor(doc, operation, name)}`);
    }
    expect(answers).toEqual(expected);
  });

  it('answers 400 with its own error type as one JSON-text value of a form', async () => {
    const answers: string[] = [];
    const expected: string[] = [];
    const sent = bodyOperations().filter(({ operation, name }) => operation.jsonTextInForms.includes(name));
    expect(sent.map(({ name }) => name)).toContain('events');
    for (const { operation, name } of sent) {
      const path = pathWith(operation, objects);
      const form = `${qs.stringify(requiredBase(doc, operation.body))}&${name}=${encodeURIComponent(deepArray)}`;
      const response = await withTimeout(
        api.call(operation.method, path, { key: org.test_key, form }),
        15_000,
        `${operation.operationId} ${name}`,
      );
      answers.push(answered(`${operation.operationId} ${name}`, response, path));
      expected.push(`${operation.operationId} ${name}: 400 ${typeFor(doc, operation, name)}`);
    }
    expect(answers).toEqual(expected);
  });

  it('changes nothing', async () => {
    expect(await snapshotTables(api.db.sql)).toEqual(before);
  });
});
