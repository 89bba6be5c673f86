import { Writable } from 'node:stream';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../src/api/app.js';
import { events, organisations, webhookDeliveries, webhookEndpoints } from '../../src/db/schema/index.js';
import { sealedAt } from '../../src/features/secrets/sealed-columns.js';
import { createLogger } from '../../src/logger.js';
import { type CallOptions, startTestApi, type TestApi } from '../helpers/api.js';
import {
  basicAuth,
  expectApiError,
  type ListeningServer,
  rawCall,
  serve,
  snapshotTables,
} from '../helpers/security.js';

/**
 * The webhook endpoints API and the event log (docs/api.md, "Webhooks"), without workers: what the API answers
 * and stores. Delivery is webhooks-delivery.test.ts's.
 */

let api: TestApi;
beforeAll(async () => {
  api = await startTestApi({ workers: [] });
});
afterAll(async () => {
  await api.close();
});

const timestamp = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}$/;
const endpointId = /^we_[0-9a-z]{20}$/;
const hook = 'https://hooks.example.com/rebuttal';

type Json = Record<string, unknown>;
type List = { object: string; data: Json[]; has_more: boolean; livemode: boolean; url: string };

async function createEndpoint(key: string, body: Json = { url: hook }) {
  const response = await api.call('POST', '/v1/webhook_endpoints', { key, json: body });
  expect(response.status, response.text).toBe(201);
  return response.body as Json & { id: string; secret: string };
}

/** A create call to an app of the test's own making (other settings, another logger). */
function createOn(server: ListeningServer, key: string, body: Json) {
  return rawCall({
    secure: true,
    port: server.port,
    method: 'POST',
    path: '/v1/webhook_endpoints',
    headers: { authorization: basicAuth(key), 'content-type': 'application/json' },
    body: Buffer.from(JSON.stringify(body)),
  });
}

