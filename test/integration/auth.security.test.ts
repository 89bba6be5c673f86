import { createHash, randomBytes } from 'node:crypto';
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createApp } from '../../src/api/app.js';
import { connectDatabase } from '../../src/db/client.js';
import { KeyResolver } from '../../src/features/organisations/authenticate.js';
import { rotateApiKey } from '../../src/features/organisations/organisations.js';
import { createLogger } from '../../src/logger.js';
import { startTestApi, type TestApi } from '../helpers/api.js';
import {
  basicAuth,
  expectApiError,
  type ListeningServer,
  rawCall,
  serve,
  snapshotTables,
} from '../helpers/security.js';

/** Authentication, key storage and rotation, transport security, and secrets in logs (docs/api.md, "Conventions"). */

let api: TestApi;
beforeAll(async () => {
  // No webhook relay beside the table snapshots: it would mark events relayed while they are taken.
  api = await startTestApi({ workers: ['submission'] });
});
afterAll(async () => {
  await api.close();
});

const b64 = (text: string) => Buffer.from(text).toString('base64');
const madeUpKey = (mode: 'test' | 'live') => `${mode}_${randomBytes(32).toString('base64url')}`;

/** One request per kind of endpoint: reads, writes with a body, and an unknown route. */
const endpoints: { method: string; path: string; json?: object }[] = [
  { method: 'GET', path: '/v1/disputes' },
  { method: 'GET', path: '/v1/disputes/dp_1' },
  { method: 'PUT', path: '/v1/disputes/dp_1', json: { reference_url: 'https://example.com/' } },
  { method: 'POST', path: '/v1/disputes/dp_1/submit', json: {} },
  { method: 'POST', path: '/v1/disputes/dp_1/accept' },
  { method: 'GET', path: '/v1/disputes/dp_1/response' },
  { method: 'POST', path: '/v1/disputes', json: { id: 'dp_2' } },
  { method: 'POST', path: '/v1/test/disputes', json: {} },
  { method: 'GET', path: '/v1/templates' },
  { method: 'POST', path: '/v1/templates', json: { id: 'tpl_1' } },
  { method: 'DELETE', path: '/v1/templates/tpl_1' },
  { method: 'GET', path: '/v1/no_such_route' },
];

describe('authentication (401 authentication)', () => {
  it.each(endpoints)(
    'refuses $method $path without an Authorization header',
    async ({ method, path, json }) => {
      const before = await snapshotTables(api.db.sql);
      const response = await api.call(method, path, json ? { json } : {});
      expectApiError(response, { status: 401, type: 'authentication', url: path });
      expect(response.headers['www-authenticate']).toMatch(/^Basic /);
      expect(await snapshotTables(api.db.sql)).toEqual(before);
    },
  );

  it.each(endpoints)('refuses $method $path with an unknown key', async ({ method, path, json }) => {
    for (const key of [madeUpKey('test'), madeUpKey('live'), 'sk_test_123', 'x']) {
      const response = await api.call(method, path, { key, ...(json && { json }) });
      expectApiError(response, { status: 401, type: 'authentication', url: path });
    }
  });

  it('accepts a valid key as Basic user with an empty password, in either scheme case', async () => {
    const { test_key } = await api.createOrg();
    for (const scheme of ['Basic', 'basic', 'BASIC']) {
      const response = await api.call('GET', '/v1/disputes', {
        headers: { authorization: `${scheme} ${b64(`${test_key}:`)}` },
      });
      expect(response.status, response.text).toBe(200);
    }
  });

  it('accepts any password beside the key, as clients of the original interface send one', async () => {
    const { test_key } = await api.createOrg();
    for (const password of ['secret', 'x', ' ', 'with:colons:in:it', test_key]) {
      const response = await api.call('GET', '/v1/disputes', {
        headers: { authorization: `Basic ${b64(`${test_key}:${password}`)}` },
      });
      expect(response.status, response.text).toBe(200);
      expect(response.body).toMatchObject({ object: 'list', livemode: false, url: '/v1/disputes' });
    }
    const unknown = await api.call('GET', '/v1/disputes', {
      headers: { authorization: `Basic ${b64(`${madeUpKey('test')}:secret`)}` },
    });
    expectApiError(unknown, { status: 401, type: 'authentication', url: '/v1/disputes' });
  });

  const malformed: [string, (key: string) => string][] = [
    ['a Bearer token', (key) => `Bearer ${key}`],
    ['the key itself as Basic credentials (not base64 of key:)', (key) => `Basic ${key}`],
    ['credentials that are not base64', () => 'Basic !!!not*base64!!!'],
    ['Basic with nothing after it', () => 'Basic'],
    ['Basic with a blank', () => 'Basic  '],
    ['an empty user', () => `Basic ${b64(':')}`],
    ['an empty user with the key as password', (key) => `Basic ${b64(`:${key}`)}`],
    ['a key with a leading blank', (key) => `Basic ${b64(` ${key}:`)}`],
    ['a key in upper case', (key) => `Basic ${b64(`${key.toUpperCase()}:`)}`],
    ['a key cut short', (key) => `Basic ${b64(`${key.slice(0, -1)}:`)}`],
    ['a key with a character more', (key) => `Basic ${b64(`${key}x:`)}`],
    ['credentials followed by more text', (key) => `${basicAuth(key)} extra`],
    ['the Digest scheme', (key) => `Digest username="${key}"`],
    ['the key alone, no scheme', (key) => key],
    ['a NUL byte after the key', (key) => `Basic ${b64(`${key}\u0000:`)}`],
  ];

  it.each(malformed)('refuses %s with 401 authentication', async (_, header) => {
    const { test_key } = await api.createOrg();
    const response = await api.call('GET', '/v1/disputes', { headers: { authorization: header(test_key) } });
    expectApiError(response, { status: 401, type: 'authentication', url: '/v1/disputes' });
  });
});

