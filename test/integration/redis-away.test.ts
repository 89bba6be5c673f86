import { mkdtemp, rm } from 'node:fs/promises';
import { request } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type FakeMockProcessor, startFakeMockProcessor } from '../fakes/mock-processor.js';
import { startTestApi, type TestApi } from '../helpers/api.js';
import { getDispute, newTenant, submittableDispute, type Tenant } from '../helpers/disputes.js';
import {
  logLines,
  type ServiceProcess,
  startProcess,
  startWorkerProcess,
  waitForOutput,
} from '../helpers/processes.js';
import { freePort, listening, type PrivateRedis, privateRedis } from '../helpers/redis-server.js';

/**
 * The deployment's processes (DATABASE_URL set) when Redis is away: at start, and for a few seconds
 * while they run. They never start a Redis of their own, keep serving what needs none, tell the outage
 * in one line when it begins and one when it ends (whatever their connections' count), and take up
 * their work again once Redis answers. The processes run as the Procfile runs them, on a redis-server of
 * this file's own; the API that sets up disputes runs in this process on the same Redis.
 */
let redis: PrivateRedis;
let api: TestApi;
let tenant: Tenant;
let processor: FakeMockProcessor;
let dataDir: string;
const running: ServiceProcess[] = [];

const awayMessage =
  'Redis is away: jobs, rate limits and circuit breakers wait for it; retrying until it answers';

beforeAll(async () => {
  redis = await privateRedis();
  await redis.start();
  api = await startTestApi({ workers: [], env: { REDIS_URL: redis.url, SUBMIT_WAIT_MS: '200' } });
  tenant = await newTenant(api);
  processor = await startFakeMockProcessor();
  dataDir = await mkdtemp(join(tmpdir(), 'rebuttal-redis-away-'));
});
afterEach(() => {
  for (const each of running.splice(0)) each.child.kill('SIGKILL');
});
afterAll(async () => {
  await api?.close();
  await processor?.close();
  await redis?.kill();
  await rm(dataDir, { recursive: true, force: true });
});

/** What every process of the deployment is given. */
const deployment = (redisUrl: string) => ({
  HOME: process.env.HOME,
  PATH: process.env.PATH,
  DATABASE_URL: api.db.url,
  APP_SECRET: api.config.APP_SECRET,
  QUEUE_PREFIX: api.config.QUEUE_PREFIX,
  REDIS_URL: redisUrl,
  DATA_DIR: dataDir,
});

/** The Procfile's `web` (WORKERS=none), once it serves HTTPS: its port. */
async function web(redisUrl: string): Promise<{ process: ServiceProcess; port: number }> {
  const started = startProcess('src/server.ts', { ...deployment(redisUrl), WORKERS: 'none', PORT: '0' });
  running.push(started);
  await waitForOutput(started, '"msg":"serving HTTPS"');
  const [serving] = logLines(started, /^serving HTTPS$/);
  return { process: started, port: serving?.port as number };
}

async function worker(redisUrl: string): Promise<ServiceProcess> {
  const started = await startWorkerProcess({
    ...deployment(redisUrl),
    MOCK_PROCESSOR_URL: processor.url,
    WORKERS: 'submission',
  });
  running.push(started);
  return started;
}

function get(
  port: number,
  path: string,
  key?: string,
  method = 'GET',
): Promise<{ status: number; body: unknown }> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port,
        path,
        method,
        rejectUnauthorized: false,
        ...(key && { auth: `${key}:` }),
      },
      (res) => {
        let text = '';
        res.on('data', (chunk: Buffer) => {
          text += chunk.toString('utf8');
        });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(text) }));
      },
    );
    req.on('error', reject);
    req.end();
  });
}

/** The lines a process wrote about Redis coming and going, in order: 'away' and 'back'. */
const outages = (running: ServiceProcess) =>
  logLines(running, /^Redis is (away|back)/).map((line) => (line.msg === awayMessage ? 'away' : 'back'));