describe('POST /v1/webhook_endpoints', () => {
  it('creates an endpoint: 201, every attribute, and the signing secret', async () => {
    const { test_key } = await api.createOrg();
    const response = await api.call('POST', '/v1/webhook_endpoints', { key: test_key, json: { url: hook } });
    expect(response.status).toBe(201);
    expect(String(response.headers['content-type'])).toBe('application/json; charset=utf-8');
    expect(response.body).toEqual({
      object: 'webhook_endpoint',
      id: expect.stringMatching(endpointId),
      secret: expect.stringMatching(/^whsec_[A-Za-z0-9+/]{32}$/),
      endpoint_url: hook,
      events: ['*'],
      api_version: '2021-09-15',
      enabled: true,
      disabled_reason: null,
      failing_since: null,
      created: expect.stringMatching(timestamp),
      updated: expect.stringMatching(timestamp),
      livemode: false,
      url: '/v1/webhook_endpoints',
    });
    // 24 random bytes, as the Standard Webhooks libraries expect.
    expect(Buffer.from(String(response.body.secret).slice(6), 'base64')).toHaveLength(24);
  });

  it('takes events and api_version, in a form body too', async () => {
    const { test_key } = await api.createOrg();
    const response = await api.call('POST', '/v1/webhook_endpoints', {
      key: test_key,
      form: { url: hook, events: ['dispute.created', 'dispute.closed'], api_version: '2016-03-05' },
    });
    expect(response.status, response.text).toBe(201);
    expect(response.body).toMatchObject({
      events: ['dispute.created', 'dispute.closed'],
      api_version: '2016-03-05',
    });
  });

  it("defaults api_version to the organisation's, whatever version the request itself uses", async () => {
    const { test_key, org } = await api.createOrg();
    await api.db.db.update(organisations).set({ apiVersion: '2017-10-30' }).where(eq(organisations.id, org));
    // The key cache holds the organisation's settings: a fresh organisation's key was never cached on a
    // version, but be explicit in case the lookup above ran first.
    api.deps.keys.invalidate(`org:${org}`);
    const response = await api.call('POST', '/v1/webhook_endpoints', {
      key: test_key,
      json: { url: hook },
      headers: { 'Service-Version': '2020-02-28' },
    });
    expect(response.body.api_version).toBe('2017-10-30');
  });

  it('creates with a live key in live mode', async () => {
    const { live_key } = await api.createOrg();
    const created = await createEndpoint(live_key);
    expect(created.livemode).toBe(true);
  });

  it('stores the secret sealed, never in clear', async () => {
    const { test_key } = await api.createOrg();
    const created = await createEndpoint(test_key);
    const [row] = await api.db.db.select().from(webhookEndpoints).where(eq(webhookEndpoints.id, created.id));
    expect(row?.secret).not.toContain(created.secret.slice(6));
    expect(api.engine.secrets.open(row?.secret ?? '', sealedAt('webhookSecret', created.id))).toBe(
      created.secret,
    );
  });

  const badCreates: [string, CallOptions, string][] = [
    ['a missing url', { json: { events: ['*'] } }, 'Missing required parameter: url.'],
    ['a url that is not a URL', { json: { url: 'not a url' } }, 'url'],
    ['a relative url', { json: { url: '/hooks' } }, 'url'],
    ['an ftp url', { json: { url: 'ftp://hooks.example.com/' } }, 'url'],
    ['a url that is a number', { json: { url: 42 } }, 'url'],
    ['a url of 2049 characters', { json: { url: `${hook}/${'a'.repeat(2049 - hook.length - 1)}` } }, 'url'],
    ['a url with a NUL character', { json: { url: `${hook}\u0000` } }, 'url'],
    ['an unknown event type', { json: { url: hook, events: ['dispute.exploded'] } }, 'dispute.exploded'],
    ['no event types', { json: { url: hook, events: [] } }, 'events'],
    ['events that is an object', { json: { url: hook, events: { a: 1 } } }, 'events'],
    ['events that is a number', { json: { url: hook, events: 7 } }, 'events'],
    ['51 event types', { json: { url: hook, events: Array(51).fill('test') } }, 'events'],
    ['an unknown api_version', { json: { url: hook, api_version: '2019-01-01' } }, 'api_version'],
    ['an api_version that is a number', { json: { url: hook, api_version: 20210915 } }, 'api_version'],
    [
      'malformed JSON',
      { raw: '{"url": "https://hooks.example.com/', headers: { 'content-type': 'application/json' } },
      'JSON',
    ],
  ];

  it.each(badCreates)('refuses %s with 400 invalid_request and changes nothing', async (_, options, says) => {
    const { test_key } = await api.createOrg();
    const before = await snapshotTables(api.db.sql);
    const response = await api.call('POST', '/v1/webhook_endpoints', { key: test_key, ...options });
    expectApiError(response, { status: 400, type: 'invalid_request', url: '/v1/webhook_endpoints' });
    expect((response.body as { error: { message: string } }).error.message).toContain(says);
    expect(await snapshotTables(api.db.sql)).toEqual(before);
  });

  it('refuses a body over 1 MiB with 413 request_too_large and changes nothing', async () => {
    const { test_key } = await api.createOrg();
    const before = await snapshotTables(api.db.sql);
    const response = await api.call('POST', '/v1/webhook_endpoints', {
      key: test_key,
      json: { url: hook, padding: 'x'.repeat(1024 * 1024) },
    });
    expectApiError(response, { status: 413, type: 'request_too_large', url: '/v1/webhook_endpoints' });
    expect(await snapshotTables(api.db.sql)).toEqual(before);
  });

  it('refuses plain http unless WEBHOOK_ALLOW_PRIVATE is set', async () => {
    const { test_key } = await api.createOrg();
    const strict = await serve(createApp({ ...api.deps, allowPrivateWebhooks: false }), { secure: true });
    try {
      const response = await createOn(strict, test_key, { url: 'http://hooks.example.com/' });
      expectApiError(response, { status: 400, type: 'invalid_request', url: '/v1/webhook_endpoints' });
      expect((response.body as { error: { message: string } }).error.message).toBe(
        'Invalid url: must be an absolute https URL.',
      );
    } finally {
      await strict.close();
    }
    // The test settings allow it (local receivers on loopback).
    expect((await createEndpoint(test_key, { url: 'http://127.0.0.1:9/hook' })).endpoint_url).toBe(
      'http://127.0.0.1:9/hook',
    );
  });
});

