import { and, count, eq } from 'drizzle-orm';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { idempotencyKeys, templates } from '../../src/db/schema/index.js';
import { type ApiResponse, type CallOptions, startTestApi, type TestApi } from '../helpers/api.js';
import {
  expectError,
  type Json,
  newTenant,
  requiredParams,
  type Tenant,
  uniqueId,
} from '../helpers/disputes.js';
import { samplePng } from '../helpers/evidence-files.js';
import { boundary, multipart, multipartType } from '../helpers/files.js';
import { errorAnswer, expectReplayOf, keyedBy, storedDisputes } from '../helpers/idempotency.js';

/**
 * docs/api.md, "Idempotent requests": a write repeated under the same Idempotency-Key gets the first
 * answer again and changes nothing; another request under it, a bad key, and a repeat while the first
 * runs are refused; keys belong to one organisation and mode.
 */
let api: TestApi;
let tenant: Tenant;
beforeAll(async () => {
  api = await startTestApi({ workers: [] });
  tenant = await newTenant(api);
});
afterAll(async () => {
  await api.close();
});

const keyed = (key: string, options?: CallOptions) => keyedBy(tenant)(key, options);
const stored = (id: unknown, orgId = tenant.org, livemode = false) =>
  storedDisputes(api, orgId, String(id), livemode);

describe('a repeated write', () => {
  it('gets the first answer again, marked replayed, and creates nothing more', async () => {
    const params = requiredParams();
    const first = await api.call('POST', '/v1/disputes', keyed('create-1', { json: params }));
    expect(first.status, first.text).toBe(201);
    expect(first.headers['idempotent-replayed']).toBeUndefined();

    // The same parameters in another order, one of them in the query: the same request.
    const { charge, ...rest } = params;
    const reordered = Object.fromEntries(Object.entries(rest).reverse());
    const repeat = await api.call(
      'POST',
      '/v1/disputes',
      keyed('create-1', { json: reordered, query: { charge } }),
    );
    expectReplayOf(repeat, first);
    expect(repeat.headers['request-id']).not.toBe(first.headers['request-id']);
    expect(await stored(params.id)).toBe(1);
  });

  it('ten at once: one dispute is written; each of the others is the replay or 409 idempotency_in_progress', async () => {
    const params = requiredParams();
    const answers = await Promise.all(
      Array.from({ length: 10 }, () => api.call('POST', '/v1/disputes', keyed('race-1', { json: params }))),
    );
    const created = answers.filter((answer) => answer.status === 201);
    const running = answers.filter((answer) => answer.status === 409);
    expect(created.length + running.length, answers.map((answer) => answer.text).join('\n')).toBe(10);
    expect(created.filter((answer) => answer.headers['idempotent-replayed'] === undefined)).toHaveLength(1);
    for (const answer of created) expect(answer.text).toBe(created[0]?.text);
    for (const answer of running) {
      expect(answer.body).toEqual(
        errorAnswer(
          '/v1/disputes',
          409,
          'idempotency_in_progress',
          'A request with this Idempotency-Key is still running; try again shortly.',
        ),
      );
      expect(answer.headers['retry-after']).toBe('1');
    }
    expect(await stored(params.id)).toBe(1);
    const again = await api.call('POST', '/v1/disputes', keyed('race-1', { json: params }));
    expectReplayOf(again, created[0] as ApiResponse);
  });

  it('after a 4xx: the same 4xx again, even once the request would pass', async () => {
    const template = uniqueId('tpl_missing');
    const params = requiredParams({ template });
    const first = await api.call('POST', '/v1/disputes', keyed('refused-1', { json: params }));
    expectError(first, 400, 'template_not_found', { url: '/v1/disputes' });
    await api.call('POST', '/v1/templates', { key: tenant.key, json: { id: template } });

    const repeat = await api.call('POST', '/v1/disputes', keyed('refused-1', { json: params }));
    expectReplayOf(repeat, first);
    expect(await stored(params.id)).toBe(0);
  });

  it('under a new key, the same parameters are a new request', async () => {
    const params = { id: uniqueId('tpl'), name: 'Once' };
    const first = await api.call('POST', '/v1/templates', keyed('template-a', { json: params }));
    expect(first.status).toBe(201);
    const second = await api.call('POST', '/v1/templates', keyed('template-b', { json: params }));
    expectError(second, 400, 'invalid_request', { url: '/v1/templates' });
    expect(second.headers['idempotent-replayed']).toBeUndefined();
  });

  it('replays a delete, whose second run would answer 404', async () => {
    const id = uniqueId('tpl');
    await api.call('POST', '/v1/templates', { key: tenant.key, json: { id } });
    const first = await api.call('DELETE', `/v1/templates/${id}`, keyed('delete-1'));
    expect(first.status, first.text).toBe(200);
    expectReplayOf(await api.call('DELETE', `/v1/templates/${id}`, keyed('delete-1')), first);
    expect(await api.db.db.select().from(templates).where(eq(templates.id, id))).toEqual([]);
  });

  it('replays an upload sent again with another multipart boundary; other bytes are another request', async () => {
    const png = samplePng('Idempotent', 40, 30);
    const body = multipart([{ name: 'file', filename: 'receipt.png', body: png }]);
    const first = await api.call(
      'POST',
      '/v1/files',
      keyed('upload-1', { raw: body, headers: { 'content-type': multipartType } }),
    );
    expect(first.status, first.text).toBe(201);
    const other = 'another-boundary-0815';
    const rewritten = Buffer.from(body.toString('latin1').replaceAll(boundary, other), 'latin1');
    const repeat = await api.call(
      'POST',
      '/v1/files',
      keyed('upload-1', {
        raw: rewritten,
        headers: { 'content-type': `multipart/form-data; boundary=${other}` },
      }),
    );
    expectReplayOf(repeat, first);

    const changed = Buffer.from(png);
    changed[changed.length - 20] = (changed[changed.length - 20] ?? 0) ^ 1;
    const different = await api.call(
      'POST',
      '/v1/files',
      keyed('upload-1', {
        raw: multipart([{ name: 'file', filename: 'receipt.png', body: changed }]),
        headers: { 'content-type': multipartType },
      }),
    );
    expectError(different, 400, 'idempotency_error', { url: '/v1/files' });
  });
});