async function submitted(id: string): Promise<void> {
  // The API in this process is wired as the web process is: it too enqueues once its connections are back.
  await expect.poll(() => api.queues.watch.away, { timeout: 20_000 }).toBe(false);
  const response = await api.call('POST', `/v1/disputes/${id}/submit`, { key: tenant.key });
  expect(response.status, response.text).toBe(202);
  await expect
    .poll(async () => (await getDispute(api, tenant.key, id)).state, { timeout: 20_000 })
    .toBe('submitted');
}

describe('a web process given DATABASE_URL, with nothing at REDIS_URL', () => {
  it('starts no redis-server, says once that Redis is away, serves /healthz and reads, and is ready once Redis comes', async () => {
    const absent = await privateRedis(await freePort());
    try {
      const { process: started, port } = await web(absent.url);
      // Its connections have all tried by now, and keep trying: still no Redis, and still one line.
      await new Promise((resolve) => setTimeout(resolve, 2000));
      expect(await listening(absent.port)).toBe(false);
      expect(started.output()).not.toContain('managed redis-server');
      expect(logLines(started, /^Redis is/)).toEqual([
        expect.objectContaining({
          level: 40,
          address: `127.0.0.1:${absent.port}`,
          problem: `connect ECONNREFUSED 127.0.0.1:${absent.port}`,
          msg: awayMessage,
        }),
      ]);
      expect(started.errors()).toBe('');

      expect(await get(port, '/healthz')).toEqual({ status: 200, body: { status: 'ok' } });
      expect(await get(port, '/readyz')).toEqual({
        status: 503,
        body: { status: 'unavailable', checks: { postgres: 'ok', redis: 'Redis: unavailable' } },
      });
      const read = await get(port, '/v1/disputes?limit=1', tenant.key);
      expect(read.status).toBe(200);
      expect(read.body).toMatchObject({ object: 'list' });
      // A submit is answered at once from its row (the deadline sweep enqueues it later), not held.
      const { dispute } = await submittableDispute(api, tenant);
      const asked = Date.now();
      const submit = await get(port, `/v1/disputes/${dispute.id}/submit`, tenant.key, 'POST');
      expect(Date.now() - asked).toBeLessThan(3000);
      expect(submit).toMatchObject({ status: 202, body: { id: dispute.id, state: 'compiling_evidence' } });

      await absent.start();
      await expect
        .poll(() => get(port, '/readyz'), { timeout: 10_000 })
        .toEqual({ status: 200, body: { status: 'ready', checks: { postgres: 'ok', redis: 'ok' } } });
      await waitForOutput(started, '"msg":"Redis is back"', 10);
      expect(outages(started)).toEqual(['away', 'back']);
    } finally {
      await absent.kill();
    }
  }, 120_000);
});

describe('a Redis outage of five seconds', () => {
  it('is two lines in each process, nothing on stderr, and the worker submits afterwards', async () => {
    const [server, runner] = await Promise.all([web(redis.url), worker(redis.url)]);
    await expect.poll(() => get(server.port, '/readyz').then((answer) => answer.status)).toBe(200);
    const { dispute } = await submittableDispute(api, tenant);

    await redis.kill();
    await new Promise((resolve) => setTimeout(resolve, 5000));
    await redis.start();
    await waitForOutput(server.process, '"msg":"Redis is back"', 20);
    await waitForOutput(runner, '"msg":"Redis is back"', 20);

    await submitted(dispute.id);
    for (const each of [server.process, runner]) {
      expect(outages(each), each.output()).toEqual(['away', 'back']);
      expect(each.errors()).toBe('');
    }
  }, 120_000);
});

describe('a worker process started while Redis is away', () => {
  it('says so in one line, keeps trying, and submits once Redis answers', async () => {
    const { dispute } = await submittableDispute(api, tenant);
    await redis.kill();
    const runner = await worker(redis.url);
    await new Promise((resolve) => setTimeout(resolve, 2000));
    expect(logLines(runner, /^Redis is/)).toEqual([
      expect.objectContaining({ level: 40, address: `127.0.0.1:${redis.port}`, msg: awayMessage }),
    ]);

    await redis.start();
    await waitForOutput(runner, '"msg":"Redis is back"', 20);
    await submitted(dispute.id);
    expect(outages(runner)).toEqual(['away', 'back']);
    expect(runner.errors()).toBe('');
  }, 120_000);
});