describe('the number of endpoints', () => {
  it('is at most WEBHOOK_ENDPOINTS_MAX per organisation and mode: one more answers 400 invalid_request and changes nothing', async () => {
    const max = api.config.WEBHOOK_ENDPOINTS_MAX;
    const { test_key, live_key } = await api.createOrg();
    const created = [];
    for (let index = 0; index < max; index++)
      created.push(await createEndpoint(test_key, { url: `${hook}/${index}` }));
    const before = await snapshotTables(api.db.sql);
    const refused = await api.call('POST', '/v1/webhook_endpoints', { key: test_key, json: { url: hook } });
    expectApiError(refused, { status: 400, type: 'invalid_request', url: '/v1/webhook_endpoints' });
    expect((refused.body as { error: { message: string } }).error.message).toBe(
      `An organisation may have at most ${max} webhook endpoints in test mode (WEBHOOK_ENDPOINTS_MAX); delete one before creating another.`,
    );
    expect(await snapshotTables(api.db.sql)).toEqual(before);

    // The other mode, and other organisations, count their own.
    expect((await createEndpoint(live_key)).livemode).toBe(true);
    expect((await createEndpoint((await api.createOrg()).test_key)).livemode).toBe(false);
    // A deleted endpoint makes room for one more.
    const deleted = await api.call('DELETE', `/v1/webhook_endpoints/${created[0]?.id}`, { key: test_key });
    expect(deleted.status).toBe(200);
    await createEndpoint(test_key);
  });

  it('holds when creates arrive at once', async () => {
    const max = api.config.WEBHOOK_ENDPOINTS_MAX;
    const { test_key } = await api.createOrg();
    const answers = await Promise.all(
      Array.from({ length: max + 4 }, (_, index) =>
        api.call('POST', '/v1/webhook_endpoints', { key: test_key, json: { url: `${hook}/${index}` } }),
      ),
    );
    expect(answers.filter((answer) => answer.status === 201)).toHaveLength(max);
    expect(answers.filter((answer) => answer.status === 400)).toHaveLength(4);
    const list = await api.call('GET', '/v1/webhook_endpoints', { key: test_key, query: { limit: 100 } });
    expect((list.body as List).data).toHaveLength(max);
  });
});

describe('the signing secret', () => {
  it('is never shown again: not by retrieve, list, update or delete', async () => {
    const { test_key } = await api.createOrg();
    const created = await createEndpoint(test_key);
    const answers = [
      await api.call('GET', `/v1/webhook_endpoints/${created.id}`, { key: test_key }),
      await api.call('GET', '/v1/webhook_endpoints', { key: test_key }),
      await api.call('PUT', `/v1/webhook_endpoints/${created.id}`, {
        key: test_key,
        json: { events: ['test'] },
      }),
      await api.call('POST', `/v1/webhook_endpoints/${created.id}/test`, { key: test_key }),
      await api.call('GET', '/v1/events', { key: test_key }),
      await api.call('DELETE', `/v1/webhook_endpoints/${created.id}`, { key: test_key }),
    ];
    for (const answer of answers) {
      expect(answer.status).toBeLessThan(300);
      expect(answer.text).not.toContain(created.secret);
      expect(answer.text).not.toContain('whsec_');
      expect(answer.text).not.toContain('"secret"');
    }
  });

  it('is never written to the log, even at debug level', async () => {
    const { test_key } = await api.createOrg();
    let logged = '';
    const sink = new Writable({
      write(chunk, _encoding, done) {
        logged += String(chunk);
        done();
      },
    });
    const server = await serve(createApp({ ...api.deps, logger: createLogger('debug', sink) }), {
      secure: true,
    });
    try {
      const response = await createOn(server, test_key, { url: hook });
      expect(response.status).toBe(201);
      const secret = String(response.body.secret);
      expect(logged.length).toBeGreaterThan(0);
      expect(logged).not.toContain(secret);
      expect(logged).not.toContain(secret.slice(6));
    } finally {
      await server.close();
    }
  });
});