describe('key storage', () => {
  it('stores keys hashed: no column of any table holds a key or a recognisable part of it', async () => {
    const org = await api.createOrg();
    const rotated = (await rotateApiKey(api.db.db, { org: org.org, mode: 'test' }))?.key;
    expect(rotated).toMatch(/^test_/);
    const keys = [org.test_key, org.live_key, rotated as string];
    const snapshot = JSON.stringify(await snapshotTables(api.db.sql));
    for (const key of keys) {
      const secret = key.slice(key.indexOf('_') + 1);
      for (const form of [key, secret, secret.slice(0, 20), b64(key), b64(`${key}:`), basicAuth(key)]) {
        expect(snapshot.includes(form), `stored ${form}`).toBe(false);
      }
    }
    const rows = await api.db.sql<
      Record<string, unknown>[]
    >`select * from api_keys where org_id = ${org.org}`;
    expect(rows).toHaveLength(3);
    for (const row of rows) {
      for (const [column, value] of Object.entries(row)) {
        for (const key of keys) {
          expect(String(value).includes(key.slice(5, 25)), `api_keys.${column}`).toBe(false);
        }
      }
      expect(row.hash).toMatch(/^[0-9a-f]{64}$/);
    }
    const hashes = rows.map((row) => row.hash);
    for (const key of keys) expect(hashes).toContain(createHash('sha256').update(key).digest('hex'));
  });
});

describe('key cache', () => {
  // Every drizzle query, prepared or not, reaches Postgres through the client's `unsafe`: counting its
  // calls counts database round trips.
  it('answers a second request with the same key without querying the database', async () => {
    const { test_key } = await api.createOrg();
    const select = vi.spyOn(api.db.sql, 'unsafe');
    try {
      // An unknown route under /v1 authenticates and then queries nothing of its own.
      const first = await api.call('GET', '/v1/no_such_route', { key: test_key });
      expectApiError(first, { status: 404, type: 'not_found', url: '/v1/no_such_route' });
      expect(select).toHaveBeenCalledTimes(1);
      select.mockClear();
      const second = await api.call('GET', '/v1/no_such_route', { key: test_key });
      expectApiError(second, { status: 404, type: 'not_found', url: '/v1/no_such_route' });
      expect(select).not.toHaveBeenCalled();
    } finally {
      select.mockRestore();
    }
  });

  it('does not query the database for a string that cannot be a key', async () => {
    const select = vi.spyOn(api.db.sql, 'unsafe');
    try {
      for (const key of ['x', 'test_short', `test_${'a'.repeat(500)}`, "test_' or 1=1--"]) {
        const response = await api.call('GET', '/v1/disputes', { key });
        expectApiError(response, { status: 401, type: 'authentication', url: '/v1/disputes' });
      }
      expect(select).not.toHaveBeenCalled();
    } finally {
      select.mockRestore();
    }
  });

  it('resolves a key once per resolver and serves repeats from its cache', async () => {
    const { org, test_key } = await api.createOrg();
    const resolver = new KeyResolver(api.db, 60_000);
    const select = vi.spyOn(api.db.sql, 'unsafe');
    try {
      const first = await resolver.resolve(test_key);
      const second = await resolver.resolve(test_key);
      expect(first).toMatchObject({ orgId: org, livemode: false });
      expect(second).toEqual(first);
      expect(select).toHaveBeenCalledTimes(1);
    } finally {
      select.mockRestore();
    }
  });
});

