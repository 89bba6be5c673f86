import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { secretValues } from '../../src/processors/connection.js';
import { AccountGuards } from '../../src/processors/guard.js';
import { ProcessorHttp } from '../../src/processors/http.js';
import { ProcessorError } from '../../src/processors/types.js';
import { FakeServer, jsonReply } from '../fakes/harness.js';
import { capturingLogger } from '../helpers/adapter-contract.js';
import { dropKeys, ensureRedis, redisUrl, testRedisPrefix } from '../helpers/services.js';

/**
 * The one HTTP layer of every adapter (src/processors/http.ts) and the per-account guards it passes
 * (src/processors/guard.ts), against a real server on loopback and the tests' Redis.
 */

const secret = 'sk_test_contract_secret_4711';
const prefix = testRedisPrefix();
let server: FakeServer;
let redis: Redis;
let answer: () => ReturnType<typeof jsonReply> = () => jsonReply(200, { ok: true });

beforeAll(async () => {
  await ensureRedis();
  redis = new Redis(redisUrl);
  server = await new FakeServer(
    () => answer(),
    (status, message) => jsonReply(status, { error: { message, echoed: secret } }),
  ).start();
});
/** A second process's connection to the same Redis. */
const others: Redis[] = [];
function anotherProcess(): Redis {
  const other = new Redis(redisUrl);
  others.push(other);
  return other;
}

afterAll(async () => {
  await server.close();
  redis.disconnect();
  for (const other of others) other.disconnect();
  await dropKeys(redisUrl, prefix);
});

const logs = capturingLogger();

function http(options: { guards?: AccountGuards; account?: string; perSecond?: number } = {}) {
  return new ProcessorHttp({
    processor: 'example',
    baseUrl: server.url,
    headers: { authorization: `Bearer ${secret}` },
    logger: logs.logger,
    secrets: secretValues(JSON.stringify({ secret_key: secret })),
    guard: options.guards?.for('example', options.account ?? crypto.randomUUID(), options.perSecond ?? 100),
  });
}

async function failure(promise: Promise<unknown>): Promise<ProcessorError> {
  try {
    await promise;
  } catch (error) {
    expect(error).toBeInstanceOf(ProcessorError);
    return error as ProcessorError;
  }
  throw new Error('expected a ProcessorError');
}