describe('POST /v1/webhook_endpoints/:id/rotate_secret', () => {
  it('answers 200 with the endpoint and a new secret, shown this once; the old one stays sealed beside it for 24 hours', async () => {
    const { test_key } = await api.createOrg();
    const { secret: old, ...created } = await createEndpoint(test_key);
    const path = `/v1/webhook_endpoints/${created.id}/rotate_secret`;
    const before = Date.now();
    const response = await api.call('POST', path, { key: test_key });
    const after = Date.now();
    expect(response.status, response.text).toBe(200);
    expect(response.body).toEqual({
      ...created,
      secret: expect.stringMatching(/^whsec_[A-Za-z0-9+/]{32}$/),
      updated: expect.stringMatching(timestamp),
      url: path,
    });
    const secret = String(response.body.secret);
    expect(secret).not.toBe(old);

    // Both sealed, never in clear: the new one signs, the old one beside it until its overlap ends.
    const [row] = await api.db.db.select().from(webhookEndpoints).where(eq(webhookEndpoints.id, created.id));
    expect(row?.secret).not.toContain(secret.slice(6));
    expect(row?.previousSecret).not.toContain(old.slice(6));
    expect(api.engine.secrets.open(row?.secret ?? '', sealedAt('webhookSecret', created.id))).toBe(secret);
    expect(
      api.engine.secrets.open(row?.previousSecret ?? '', sealedAt('webhookPreviousSecret', created.id)),
    ).toBe(old);
    const overlap = 24 * 3_600_000;
    expect(row?.previousSecretExpiresAt?.getTime()).toBeGreaterThanOrEqual(before + overlap);
    expect(row?.previousSecretExpiresAt?.getTime()).toBeLessThanOrEqual(after + overlap);

    // Never shown again.
    for (const answer of [
      await api.call('GET', `/v1/webhook_endpoints/${created.id}`, { key: test_key }),
      await api.call('GET', '/v1/webhook_endpoints', { key: test_key }),
    ]) {
      expect(answer.status).toBe(200);
      expect(answer.text).not.toContain(secret);
      expect(answer.text).not.toContain('whsec_');
    }
  });

  it('answers an unknown endpoint with 404 webhook_endpoint_not_found', async () => {
    const { test_key } = await api.createOrg();
    const path = `/v1/webhook_endpoints/we_${'0'.repeat(20)}/rotate_secret`;
    expectApiError(await api.call('POST', path, { key: test_key }), {
      status: 404,
      type: 'webhook_endpoint_not_found',
      url: path,
    });
  });
});