describe('a kept answer that carries a secret shown once', () => {
  it("is replayed whole, and kept sealed: the webhook endpoint's secret is not in the row", async () => {
    const json = { url: 'https://hooks.example.com/idempotent' };
    const first = await api.call('POST', '/v1/webhook_endpoints', keyed('endpoint-1', { json }));
    expect(first.status, first.text).toBe(201);
    const secret = String(first.body.secret);
    expect(secret).toMatch(/^whsec_/);
    const repeat = await api.call('POST', '/v1/webhook_endpoints', keyed('endpoint-1', { json }));
    expectReplayOf(repeat, first);
    expect(repeat.body.secret).toBe(secret);

    const [row] = await api.db.sql`select * from idempotency_keys where key = 'endpoint-1'`;
    expect(JSON.stringify(row)).not.toContain(secret);
    expect(JSON.stringify(row)).not.toContain(secret.slice(6));
    expect(row?.body).toMatch(/^v2\./);
    expect(row?.headers).toEqual({ 'content-type': 'application/json; charset=utf-8' });
  });
});

describe('another request under a key', () => {
  const refusal = (key: string, url: string) =>
    errorAnswer(
      url,
      400,
      'idempotency_error',
      `The Idempotency-Key '${key}' was used for a different request (another method, path or parameters) in the last 24 hours; use a new key for a new request.`,
    );
  let params: Json;
  beforeAll(async () => {
    params = requiredParams();
    const first = await api.call('POST', '/v1/disputes', keyed('reused-1', { json: params }));
    expect(first.status).toBe(201);
  });

  it.each([
    ['another value', '/v1/disputes', () => ({ ...params, amount: 2600 })],
    ['a number sent as text', '/v1/disputes', () => ({ ...params, amount: '2599' })],
    ['one parameter more', '/v1/disputes', () => ({ ...params, customer: 'cus_1' })],
    ['another path', '/v1/templates', () => params],
  ])('%s: 400 idempotency_error, and nothing changes', async (_case, path, json) => {
    const answer = await api.call('POST', path, keyed('reused-1', { json: json() }));
    expect(answer.body).toEqual(refusal('reused-1', path));
    expect(await stored(params.id)).toBe(1);
  });

  it('another method on the same path: 400 idempotency_error', async () => {
    const path = `/v1/disputes/${params.id}`;
    const first = await api.call('POST', path, keyed('method-1', { json: { fields: { note: 'a' } } }));
    expect(first.status, first.text).toBe(200);
    const other = await api.call('PUT', path, keyed('method-1', { json: { fields: { note: 'a' } } }));
    expect(other.body).toEqual(refusal('method-1', path));
  });
});

