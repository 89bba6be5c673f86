import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../src/api/app.js';
import { connectDatabase } from '../../src/db/client.js';
import { createLogger } from '../../src/logger.js';
import { readinessOf } from '../../src/readiness.js';
import { connectRedis } from '../../src/redis.js';
import { redisAt } from '../../src/redis-connection.js';
import { startTestApi, type TestApi } from '../helpers/api.js';
import { newTenant, type Tenant } from '../helpers/disputes.js';

/**
 * The level of each request's log line says whose problem its answer is: the client's (info), a
 * dependency's (warn, and for readiness once per change rather than once per probe), or this process's
 * (error).
 */
let api: TestApi;
let server: Server;
let port: number;
let lines: Record<string, unknown>[] = [];
let sink: Writable;
let tenant: Tenant;
// A real Redis client whose Redis is away: nothing listens on port 1.
const awayRedis = connectRedis(redisAt('redis://127.0.0.1:1'), createLogger('silent'));

beforeAll(async () => {
  api = await startTestApi({ workers: [] });
  tenant = await newTenant(api);
  sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString('utf8').split('\n').filter(Boolean)) lines.push(JSON.parse(line));
      done();
    },
  });
  const app = createApp({
    ...api.deps,
    logger: createLogger('info', sink),
    trustProxy: true,
    readiness: readinessOf({ db: api.db.db, redis: awayRedis }),
  });
  server = createServer(app);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
});
afterAll(async () => {
  awayRedis.disconnect();
  await new Promise((resolve) => server.close(resolve));
  await api.close();
});

const get = (path: string) =>
  fetch(`http://127.0.0.1:${port}${path}`, { headers: { 'x-forwarded-proto': 'https' } });
const levels = { info: 30, warn: 40, error: 50 };

describe('the request log', () => {
  it('a failing /readyz warns once that a dependency is away, and logs each probe at info', async () => {
    lines = [];
    for (let probe = 0; probe < 3; probe++) expect((await get('/readyz')).status).toBe(503);

    expect(lines.map(({ level, msg }) => ({ level, msg }))).toEqual([
      { level: levels.warn, msg: 'not ready: a dependency is unavailable' },
      { level: levels.info, msg: 'request completed' },
      { level: levels.info, msg: 'request completed' },
      { level: levels.info, msg: 'request completed' },
    ]);
    expect(lines[0]).toMatchObject({ checks: { postgres: 'ok', redis: 'Redis: unavailable' } });
    expect(lines[1]).toMatchObject({ path: '/readyz', status: 503 });
  });

  it('a request answered 503 because Postgres is away: one warning with the cause, no stack', async () => {
    const away = connectDatabase('postgres://postgres@127.0.0.1:1/nowhere');
    const app = createApp({ ...api.deps, db: away.db, logger: createLogger('info', sink), trustProxy: true });
    const down = createServer(app);
    await new Promise<void>((resolve) => down.listen(0, '127.0.0.1', resolve));
    try {
      lines = [];
      const { port: downPort } = down.address() as AddressInfo;
      const answer = await fetch(`http://127.0.0.1:${downPort}/v1/disputes`, {
        headers: {
          'x-forwarded-proto': 'https',
          authorization: `Basic ${Buffer.from(`${tenant.key}:`).toString('base64')}`,
        },
      });
      expect(answer.status).toBe(503);
      expect(lines.map(({ level, msg, status }) => ({ level, msg, status }))).toEqual([
        { level: levels.warn, msg: 'Postgres unavailable: answered 503 unavailable', status: undefined },
        { level: levels.info, msg: 'request completed', status: 503 },
      ]);
      expect(lines[0]).toEqual({
        level: levels.warn,
        time: expect.any(Number),
        service: 'rebuttal',
        request_id: expect.any(String),
        problem: 'Postgres connection failed (ECONNREFUSED)',
        msg: 'Postgres unavailable: answered 503 unavailable',
      });
    } finally {
      await new Promise((resolve) => down.close(resolve));
      await away.close();
    }
  });

  it("a client's mistake (404, 401) is logged at info", async () => {
    lines = [];
    expect((await get('/v1/nowhere')).status).toBe(401);
    expect((await get('/nowhere')).status).toBe(404);
    expect(lines.map(({ level, msg, status }) => ({ level, msg, status }))).toEqual([
      { level: levels.info, msg: 'request completed', status: 401 },
      { level: levels.info, msg: 'request completed', status: 404 },
    ]);
  });
});