describe('GET /v1/webhook_endpoints', () => {
  it('lists newest first with paging by limit, starting_after and ending_before', async () => {
    const { test_key, org } = await api.createOrg();
    for (let index = 0; index < 5; index++) await createEndpoint(test_key, { url: `${hook}/${index}` });
    const rows = await api.db.db
      .select({ id: webhookEndpoints.id, createdAt: webhookEndpoints.createdAt })
      .from(webhookEndpoints)
      .where(eq(webhookEndpoints.orgId, org));
    const newestFirst = rows
      .sort((a, b) => b.createdAt.getTime() - a.createdAt.getTime() || (a.id < b.id ? 1 : -1))
      .map((row) => row.id);
    const ids = (list: List) => list.data.map((endpoint) => endpoint.id);

    const all = await api.call<List>('GET', '/v1/webhook_endpoints', { key: test_key });
    expect(all.status).toBe(200);
    expect(all.body).toMatchObject({
      object: 'list',
      has_more: false,
      livemode: false,
      url: '/v1/webhook_endpoints',
    });
    expect(ids(all.body)).toEqual(newestFirst);
    expect(all.body.data[0]).toMatchObject({
      object: 'webhook_endpoint',
      url: `/v1/webhook_endpoints/${newestFirst[0]}`,
    });

    const first = await api.call<List>('GET', '/v1/webhook_endpoints', {
      key: test_key,
      query: { limit: 2 },
    });
    expect(ids(first.body)).toEqual(newestFirst.slice(0, 2));
    expect(first.body.has_more).toBe(true);
    const next = await api.call<List>('GET', '/v1/webhook_endpoints', {
      key: test_key,
      query: { limit: 2, starting_after: newestFirst[1] },
    });
    expect(ids(next.body)).toEqual(newestFirst.slice(2, 4));
    expect(next.body.has_more).toBe(true);
    const back = await api.call<List>('GET', '/v1/webhook_endpoints', {
      key: test_key,
      query: { limit: 2, ending_before: newestFirst[3] },
    });
    expect(ids(back.body)).toEqual(newestFirst.slice(1, 3));
    expect(back.body.has_more).toBe(true);
  });

  it.each([
    ['limit=0', 'limit=0'],
    ['limit=101', 'limit=101'],
    ['limit=abc', 'limit=abc'],
    ['both cursors', 'starting_after=we_1&ending_before=we_1'],
    ['an unknown cursor', 'starting_after=we_00000000000000000000'],
  ])('refuses %s with 400 invalid_request', async (_, query) => {
    const { test_key } = await api.createOrg();
    const response = await api.call('GET', '/v1/webhook_endpoints', { key: test_key, query });
    expectApiError(response, { status: 400, type: 'invalid_request', url: '/v1/webhook_endpoints' });
  });
});