describe('the key', () => {
  it.each([
    ['empty', '', 'it must be 1 to 255 characters long, not 0'],
    ['256 characters', 'k'.repeat(256), 'it must be 1 to 255 characters long, not 256'],
    ['non-ASCII', 'clé-1', 'it may hold only printable ASCII characters (space to ~)'],
    ['a tab inside', 'tab\there', 'it may hold only printable ASCII characters (space to ~)'],
  ])(
    '%s: 400 invalid_request naming the header, before anything is read or written',
    async (_case, key, problem) => {
      const params = requiredParams();
      // The key's UTF-8 bytes as sent on the wire.
      const sent = Buffer.from(key, 'utf8').toString('latin1');
      const answer = await api.call('POST', '/v1/disputes', keyed(sent, { json: params }));
      expect(answer.body).toEqual(
        errorAnswer('/v1/disputes', 400, 'invalid_request', `Invalid Idempotency-Key header: ${problem}.`),
      );
      expect(await stored(params.id)).toBe(0);
    },
  );

  it('sent twice: 400 invalid_request', async () => {
    const answer = await api.call('POST', '/v1/templates', {
      key: tenant.key,
      json: { id: uniqueId('tpl') },
      headers: { 'idempotency-key': ['twice-a', 'twice-b'] as unknown as string },
    });
    expect(answer.body).toEqual(
      errorAnswer('/v1/templates', 400, 'invalid_request', 'Invalid Idempotency-Key header: send it once.'),
    );
  });

  it('255 printable characters, spaces and punctuation among them, is a key', async () => {
    const key = `a ~!"#$%&'()*+,-./:;<=>?@[\\]^_\`{|}${'z'.repeat(221)}`;
    expect(key).toHaveLength(255);
    const params = { id: uniqueId('tpl') };
    const first = await api.call('POST', '/v1/templates', keyed(key, { json: params }));
    expect(first.status).toBe(201);
    expectReplayOf(await api.call('POST', '/v1/templates', keyed(key, { json: params })), first);
  });

  it('over HTTP, any header value: 400 invalid_request exactly when what arrives is not 1-255 printable ASCII', async () => {
    // What an HTTP client can put in a header (tab, 0x20-0x7E, 0x80-0xFF as Latin-1 bytes); the server
    // receives it without leading and trailing spaces and tabs (RFC 9110, 5.5).
    const headerChar = fc.oneof(
      { weight: 8, arbitrary: fc.integer({ min: 0x20, max: 0x7e }) },
      { weight: 1, arbitrary: fc.constantFrom(0x09, 0x80, 0xa0, 0xe9, 0xff) },
    );
    const value = fc.oneof(
      fc.array(headerChar, { maxLength: 12 }),
      fc.array(fc.integer({ min: 0x21, max: 0x7e }), { minLength: 254, maxLength: 257 }),
    );
    await fc.assert(
      fc.asyncProperty(value, async (codes) => {
        const sent = String.fromCharCode(...codes);
        const received = sent.replace(/^[ \t]+|[ \t]+$/g, '');
        const answer = await api.call('POST', '/v1/disputes/dp_unknown_idem/accept', keyed(sent));
        const error = (answer.body as { error: { type: string; message: string } }).error;
        if (/^[\x20-\x7e]{1,255}$/.test(received)) {
          expect([answer.status, error.type]).toEqual([404, 'dispute_not_found']);
        } else {
          expect([answer.status, error.type]).toEqual([400, 'invalid_request']);
          expect(error.message).toMatch(/^Invalid Idempotency-Key header: /);
        }
      }),
      { numRuns: 60 },
    );
  });

  it('is ignored on a GET, even a bad one', async () => {
    const answer = await api.call('GET', '/v1/templates', keyed(''));
    expect(answer.status).toBe(200);
    const [row] = await api.db.db
      .select({ n: count() })
      .from(idempotencyKeys)
      .where(and(eq(idempotencyKeys.orgId, tenant.org), eq(idempotencyKeys.key, '')));
    expect(row?.n).toBe(0);
  });

  it("belongs to one organisation and mode: another's, or the other mode's, same key is a key of its own", async () => {
    const other = await newTenant(api);
    const params = requiredParams();
    const calls: [string, string, boolean][] = [
      [tenant.key, tenant.org, false],
      [other.key, other.org, false],
      [other.live_key, other.org, true],
    ];
    for (const [key, org, livemode] of calls) {
      const answer = await api.call('POST', '/v1/disputes', {
        key,
        json: params,
        headers: { 'idempotency-key': 'shared-key' },
      });
      expect(answer.status, answer.text).toBe(201);
      expect(answer.headers['idempotent-replayed']).toBeUndefined();
      expect(await stored(params.id, org, livemode)).toBe(1);
    }
  });
});

describe('the OpenAPI document', () => {
  it('names the header, its errors and the replay marker on every write, and on no read', async () => {
    type Operation = {
      parameters?: unknown[];
      responses: Record<string, { description: string; headers?: Json }>;
    };
    const document = (
      await api.call<{ paths: Record<string, Record<string, Operation>> }>('GET', '/v1/openapi.json')
    ).body;
    const header = { $ref: '#/components/parameters/IdempotencyKey' };
    for (const [path, item] of Object.entries(document.paths)) {
      for (const [method, operation] of Object.entries(item)) {
        const route = `${method} ${path}`;
        if (method === 'get') {
          expect(operation.parameters ?? [], route).not.toContainEqual(header);
          continue;
        }
        expect(operation.parameters, route).toContainEqual(header);
        expect(operation.responses['400']?.description, route).toContain('`idempotency_error`');
        expect(operation.responses['409']?.description, route).toBe('`idempotency_in_progress`');
        expect(Object.keys(operation.responses['409']?.headers ?? {}), route).toContain('Retry-After');
        for (const [status, response] of Object.entries(operation.responses)) {
          expect(Object.keys(response.headers ?? {}), `${route} ${status}`).toContain('Idempotent-Replayed');
        }
      }
    }
  });
});