describe('key rotation', () => {
  it.each(['test', 'live'] as const)(
    'a rotated %s key stops working at once although it was cached; the new key works; the other mode is untouched',
    async (mode) => {
      const org = await api.createOrg();
      const oldKey = mode === 'test' ? org.test_key : org.live_key;
      const otherKey = mode === 'test' ? org.live_key : org.test_key;
      for (let warm = 0; warm < 2; warm++) {
        expect((await api.call('GET', '/v1/disputes', { key: oldKey })).status).toBe(200);
      }
      const newKey = (await rotateApiKey(api.db.db, { org: org.org, mode }))?.key;
      expect(newKey).toMatch(new RegExp(`^${mode}_[A-Za-z0-9_-]{43}$`));

      const refused = await api.call('GET', '/v1/disputes', { key: oldKey });
      expectApiError(refused, { status: 401, type: 'authentication', url: '/v1/disputes' });
      const accepted = await api.call('GET', '/v1/disputes', { key: newKey as string });
      expect(accepted.status).toBe(200);
      expect(accepted.body.livemode).toBe(mode === 'live');
      expect((await api.call('GET', '/v1/disputes', { key: otherKey })).status).toBe(200);
    },
  );

  it('stays refused on every request after rotation, repeatedly (no window for a stale cache)', async () => {
    // The window between commit and the notification is short: many rounds make a stale answer show.
    for (let round = 0; round < 40; round++) {
      const org = await api.createOrg();
      expect((await api.call('GET', '/v1/templates', { key: org.test_key })).status).toBe(200);
      await rotateApiKey(api.db.db, { org: org.org, mode: 'test' });
      const refused = await api.call('GET', '/v1/templates', { key: org.test_key });
      expectApiError(refused, { status: 401, type: 'authentication', url: '/v1/templates' });
    }
  });

  it('is dropped by a resolver in another process (its own connection) through the invalidation channel', async () => {
    const org = await api.createOrg();
    const elsewhere = connectDatabase(api.db.url, { max: 2 });
    const listening = new KeyResolver(elsewhere, 60_000);
    // The control: a resolver that does not listen keeps its cached answer for the TTL, which shows the
    // listening one is dropped by the notification and not by chance.
    const deaf = new KeyResolver(elsewhere, 60_000);
    await listening.listen();
    try {
      expect(await listening.resolve(org.live_key)).toMatchObject({ orgId: org.org, livemode: true });
      expect(await deaf.resolve(org.live_key)).toMatchObject({ orgId: org.org, livemode: true });
      await rotateApiKey(api.db.db, { org: org.org, mode: 'live' });
      await vi.waitFor(async () => expect(await listening.resolve(org.live_key)).toBeNull(), {
        timeout: 2000,
        interval: 20,
      });
      expect(await deaf.resolve(org.live_key)).toMatchObject({ orgId: org.org });
      expect(await listening.resolve(org.test_key)).toMatchObject({ orgId: org.org, livemode: false });
    } finally {
      await listening.close();
      await elsewhere.close();
    }
  });
});

describe('HTTPS only (403 insecure_connection)', () => {
  it.each(endpoints)(
    'refuses $method $path over plain HTTP, with or without a key',
    async ({ method, path, json }) => {
      const { test_key } = await api.createOrg();
      const before = await snapshotTables(api.db.sql);
      for (const key of [test_key, undefined, 'bogus']) {
        const response = await api.callPlain(method, path, {
          ...(key !== undefined && { key }),
          ...(json && { json }),
        });
        expectApiError(response, { status: 403, type: 'insecure_connection', url: path });
      }
      expect(await snapshotTables(api.db.sql)).toEqual(before);
    },
  );

  it('does not count X-Forwarded-Proto without TRUST_PROXY', async () => {
    const { test_key } = await api.createOrg();
    const response = await api.callPlain('GET', '/v1/disputes', {
      key: test_key,
      headers: { 'x-forwarded-proto': 'https' },
    });
    expectApiError(response, { status: 403, type: 'insecure_connection', url: '/v1/disputes' });
  });

  describe('behind a TLS-terminating proxy', () => {
    let trusting: ListeningServer;
    let untrusting: ListeningServer;
    beforeAll(async () => {
      trusting = await serve(createApp({ ...api.deps, trustProxy: true }), { secure: false });
      untrusting = await serve(createApp({ ...api.deps, trustProxy: false }), { secure: false });
    });
    afterAll(async () => {
      await trusting.close();
      await untrusting.close();
    });

    it('with TRUST_PROXY, X-Forwarded-Proto: https counts as secure', async () => {
      const { test_key } = await api.createOrg();
      const response = await rawCall({
        secure: false,
        port: trusting.port,
        method: 'GET',
        path: '/v1/disputes',
        headers: { authorization: basicAuth(test_key), 'x-forwarded-proto': 'https' },
      });
      expect(response.status, response.text).toBe(200);
      expect(response.body).toMatchObject({ object: 'list', livemode: false, url: '/v1/disputes' });
    });

    it.each([
      ['no X-Forwarded-Proto', {}],
      ['X-Forwarded-Proto: http', { 'x-forwarded-proto': 'http' }],
      ['an unrelated forwarding header', { 'x-forwarded-ssl': 'on' }],
    ])('with TRUST_PROXY, a request with %s is refused', async (_, headers) => {
      const { test_key } = await api.createOrg();
      const response = await rawCall({
        secure: false,
        port: trusting.port,
        method: 'GET',
        path: '/v1/disputes',
        headers: { authorization: basicAuth(test_key), ...headers },
      });
      expectApiError(response, { status: 403, type: 'insecure_connection', url: '/v1/disputes' });
    });

    it('without TRUST_PROXY, X-Forwarded-Proto: https does not count', async () => {
      const { test_key } = await api.createOrg();
      const response = await rawCall({
        secure: false,
        port: untrusting.port,
        method: 'GET',
        path: '/v1/disputes',
        headers: { authorization: basicAuth(test_key), 'x-forwarded-proto': 'https' },
      });
      expectApiError(response, { status: 403, type: 'insecure_connection', url: '/v1/disputes' });
    });
  });
});