describe('GET, PUT, DELETE /v1/webhook_endpoints/:id', () => {
  it('retrieves an endpoint with its own url', async () => {
    const { test_key } = await api.createOrg();
    const { secret: _secret, ...created } = await createEndpoint(test_key);
    const response = await api.call('GET', `/v1/webhook_endpoints/${created.id}`, { key: test_key });
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ ...created, url: `/v1/webhook_endpoints/${created.id}` });
  });

  it('changes only what is sent', async () => {
    const { test_key } = await api.createOrg();
    const created = await createEndpoint(test_key);
    const path = `/v1/webhook_endpoints/${created.id}`;
    const moved = await api.call('PUT', path, { key: test_key, json: { url: `${hook}/v2` } });
    expect(moved.status).toBe(200);
    expect(moved.body).toMatchObject({
      endpoint_url: `${hook}/v2`,
      events: ['*'],
      api_version: '2021-09-15',
    });
    const narrowed = await api.call('PUT', path, {
      key: test_key,
      form: { events: '["dispute.closed"]', api_version: '2020-02-28' },
    });
    expect(narrowed.body).toMatchObject({
      endpoint_url: `${hook}/v2`,
      events: ['dispute.closed'],
      api_version: '2020-02-28',
      enabled: true,
      url: path,
    });
    const disabled = await api.call('PUT', path, { key: test_key, json: { enabled: false } });
    expect(disabled.body).toMatchObject({ enabled: false, disabled_reason: null });
    expect(disabled.body.updated).toMatch(timestamp);
  });

  it('clears the disabled reason and the run of failures when re-enabled', async () => {
    const { test_key } = await api.createOrg();
    const created = await createEndpoint(test_key);
    await api.db.db
      .update(webhookEndpoints)
      .set({ enabled: false, disabledReason: 'disabled after 3 days', failingSince: new Date(0) })
      .where(eq(webhookEndpoints.id, created.id));
    const path = `/v1/webhook_endpoints/${created.id}`;
    const before = await api.call('GET', path, { key: test_key });
    expect(before.body).toMatchObject({ enabled: false, disabled_reason: 'disabled after 3 days' });
    expect(before.body.failing_since).toBe('1970-01-01T00:00:00');
    const response = await api.call('PUT', path, { key: test_key, json: { enabled: true } });
    expect(response.body).toMatchObject({ enabled: true, disabled_reason: null, failing_since: null });
  });

  it('keeps the run of failures of an endpoint that stayed enabled', async () => {
    const { test_key } = await api.createOrg();
    const created = await createEndpoint(test_key);
    await api.db.db
      .update(webhookEndpoints)
      .set({ failingSince: new Date(0) })
      .where(eq(webhookEndpoints.id, created.id));
    const response = await api.call('PUT', `/v1/webhook_endpoints/${created.id}`, {
      key: test_key,
      json: { enabled: true },
    });
    expect(response.body.failing_since).toBe('1970-01-01T00:00:00');
  });

  it.each([
    ['an https-less url', { url: 'ftp://x' }],
    ['an unknown event type', { events: ['nope'] }],
    ['an unknown api_version', { api_version: '2000-01-01' }],
    ['enabled that is not a boolean', { enabled: 'yes' }],
  ])('refuses %s with 400 invalid_request and changes nothing', async (_, body) => {
    const { test_key } = await api.createOrg();
    const created = await createEndpoint(test_key);
    const path = `/v1/webhook_endpoints/${created.id}`;
    const before = await snapshotTables(api.db.sql);
    const response = await api.call('PUT', path, { key: test_key, json: body });
    expectApiError(response, { status: 400, type: 'invalid_request', url: path });
    expect(await snapshotTables(api.db.sql)).toEqual(before);
  });

  it('deletes an endpoint: 200 with deleted true; then it is not found, its deliveries gone, its events kept', async () => {
    const { test_key } = await api.createOrg();
    const created = await createEndpoint(test_key);
    const path = `/v1/webhook_endpoints/${created.id}`;
    const test = await api.call('POST', `${path}/test`, { key: test_key });
    const response = await api.call('DELETE', path, { key: test_key });
    expect(response.status).toBe(200);
    expect(response.body).toEqual({
      object: 'webhook_endpoint',
      id: created.id,
      deleted: true,
      livemode: false,
      url: path,
    });
    expectApiError(await api.call('GET', path, { key: test_key }), {
      status: 404,
      type: 'webhook_endpoint_not_found',
      url: path,
    });
    expectApiError(await api.call('DELETE', path, { key: test_key }), {
      status: 404,
      type: 'webhook_endpoint_not_found',
      url: path,
    });
    expect(
      await api.db.db.select().from(webhookDeliveries).where(eq(webhookDeliveries.endpointId, created.id)),
    ).toEqual([]);
    const event = await api.call('GET', `/v1/events/${test.body.id}`, { key: test_key });
    expect(event.body).toMatchObject({ id: test.body.id, type: 'test', deliveries: [] });
  });

  it.each(['we_00000000000000000000', 'we_short', 'has%20space', 'x'.repeat(300), '%27%20or%201%3D1--'])(
    'answers an unknown id (%s) with 404 webhook_endpoint_not_found',
    async (id) => {
      const { test_key } = await api.createOrg();
      const path = `/v1/webhook_endpoints/${id}`;
      for (const [method, suffix] of [
        ['GET', ''],
        ['PUT', ''],
        ['DELETE', ''],
        ['POST', '/test'],
      ] as const) {
        const response = await api.call(method, `${path}${suffix}`, {
          key: test_key,
          ...(method === 'PUT' && { json: { enabled: true } }),
        });
        expectApiError(response, {
          status: 404,
          type: 'webhook_endpoint_not_found',
          url: `${path}${suffix}`,
        });
      }
    },
  );

  it('answers other methods with 405 and Allow', async () => {
    const { test_key } = await api.createOrg();
    const created = await createEndpoint(test_key);
    const path = `/v1/webhook_endpoints/${created.id}`;
    const response = await api.call('PATCH', path, { key: test_key, json: {} });
    expectApiError(response, { status: 405, type: 'method_not_allowed', url: path });
    expect(response.headers.allow).toBe('GET, PUT, DELETE');
    const test = await api.call('GET', `${path}/test`, { key: test_key });
    expectApiError(test, { status: 405, type: 'method_not_allowed', url: `${path}/test` });
  });
});

