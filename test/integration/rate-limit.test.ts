import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../src/api/app.js';
import { RateLimiter } from '../../src/rate-limiter.js';
import { connectRedis } from '../../src/redis.js';
import { startTestApi, type TestApi } from '../helpers/api.js';
import { redisUrl, testRedisPrefix } from '../helpers/services.js';

let api: TestApi;
const servers: Server[] = [];
const logger = pino({ level: 'silent' });

beforeAll(async () => {
  api = await startTestApi({ workers: [] });
});
afterAll(async () => {
  for (const server of servers) await new Promise((resolve) => server.close(resolve));
  await api.close();
});

/** A connection to the tests' Redis, once it is ready (before that the limiter would let everything by). */
async function readyRedis() {
  const redis = connectRedis(redisUrl, logger);
  if (redis.status !== 'ready') await new Promise((resolve) => redis.once('ready', resolve));
  return redis;
}

/** The app with its own limiter, behind a trusted TLS-terminating proxy (so plain loopback HTTP will do). */
async function serve(limiter: RateLimiter): Promise<(key: string) => Promise<Response>> {
  const server = createServer(createApp({ ...api.deps, rateLimiter: limiter, trustProxy: true }));
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return (key) =>
    fetch(`http://127.0.0.1:${port}/v1/disputes`, {
      headers: {
        authorization: `Basic ${Buffer.from(`${key}:`).toString('base64')}`,
        'x-forwarded-proto': 'https',
      },
    });
}

describe('rate limit per API key (docs/api.md, "Limits")', () => {
  it('allows bursts of twice the rate, then answers 429 rate_limited with Retry-After, per key', async () => {
    const redis = await readyRedis();
    try {
      const call = await serve(new RateLimiter(redis, testRedisPrefix(), 5, logger));
      const [busy, quiet] = [await api.createOrg(), await api.createOrg()];

      const statuses: number[] = [];
      for (let index = 0; index < 10; index++) statuses.push((await call(busy.test_key)).status);
      expect(statuses.filter((status) => status === 200).length).toBeGreaterThanOrEqual(10);

      let limited: Response | undefined;
      for (let index = 0; index < 5 && !limited; index++) {
        const response = await call(busy.test_key);
        if (response.status === 429) limited = response;
      }
      if (!limited) throw new Error('no request was limited after a burst of 10 at 5 a second');
      expect(Number(limited.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
      expect(await limited.json()).toEqual({
        url: '/v1/disputes',
        livemode: false,
        error: {
          status: 429,
          type: 'rate_limited',
          message: 'Too many requests: at most 5 a second, in bursts of up to 10.',
        },
      });

      // Another organisation's key, and the same organisation's live key, have buckets of their own.
      expect((await call(quiet.test_key)).status).toBe(200);
      expect((await call(busy.live_key)).status).toBe(200);

      // After the time Retry-After names, a token has come back.
      await new Promise((resolve) => setTimeout(resolve, Number(limited.headers.get('retry-after')) * 1000));
      expect((await call(busy.test_key)).status).toBe(200);
    } finally {
      redis.disconnect();
    }
  });

  it('lets requests through when Redis does not answer, rather than refusing merchants', async () => {
    const unreachable = connectRedis('redis://127.0.0.1:1', logger);
    try {
      const call = await serve(new RateLimiter(unreachable, testRedisPrefix(), 1, logger));
      const org = await api.createOrg();
      for (let index = 0; index < 5; index++) expect((await call(org.test_key)).status).toBe(200);
    } finally {
      unreachable.disconnect();
    }
  });

  it('spends a leased tenth of a second of tokens locally: one Redis call per lease, never past the limit', async () => {
    const redis = await readyRedis();
    try {
      const prefix = testRedisPrefix();
      const here = new RateLimiter(redis, prefix, 100, logger);
      const there = new RateLimiter(redis, prefix, 100, logger);
      const leased = (limiter: RateLimiter) =>
        (limiter as unknown as { leases: Map<string, { tokens: number }> }).leases.get('org_x:test')?.tokens;

      expect(await here.take('org_x:test')).toEqual({ allowed: true });
      expect(leased(here)).toBe(9);
      // Two processes on one key share one bucket of 200: together they are granted 200 at most.
      let allowed = 0;
      for (let index = 0; index < 150; index++) {
        for (const limiter of [here, there]) if ((await limiter.take('org_x:test')).allowed) allowed += 1;
      }
      expect(allowed).toBeGreaterThanOrEqual(199);
      // Refill while the loop ran (100 a second) is the only allowance past the burst.
      expect(allowed).toBeLessThanOrEqual(200 + 100);
    } finally {
      redis.disconnect();
    }
  });

  it('serves concurrent requests of one key from one lease at a time, not a lease each', async () => {
    const redis = await readyRedis();
    try {
      const prefix = testRedisPrefix();
      const limiter = new RateLimiter(redis, prefix, 100, logger);
      const decisions = await Promise.all(Array.from({ length: 50 }, () => limiter.take('org_y:test')));
      expect(decisions.every((decision) => decision.allowed)).toBe(true);
      // 50 requests took about 50 tokens from the shared bucket of 200, not 50 leases of 10.
      const left = Number(await redis.hget(`${prefix}:rate:org_y:test`, 'tokens'));
      expect(left).toBeGreaterThanOrEqual(140);
    } finally {
      redis.disconnect();
    }
  });
});