describe('logs', () => {
  let lines: string[];
  let server: ListeningServer;
  beforeAll(async () => {
    lines = [];
    const sink = new Writable({
      write(chunk: Buffer, _encoding, callback) {
        lines.push(...chunk.toString('utf8').split('\n').filter(Boolean));
        callback();
      },
    });
    server = await serve(createApp({ ...api.deps, logger: createLogger('debug', sink) }), { secure: true });
  });
  afterAll(async () => {
    await server.close();
  });

  it('never contain a key or its Authorization value, and every line carries the request id of its answer', async () => {
    const org = await api.createOrg();
    const unknown = madeUpKey('live');
    const requests: { method: string; path: string; key?: string; body?: string; headers?: object }[] = [
      { method: 'GET', path: '/v1/disputes', key: org.test_key },
      { method: 'GET', path: '/v1/disputes', key: org.live_key },
      { method: 'GET', path: `/v1/disputes?api_key=${org.test_key}`, key: org.test_key },
      { method: 'GET', path: '/v1/disputes/dp_none', key: org.test_key },
      { method: 'POST', path: '/v1/templates', key: org.test_key, body: '{"id": "tpl_log", "name": 1}' },
      { method: 'POST', path: '/v1/templates', key: org.test_key, body: '{not json' },
      { method: 'GET', path: '/v1/disputes', key: unknown },
      { method: 'GET', path: '/v1/disputes', key: `${org.test_key}:password-in-user` },
      {
        method: 'GET',
        path: '/v1/disputes',
        headers: { 'request-id': 'req_client_chosen_1' },
        key: org.test_key,
      },
      { method: 'GET', path: '/v1/disputes', headers: { 'request-id': '<script>alert(1)</script>' } },
      { method: 'DELETE', path: '/v1/disputes', key: org.test_key },
    ];
    const ids: string[] = [];
    for (const request of requests) {
      const response = await rawCall({
        secure: true,
        port: server.port,
        method: request.method,
        path: request.path,
        headers: {
          ...(request.key && { authorization: basicAuth(request.key) }),
          ...(request.body && { 'content-type': 'application/json' }),
          ...request.headers,
        },
        ...(request.body && { body: Buffer.from(request.body) }),
      });
      const id = response.headers['request-id'];
      expect(typeof id, `${request.method} ${request.path}`).toBe('string');
      ids.push(id as string);
    }
    expect(ids[8]).toBe('req_client_chosen_1');
    expect(ids[9]).toMatch(/^req_[0-9a-f]+$/);
    expect(new Set(ids).size).toBe(ids.length);

    await vi.waitFor(() => expect(lines.length).toBeGreaterThanOrEqual(requests.length));
    const log = lines.join('\n');
    for (const secret of [org.test_key, org.live_key, unknown]) {
      for (const form of [secret, secret.slice(5), b64(`${secret}:`), basicAuth(secret)]) {
        expect(log.includes(form), `log holds ${form}`).toBe(false);
      }
    }
    const logged = lines.map((line) => JSON.parse(line) as { request_id?: unknown });
    for (const entry of logged) expect(typeof entry.request_id, JSON.stringify(entry)).toBe('string');
    for (const id of ids)
      expect(
        logged.some((entry) => entry.request_id === id),
        `a line for ${id}`,
      ).toBe(true);
  });
});