describe('POST /v1/webhook_endpoints/:id/test', () => {
  it('answers 202 with the test event and its one pending delivery to this endpoint', async () => {
    const { test_key } = await api.createOrg();
    const created = await createEndpoint(test_key);
    await createEndpoint(test_key, { url: `${hook}/other` });
    const path = `/v1/webhook_endpoints/${created.id}/test`;
    const response = await api.call('POST', path, { key: test_key });
    expect(response.status).toBe(202);
    expect(response.body).toEqual({
      object: 'event',
      id: expect.stringMatching(/^evt_[0-9a-z]{20}$/),
      type: 'test',
      dispute: null,
      alert: null,
      created: expect.stringMatching(timestamp),
      deliveries: [
        {
          id: expect.stringMatching(/^wh_[0-9a-z]{20}$/),
          endpoint: created.id,
          status: 'pending',
          attempts: 0,
          last_status: null,
          last_error: null,
          next_attempt_at: expect.stringMatching(timestamp),
          completed_at: null,
        },
      ],
      livemode: false,
      url: path,
    });
  });
});

describe('the event log', () => {
  it('lists events newest first, with their deliveries, filtered by type, paged', async () => {
    const { test_key } = await api.createOrg();
    const endpoint = await createEndpoint(test_key);
    const dispute = await api.call('POST', '/v1/test/disputes', { key: test_key, json: {} });
    const test = await api.call('POST', `/v1/webhook_endpoints/${endpoint.id}/test`, { key: test_key });
    const list = await api.call<List>('GET', '/v1/events', { key: test_key });
    expect(list.status).toBe(200);
    expect(list.body).toMatchObject({ object: 'list', has_more: false, livemode: false, url: '/v1/events' });
    expect(list.body.data.map((event) => [event.type, event.dispute])).toEqual([
      ['test', null],
      ['dispute.created', dispute.body.id],
    ]);
    expect(list.body.data[0]).toEqual({ ...test.body, url: `/v1/events/${test.body.id}` });

    const created = await api.call<List>('GET', '/v1/events', {
      key: test_key,
      query: { type: 'dispute.created' },
    });
    expect(created.body.data.map((event) => event.type)).toEqual(['dispute.created']);
    const page = await api.call<List>('GET', '/v1/events', { key: test_key, query: { limit: 1 } });
    expect(page.body).toMatchObject({ has_more: true, data: [{ id: test.body.id }] });
    const older = await api.call<List>('GET', '/v1/events', {
      key: test_key,
      query: { limit: 1, starting_after: test.body.id },
    });
    expect(older.body).toMatchObject({ has_more: false, data: [{ type: 'dispute.created' }] });
  });

  it('retrieves one event with its own url', async () => {
    const { test_key } = await api.createOrg();
    const endpoint = await createEndpoint(test_key);
    const test = await api.call('POST', `/v1/webhook_endpoints/${endpoint.id}/test`, { key: test_key });
    const path = `/v1/events/${test.body.id}`;
    const response = await api.call('GET', path, { key: test_key });
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ ...test.body, url: path });
  });

  it.each([
    ['an unknown type', 'type=dispute.exploded'],
    ['limit=0', 'limit=0'],
    ['an unknown cursor', 'ending_before=evt_00000000000000000000'],
  ])('refuses %s with 400 invalid_request', async (_, query) => {
    const { test_key } = await api.createOrg();
    const response = await api.call('GET', '/v1/events', { key: test_key, query });
    expectApiError(response, { status: 400, type: 'invalid_request', url: '/v1/events' });
  });

  it.each(['evt_00000000000000000000', 'evt_x', 'x'.repeat(300), '%27%20or%201%3D1--'])(
    'answers an unknown event id (%s) with 404 event_not_found',
    async (id) => {
      const { test_key } = await api.createOrg();
      for (const [method, suffix] of [
        ['GET', ''],
        ['POST', '/redeliver'],
      ] as const) {
        const path = `/v1/events/${id}${suffix}`;
        const response = await api.call(method, path, { key: test_key });
        expectApiError(response, { status: 404, type: 'event_not_found', url: path });
      }
    },
  );

  it('redelivery answers 202 and restarts the deliveries as pending, keeping their attempt counts', async () => {
    const { test_key } = await api.createOrg();
    const endpoint = await createEndpoint(test_key);
    const test = await api.call('POST', `/v1/webhook_endpoints/${endpoint.id}/test`, { key: test_key });
    const deliveryId = (test.body.deliveries as Json[])[0]?.id as string;
    await api.db.db
      .update(webhookDeliveries)
      .set({ status: 'failed', attempts: 7, lastStatus: 500, completedAt: new Date() })
      .where(eq(webhookDeliveries.id, deliveryId));
    await api.db.db
      .update(events)
      .set({ relayedAt: new Date() })
      .where(eq(events.id, test.body.id as string));
    const path = `/v1/events/${test.body.id}/redeliver`;
    const response = await api.call('POST', path, { key: test_key });
    expect(response.status).toBe(202);
    expect(response.body).toMatchObject({
      object: 'event',
      id: test.body.id,
      deliveries: [{ id: deliveryId, status: 'pending', attempts: 7, last_status: 500, completed_at: null }],
      url: path,
    });
    const [event] = await api.db.db
      .select()
      .from(events)
      .where(eq(events.id, test.body.id as string));
    expect(event?.relayedAt).toBeNull();
  });
});

