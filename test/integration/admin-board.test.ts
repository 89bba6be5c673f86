import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { boardFor } from '../../src/admin/board.js';
import { createApp } from '../../src/api/app.js';
import { connectRedis } from '../../src/redis.js';
import { type RedisClient, redisAt } from '../../src/redis-connection.js';
import { capturingLogger } from '../helpers/adapter-contract.js';
import { startTestApi, type TestApi } from '../helpers/api.js';
import { type ListeningServer, rawCall, serve } from '../helpers/security.js';

/**
 * Bull Board's sign-in: repeated wrong operator credentials from one address are refused outright. Its
 * actions are logged with who took them, and ADMIN_READONLY refuses them all.
 */
let api: TestApi;
let redis: RedisClient;
const logs = capturingLogger();
let acting: ListeningServer;
let readOnly: ListeningServer;
beforeAll(async () => {
  api = await startTestApi({
    workers: [],
    env: { ADMIN_USER: 'operator', ADMIN_PASSWORD: 'the right password' },
  });
  redis = connectRedis(redisAt(api.config.REDIS_URL), logs.logger);
  const served = (readOnlyBoard: boolean) => {
    const config = { ...api.config, ADMIN_READONLY: readOnlyBoard };
    const admin = boardFor(config, api.queues, redis, logs.logger);
    return serve(createApp(api.deps, { admin }), { secure: true });
  };
  acting = await served(false);
  readOnly = await served(true);
});
afterAll(async () => {
  await acting.close();
  await readOnly.close();
  redis.disconnect();
  await api.close();
});

const basic = (credentials: string) => ({
  authorization: `Basic ${Buffer.from(credentials).toString('base64')}`,
});
const operator = basic('operator:the right password');
const board = (headers: Record<string, string> = {}) =>
  api.call('GET', '/admin/queues/api/queues', { headers });
const onBoard = (
  server: ListeningServer,
  method: string,
  path: string,
  headers: Record<string, string> = {},
) =>
  rawCall({
    secure: true,
    port: server.port,
    method,
    path: `/admin/queues${path}`,
    headers: { ...operator, ...headers },
  });

/** The log lines with message `msg`, parsed. */
const linesOf = (msg: string) =>
  logs
    .text()
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as Record<string, unknown>)
    .filter((line) => line.msg === msg);

describe('Bull Board actions', () => {
  it('are logged with the operator and address, never the password', async () => {
    const paused = await onBoard(acting, 'PUT', '/api/queues/deadline/pause');
    expect(paused.status, paused.text).toBe(200);
    expect(await api.queues.byName.deadline.isPaused()).toBe(true);
    expect((await onBoard(acting, 'PUT', '/api/queues/deadline/resume')).status).toBe(200);
    expect(await api.queues.byName.deadline.isPaused()).toBe(false);
    // Reads are not actions.
    expect((await onBoard(acting, 'GET', '/api/queues')).status).toBe(200);

    await expect.poll(() => linesOf('Bull Board action').length).toBe(2);
    expect(linesOf('Bull Board action')).toEqual([
      expect.objectContaining({
        level: 30,
        operator: 'operator',
        address: '127.0.0.1',
        method: 'PUT',
        path: '/admin/queues/api/queues/deadline/pause',
        status: 200,
      }),
      expect.objectContaining({ path: '/admin/queues/api/queues/deadline/resume', status: 200 }),
    ]);
    expect(logs.text()).not.toContain('the right password');
  });

  it("are refused from another site's page, which the operator's browser would send them from", async () => {
    for (const origin of ['https://evil.example', 'null']) {
      const refused = await onBoard(acting, 'PUT', '/api/queues/deadline/pause', { origin });
      expect(refused.status).toBe(400);
      expect(refused.body).toEqual({
        error: {
          status: 400,
          type: 'invalid_request',
          message: `Bull Board takes actions from its own pages only: Origin "${origin}" is another site.`,
        },
      });
      expect(await api.queues.byName.deadline.isPaused()).toBe(false);
    }
    const own = { origin: `https://127.0.0.1:${acting.port}` };
    expect((await onBoard(acting, 'PUT', '/api/queues/deadline/pause', own)).status).toBe(200);
    expect((await onBoard(acting, 'PUT', '/api/queues/deadline/resume', own)).status).toBe(200);
    expect(await api.queues.byName.deadline.isPaused()).toBe(false);
  });

  it('are refused when the board is read-only (ADMIN_READONLY), which still shows the queues', async () => {
    const refused = await onBoard(readOnly, 'PUT', '/api/queues/deadline/pause');
    expect(refused.status).toBe(405);
    expect(refused.headers.allow).toBe('GET, HEAD');
    expect(refused.body).toEqual({
      error: {
        status: 405,
        type: 'method_not_allowed',
        message: 'Bull Board is read-only here (ADMIN_READONLY): it shows the queues but takes no action.',
      },
    });
    expect(await api.queues.byName.deadline.isPaused()).toBe(false);
    await expect
      .poll(() => linesOf('Bull Board action').at(-1))
      .toMatchObject({ path: '/admin/queues/api/queues/deadline/pause', status: 405 });

    const shown = await onBoard(readOnly, 'GET', '/api/queues');
    expect(shown.status).toBe(200);
    const shownQueues = (shown.body as { queues: { name: string; readOnlyMode: boolean }[] }).queues;
    expect(shownQueues.map((queue) => [queue.name, queue.readOnlyMode]).sort()).toEqual([
      ['deadline', true],
      ['mirror', true],
      ['submission', true],
      ['webhook', true],
    ]);
  });
});

// Last: it leaves loopback refused for the rest of the window.
describe('Bull Board sign-in', () => {
  it('answers 401 to wrong guesses, then 429 to the address, even with the right credentials', async () => {
    expect((await board(basic('operator:the right password'))).status).toBe(200);
    // Requests without credentials (a browser asking for the prompt) are not guesses.
    for (let n = 0; n < 12; n++) expect((await board()).status).toBe(401);
    expect((await board(basic('operator:the right password'))).status).toBe(200);

    for (let n = 0; n < 10; n++) {
      expect((await board(basic(`operator:guess ${n}`))).body).toEqual({
        error: { status: 401, type: 'authentication', message: 'Operator credentials are required.' },
      });
    }
    const refused = await board(basic('operator:the right password'));
    expect(refused.status).toBe(429);
    expect(refused.headers['retry-after']).toBe('300');
    expect(refused.body).toEqual({
      error: {
        status: 429,
        type: 'rate_limited',
        message: 'Too many wrong operator credentials from this address; try again later.',
      },
    });
  });
});