describe('the HTTP layer', () => {
  it('returns a 2xx answer, and a status the caller names as an answer', async () => {
    answer = () => jsonReply(200, { id: 'du_1' });
    expect(await http().json({ method: 'GET', path: 'v1/disputes/du_1' }, zodObject())).toEqual({
      id: 'du_1',
    });
    answer = () => jsonReply(404, { error: 'missing' });
    expect((await http().send({ method: 'GET', path: 'v1/disputes/x', answers: [404] })).status).toBe(404);
  });

  it('retries an idempotent call twice on a 503, and a write without a key not at all', async () => {
    const before = server.requests.length;
    server.inject({ kind: 'unavailable', times: 10 });
    const read = await failure(http().send({ method: 'GET', path: 'read', idempotent: true }));
    expect(server.requests.length - before).toBe(3);
    expect(read).toMatchObject({ retryable: true, status: 503 });
    const write = await failure(http().send({ method: 'POST', path: 'write', form: { a: '1' } }));
    expect(server.requests.length - before).toBe(4);
    expect(write).toMatchObject({ retryable: true, status: 503 });
    server.clearFaults();
  });

  it('leaves a long Retry-After to the job: no wait here, the wait on the error', async () => {
    server.inject({ kind: 'rate-limit', value: 30, times: 3 });
    const started = Date.now();
    const error = await failure(http().send({ method: 'GET', path: 'read', idempotent: true }));
    expect(Date.now() - started).toBeLessThan(5000);
    expect(error).toMatchObject({ retryable: true, status: 429, retryAfterSeconds: 30 });
    server.clearFaults();
  });

  it('a refusal is permanent, with the status and an excerpt of the answer without the credentials', async () => {
    answer = () => jsonReply(401, { error: { message: `Invalid API Key provided: ${secret}` } });
    const error = await failure(http().send({ method: 'GET', path: 'v1/disputes' }));
    expect(error).toMatchObject({ retryable: false, status: 401 });
    expect(error.excerpt).toBe('{"error":{"message":"Invalid API Key provided: [redacted]"}}');
    expect(error.reason).toBe(
      'example 401 (permanent): The processor answered 401: Invalid API Key provided: [redacted] Answer: {"error":{"message":"Invalid API Key provided: [redacted]"}}',
    );
    answer = () => jsonReply(200, { ok: true });
  });

  it('an answer of the wrong shape is a permanent error naming what is wrong', async () => {
    answer = () => jsonReply(200, { id: 42 });
    const error = await failure(http().json({ method: 'GET', path: 'x' }, zodObject()));
    expect(error).toMatchObject({ retryable: false, status: 200 });
    expect(error.message).toMatch(/^The processor's answer has an unexpected shape \(id: /);
    answer = () => jsonReply(200, { ok: true });
  });

  it('no answer at all is transient, without a status', async () => {
    server.inject({ kind: 'drop' });
    const error = await failure(http().send({ method: 'POST', path: 'write' }));
    expect(error).toMatchObject({ retryable: true, status: undefined });
  });

  it('logs method, path and status, never headers, query or credentials', async () => {
    await http().send({ method: 'GET', path: 'v1/disputes', searchParams: { email: 'ada@example.com' } });
    const text = logs.text();
    expect(text).toContain('"path":"/v1/disputes"');
    expect(text).not.toContain(secret);
    expect(text).not.toContain('ada@example.com');
  });
});

describe('the per-account guards', () => {
  it('open the circuit after the threshold, fail fast without a call, and close after a good probe', async () => {
    const account = crypto.randomUUID();
    const guards = new AccountGuards(redis, prefix, logs.logger, { threshold: 3, cooldownMs: 400 });
    // A second process sees the same circuit: it lives in Redis.
    const elsewhere = new AccountGuards(anotherProcess(), prefix, logs.logger, {
      threshold: 3,
      cooldownMs: 400,
    });
    server.inject({ kind: 'unavailable', times: 3 });
    for (let i = 0; i < 3; i++) await failure(http({ guards, account }).send({ method: 'POST', path: 'x' }));
    const sent = server.requests.length;
    const open = await failure(http({ guards: elsewhere, account }).send({ method: 'POST', path: 'x' }));
    expect(server.requests.length).toBe(sent);
    expect(open.retryable).toBe(true);
    expect(open.message).toMatch(/^Circuit open for this account after 3 failed calls in a row; not sent/);
    expect(open.retryAfterSeconds).toBe(1);
    // Another account is not affected.
    await http({ guards }).send({ method: 'GET', path: 'x' });

    await new Promise((resolve) => setTimeout(resolve, 450));
    await http({ guards, account }).send({ method: 'GET', path: 'probe' });
    await http({ guards: elsewhere, account }).send({ method: 'GET', path: 'closed' });
    expect(server.requests.length).toBe(sent + 3);
  });

  it('a refusal (4xx) does not count towards opening the circuit', async () => {
    const account = crypto.randomUUID();
    const guards = new AccountGuards(redis, prefix, logs.logger, { threshold: 2, cooldownMs: 10_000 });
    const sent = server.requests.length;
    answer = () => jsonReply(400, { error: 'no' });
    for (let i = 0; i < 4; i++) {
      const refused = await failure(http({ guards, account }).send({ method: 'GET', path: 'x' }));
      // Each refusal is the processor's own answer, never the circuit's.
      expect(refused).toMatchObject({ retryable: false, status: 400 });
    }
    answer = () => jsonReply(200, { ok: true });
    expect((await http({ guards, account }).send({ method: 'GET', path: 'x' })).status).toBe(200);
    expect(server.requests.length - sent).toBe(5);
  });

  it('hold the account to its rate, across processes: over it, a call fails as transient without being sent', async () => {
    const account = crypto.randomUUID();
    const one = new AccountGuards(redis, prefix, logs.logger, { maxWaitMs: 0 });
    const two = new AccountGuards(anotherProcess(), prefix, logs.logger, { maxWaitMs: 0 });
    const sent = server.requests.length;
    // 5 a second with bursts of 10, shared by both.
    for (let i = 0; i < 10; i++) {
      await http({ guards: i % 2 ? one : two, account, perSecond: 5 }).send({ method: 'GET', path: 'x' });
    }
    const refused = await failure(
      http({ guards: one, account, perSecond: 5 }).send({ method: 'GET', path: 'x' }),
    );
    expect(server.requests.length - sent).toBe(10);
    expect(refused).toMatchObject({ retryable: true, retryAfterSeconds: 1 });
    expect(refused.message).toBe('Rate limit of 5 calls a second for this account reached; not sent.');
  });

  it('waits for a token when the wait is short', async () => {
    const account = crypto.randomUUID();
    const guards = new AccountGuards(redis, prefix, logs.logger, { maxWaitMs: 3000 });
    const started = Date.now();
    for (let i = 0; i < 12; i++) {
      await http({ guards, account, perSecond: 5 }).send({ method: 'GET', path: 'x' });
    }
    expect(Date.now() - started).toBeGreaterThanOrEqual(150);
  });
});

function zodObject() {
  return z.object({ id: z.string() });
}

describe('the breaker under concurrent failures', () => {
  it('trips once for calls admitted together that all fail: the first cooldown, not a doubled one', async () => {
    const account = crypto.randomUUID();
    const guards = new AccountGuards(redis, prefix, logs.logger, { threshold: 5, cooldownMs: 400 });
    server.inject({ kind: 'unavailable', times: 10 });
    await Promise.all(
      Array.from({ length: 10 }, () =>
        failure(http({ guards, account }).send({ method: 'POST', path: 'x' })),
      ),
    );
    server.clearFaults();
    expect(await redis.hget(`${prefix}:breaker:${account}`, 'trips')).toBe('1');
    await new Promise((resolve) => setTimeout(resolve, 450));
    await http({ guards, account }).send({ method: 'GET', path: 'probe' });
  });

  it('a call admitted before the trip that fails after the cooldown does not trip it again', async () => {
    const account = crypto.randomUUID();
    const guards = new AccountGuards(redis, prefix, logs.logger, { threshold: 2, cooldownMs: 200 });
    answer = () => jsonReply(503, { error: 'down' });
    server.inject({ kind: 'latency', value: 350, match: (request) => request.path === '/slow' });
    const slow = failure(http({ guards, account }).send({ method: 'POST', path: 'slow' }));
    await failure(http({ guards, account }).send({ method: 'POST', path: 'x' }));
    await failure(http({ guards, account }).send({ method: 'POST', path: 'x' }));
    await slow;
    answer = () => jsonReply(200, { ok: true });
    expect(await redis.hget(`${prefix}:breaker:${account}`, 'trips')).toBe('1');
  });

  it('a redirect is a refusal, not a success', async () => {
    answer = () => ({ status: 302, headers: { location: 'https://login.example/' }, body: '' });
    const error = await failure(http().send({ method: 'POST', path: 'v1/disputes/du_1' }));
    expect(error).toMatchObject({ retryable: false, status: 302 });
    answer = () => jsonReply(200, { ok: true });
  });

  it('an echoed Authorization header is cut out of the excerpt too', async () => {
    const basic = Buffer.from(`${secret}:`).toString('base64');
    answer = () => jsonReply(400, { error: { header: `Basic ${basic}`, padding: 'x'.repeat(290) } });
    const error = await failure(http().send({ method: 'GET', path: 'x' }));
    expect(error.excerpt).not.toContain(basic);
    expect(error.excerpt).toContain('Basic [redacted]');
    answer = () => jsonReply(200, { ok: true });
  });
});