describe('tenant isolation', () => {
  it("answers another organisation's or mode's endpoints and events with 404, and lists only one's own", async () => {
    const owner = await api.createOrg();
    const stranger = await api.createOrg();
    const endpoint = await createEndpoint(owner.test_key);
    const test = await api.call('POST', `/v1/webhook_endpoints/${endpoint.id}/test`, { key: owner.test_key });
    const before = await snapshotTables(api.db.sql);
    for (const key of [stranger.test_key, stranger.live_key, owner.live_key]) {
      const endpointPath = `/v1/webhook_endpoints/${endpoint.id}`;
      for (const [method, path, json] of [
        ['GET', endpointPath, undefined],
        ['PUT', endpointPath, { enabled: false, url: 'https://evil.example.com/' }],
        ['DELETE', endpointPath, undefined],
        ['POST', `${endpointPath}/test`, undefined],
        ['POST', `${endpointPath}/rotate_secret`, undefined],
      ] as const) {
        const response = await api.call(method, path, { key, ...(json && { json }) });
        expectApiError(response, {
          status: 404,
          type: 'webhook_endpoint_not_found',
          url: path,
          livemode: key.startsWith('live_'),
        });
      }
      for (const [method, path] of [
        ['GET', `/v1/events/${test.body.id}`],
        ['POST', `/v1/events/${test.body.id}/redeliver`],
      ] as const) {
        const response = await api.call(method, path, { key });
        expectApiError(response, {
          status: 404,
          type: 'event_not_found',
          url: path,
          livemode: key.startsWith('live_'),
        });
      }
      const endpoints = await api.call<List>('GET', '/v1/webhook_endpoints', { key });
      expect(endpoints.body.data).toEqual([]);
      const log = await api.call<List>('GET', '/v1/events', { key });
      expect(log.body.data).toEqual([]);
      const cursor = await api.call('GET', '/v1/webhook_endpoints', {
        key,
        query: { starting_after: endpoint.id },
      });
      expect(cursor.status).toBe(400);
    }
    expect(await snapshotTables(api.db.sql)).toEqual(before);
  });

  it('answers without a key with 401', async () => {
    for (const [method, path] of [
      ['GET', '/v1/webhook_endpoints'],
      ['POST', '/v1/webhook_endpoints'],
      ['GET', '/v1/events'],
    ] as const) {
      expectApiError(await api.call(method, path, {}), { status: 401, type: 'authentication', url: path });
    }
  });
});
