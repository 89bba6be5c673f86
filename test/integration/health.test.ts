import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../src/api/app.js';
import { connectDatabase } from '../../src/db/client.js';
import { readinessOf } from '../../src/readiness.js';
import { connectRedis } from '../../src/redis.js';
import { redisAt } from '../../src/redis-connection.js';
import { startTestApi, type TestApi } from '../helpers/api.js';
import { type ListeningServer, rawCall, serve } from '../helpers/security.js';

/** GET /healthz and GET /readyz: no key, plain HTTP too, and 503 JSON when a dependency is away. */

let api: TestApi;
const servers: ListeningServer[] = [];
const logger = pino({ level: 'silent' });

beforeAll(async () => {
  api = await startTestApi({ workers: [] });
});
afterAll(async () => {
  for (const server of servers) await server.close();
  await api.close();
});

/** The app with its readiness checking other dependencies, on plain HTTP as a load balancer probes. */
async function appWith(readiness: ReturnType<typeof readinessOf>) {
  const server = await serve(createApp({ ...api.deps, readiness }), { secure: false });
  servers.push(server);
  return (path: string) => rawCall({ secure: false, port: server.port, method: 'GET', path });
}

describe('GET /healthz', () => {
  it('answers 200 while the process is up, over HTTPS and plain HTTP, without a key', async () => {
    for (const response of [await api.call('GET', '/healthz'), await api.callPlain('GET', '/healthz')]) {
      expect(response.status).toBe(200);
      expect(response.body).toEqual({ status: 'ok' });
    }
  });

  it('only GET: 405 in JSON', async () => {
    const response = await api.call('POST', '/healthz');
    expect(response.status).toBe(405);
    expect(response.headers.allow).toBe('GET');
    expect(response.body).toMatchObject({ error: { type: 'method_not_allowed', status: 405 } });
  });
});

describe('GET /readyz', () => {
  it('answers 200 when Postgres and Redis answer', async () => {
    await expect
      .poll(async () => (await api.call('GET', '/readyz')).body, { timeout: 5000 })
      .toEqual({ status: 'ready', checks: { postgres: 'ok', redis: 'ok' } });
    expect((await api.call('GET', '/readyz')).headers['cache-control']).toBe('no-store');
  });

  it('answers 503 naming Redis when Redis does not answer', async () => {
    const redis = connectRedis(redisAt('redis://127.0.0.1:1'), logger);
    const call = await appWith(readinessOf({ db: api.db.db, redis }));
    const response = await call('/readyz');
    redis.disconnect();
    expect(response.status).toBe(503);
    expect(response.body).toEqual({
      status: 'unavailable',
      checks: { postgres: 'ok', redis: 'Redis: unavailable' },
    });
  });

  it('answers 503 naming Postgres when Postgres does not answer, without its address', async () => {
    const database = connectDatabase('postgres://rebuttal:secret@127.0.0.1:1/nowhere', { max: 1 });
    const redis = connectRedis(redisAt(api.config.REDIS_URL), logger);
    await new Promise((resolve) => redis.once('ready', resolve));
    const call = await appWith(readinessOf({ db: database.db, redis }));
    const response = await call('/readyz');
    redis.disconnect();
    await database.close();
    expect(response.status).toBe(503);
    expect(response.body).toEqual({
      status: 'unavailable',
      checks: { postgres: 'Postgres: unavailable', redis: 'ok' },
    });
    expect(response.text).not.toContain('secret');
  });
});
