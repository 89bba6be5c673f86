import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { pino } from 'pino';
import { createApp } from '../../src/api/app.js';
import { type RateLimitSettings, type RateLimits, rateLimitsOf } from '../../src/rate-limits.js';
import { connectRedis } from '../../src/redis.js';
import { type RedisClient, redisAt } from '../../src/redis-connection.js';
import type { TestApi } from './api.js';
import { redisUrl, testRedisPrefix } from './services.js';

export const silentLogger = pino({ level: 'silent' });

/** A connection to the tests' Redis, once it is ready (before that the limiter would let everything by). */
export async function readyRedis(): Promise<RedisClient> {
  const connection = connectRedis(redisAt(redisUrl), silentLogger);
  if (connection.status !== 'ready') await new Promise((resolve) => connection.once('ready', resolve));
  return connection;
}

/** A test's limits over the harness's generous ones, in buckets of their own. */
export function limitsOver(
  api: TestApi,
  connection: RedisClient,
  settings: Partial<RateLimitSettings>,
): RateLimits {
  return rateLimitsOf(
    connection,
    { ...api.config, QUEUE_PREFIX: testRedisPrefix(), ...settings },
    silentLogger,
  );
}

export interface Call {
  key?: string;
  method?: string;
  json?: object;
  /** A body of another type (a multipart upload), sent as it is. */
  raw?: { type: string; body: Buffer };
  /** The client's address, as the trusted proxy reports it. */
  from?: string;
}

/**
 * The app with its own limits, behind a trusted TLS-terminating proxy (so plain loopback HTTP will do, and
 * the client's address is the one X-Forwarded-For names). The server joins `servers`, for the caller to close.
 */
export async function serveLimited(
  api: TestApi,
  rateLimits: RateLimits,
  servers: Server[],
): Promise<(path: string, call?: Call) => Promise<Response>> {
  const server = createServer(createApp({ ...api.deps, rateLimits, trustProxy: true }));
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return (path, { key, method = 'GET', json, raw, from = '198.51.100.1' } = {}) =>
    fetch(`http://127.0.0.1:${port}${path}`, {
      method,
      headers: {
        ...(key !== undefined && { authorization: `Basic ${Buffer.from(`${key}:`).toString('base64')}` }),
        ...(json && { 'content-type': 'application/json' }),
        ...(raw && { 'content-type': raw.type }),
        'x-forwarded-proto': 'https',
        'x-forwarded-for': from,
      },
      ...(json && { body: JSON.stringify(json) }),
      ...(raw && { body: raw.body }),
    });
}

/** The statuses of `count` calls made one after another. */
export async function statuses(count: number, call: () => Promise<Response>): Promise<number[]> {
  const answers: number[] = [];
  for (let index = 0; index < count; index++) answers.push((await call()).status);
  return answers;
}

export const rateLimited = (url: string, message: string, livemode = false) => ({
  url,
  livemode,
  error: { status: 429, type: 'rate_limited', message },
});

/** The request limit's message at `perSecond` (docs/api.md, "Limits"). */
export const requestLimit = (perSecond: number) =>
  `Too many requests: at most ${perSecond} a second, in bursts of up to ${perSecond * 2}; every 32 KiB of an answer or an uploaded file counts as one more request.`;
