import { request } from 'node:https';
import { eq, sql } from 'drizzle-orm';
import express from 'express';
import { Registry } from 'prom-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { boardFor } from '../../src/admin/board.js';
import { createApp } from '../../src/api/app.js';
import { connectDatabase } from '../../src/db/client.js';
import { connectedAccounts } from '../../src/db/schema/index.js';
import { connectAccount, updateAccount } from '../../src/features/accounts/connected-accounts.js';
import { newId } from '../../src/ids.js';
import { createQueueAccountScheduler } from '../../src/jobs/account-scheduler.js';
import { openQueues } from '../../src/jobs/catalog.js';
import { enqueue } from '../../src/jobs/enqueue.js';
import { type RunningWorkers, startWorkers } from '../../src/jobs/workers/engine.js';
import { metricsFor, type ServiceMetrics } from '../../src/metrics/endpoint.js';
import { requestMetrics } from '../../src/metrics/http-requests.js';
import { AccountGuards } from '../../src/processors/guard.js';
import { queueNames } from '../../src/queue-names.js';
import { connectRedis } from '../../src/redis.js';
import { type RedisClient, redisAt } from '../../src/redis-connection.js';
import { capturingLogger } from '../helpers/adapter-contract.js';
import { startTestApi, type TestApi } from '../helpers/api.js';
import { createTestDispute, newTenant, submittableDispute } from '../helpers/disputes.js';
import { type ListeningServer, type RawAnswer, rawExchange, serve } from '../helpers/security.js';
import { receivingEndpoint } from '../helpers/webhooks.js';

/**
 * GET /metrics: Prometheus text behind the operators' credentials, with the request counts of the app it
 * is mounted in, and what Redis and Postgres hold at each scrape (queues, outcomes, accounts). The app
 * is the service's, served here with its metrics on; the job engine is this file's own (queue prefix and
 * database), its workers started once the queue-depth tests are done.
 */

const operator = 'operator:metrics password';
const logs = capturingLogger();
let api: TestApi;
let redis: RedisClient;
let server: ListeningServer;
const servers: ListeningServer[] = [];

beforeAll(async () => {
  api = await startTestApi({
    workers: [],
    env: { ADMIN_USER: 'operator', ADMIN_PASSWORD: 'metrics password' },
  });
  redis = connectRedis(redisAt(api.config.REDIS_URL), logs.logger);
  server = await serveWith(metricsFor(api.config, { ...deps(), logger: logs.logger }));
  // Outcomes are counted from the queues' event streams: listening before any job finishes.
  await Promise.all(queueNames.map((queue) => api.queues.events(queue).waitUntilReady()));
});
afterAll(async () => {
  for (const running of servers) await running.close();
  redis.disconnect();
  await api.close();
});

// Table counts read at every scrape, so each test sees what it just did.
const deps = () => ({ db: api.deps.db, queues: api.queues, redis, logger: logs.logger, tableCountMs: 0 });

async function serveWith(metrics: ServiceMetrics | undefined): Promise<ListeningServer> {
  const admin = boardFor(api.config, api.queues, redis, logs.logger);
  const running = await serve(createApp(api.deps, { admin, metrics }), { secure: true });
  servers.push(running);
  return running;
}

/** A request to `port` over TLS; `credentials` as HTTP Basic (`user:password`, or an API key and `:`). */
function call(port: number, method: string, path: string, credentials?: string): Promise<RawAnswer> {
  const headers: Record<string, string> = credentials
    ? { authorization: `Basic ${Buffer.from(credentials).toString('base64')}` }
    : {};
  return rawExchange({ secure: true, port, method, path, headers });
}

/** The lines of a scrape with the right credentials (comments and blank lines dropped). */
async function scrape(port = server.port): Promise<string[]> {
  const answer = await call(port, 'GET', '/metrics', operator);
  expect(answer.status, answer.text).toBe(200);
  return answer.text.split('\n').filter((line) => line !== '' && !line.startsWith('#'));
}

/** The value of the one line of `series` (the metric name with its labels, exactly as written). */
function sampleOf(lines: string[], series: string): number | undefined {
  const found = lines.filter((line) => line.startsWith(`${series} `));
  expect(found.length, `lines of ${series}`).toBeLessThanOrEqual(1);
  return found[0] === undefined ? undefined : Number(found[0].slice(series.length + 1));
}

/** Every state BullMQ counts, as the metric names them. */
const jobStates = ['waiting', 'active', 'delayed', 'prioritized', 'waiting-children', 'completed', 'failed'];

const operatorRefusal = {
  error: { status: 401, type: 'authentication', message: 'Operator credentials are required.' },
};

describe('GET /metrics: access', () => {
  it('answers 401 without credentials and with wrong ones, as Bull Board does', async () => {
    for (const credentials of [undefined, 'operator:wrong password', 'test_notakey:']) {
      const answer = await call(server.port, 'GET', '/metrics', credentials);
      expect(answer.status).toBe(401);
      expect(answer.headers['www-authenticate']).toBe('Basic realm="Rebuttal operators", charset="UTF-8"');
      expect(answer.headers['content-type']).toBe('application/json; charset=utf-8');
      expect(JSON.parse(answer.text)).toEqual(operatorRefusal);
    }
  });

  it('answers Prometheus text to the operators, with the process metrics', async () => {
    const answer = await call(server.port, 'GET', '/metrics', operator);
    expect(answer.status).toBe(200);
    expect(answer.headers['content-type']).toBe('text/plain; version=0.0.4; charset=utf-8');
    expect(answer.headers['cache-control']).toBe('no-store');
    const lines = answer.text.split('\n');
    expect(lines).toContain('# TYPE rebuttal_http_requests_total counter');
    expect(lines).toContain('# TYPE rebuttal_queue_jobs gauge');
    expect(lines.filter((line) => /^process_cpu_user_seconds_total \d+(\.\d+)?$/.test(line))).toHaveLength(1);
    for (const collector of [
      'queues',
      'submissions',
      'webhook_deliveries',
      'mirror_lag',
      'circuit_breakers',
    ]) {
      expect(lines).toContain(`rebuttal_metrics_collector_up{collector="${collector}"} 1`);
    }
  });

  it('only GET: 405 in JSON', async () => {
    const answer = await call(server.port, 'POST', '/metrics', operator);
    expect(answer.status).toBe(405);
    expect(answer.headers.allow).toBe('GET');
    expect(JSON.parse(answer.text)).toEqual({
      url: '/metrics',
      livemode: false,
      error: { status: 405, type: 'method_not_allowed', message: 'POST is not allowed here; use GET.' },
    });
  });

  it('is not served without ADMIN_USER and ADMIN_PASSWORD: 404 like any unknown route, and a line says why', async () => {
    const quiet = capturingLogger();
    const off = metricsFor(
      { ...api.config, ADMIN_USER: undefined, ADMIN_PASSWORD: undefined },
      { ...deps(), logger: quiet.logger },
    );
    expect(off).toBeUndefined();
    expect(quiet.text()).toContain(
      '"msg":"metrics are off: set ADMIN_USER and ADMIN_PASSWORD to serve them at /metrics"',
    );
    const bare = await serveWith(off);
    const answer = await call(bare.port, 'GET', '/metrics', operator);
    expect(answer.status).toBe(404);
    expect(JSON.parse(answer.text)).toEqual({
      url: '/metrics',
      livemode: false,
      error: { status: 404, type: 'not_found', message: 'Unrecognized request URL (GET: /metrics).' },
    });
  });
});

describe('HTTP requests', () => {
  it('are counted by method, route pattern and status, never by path', async () => {
    const { key } = await newTenant(api);
    const get = (path: string, credentials?: string) => call(server.port, 'GET', path, credentials);
    expect((await get('/v1/disputes/dp_metrics_one', `${key}:`)).status).toBe(404);
    expect((await get('/v1/disputes/dp_metrics_two', `${key}:`)).status).toBe(404);
    // Refused before routing, still under the route it asked for.
    expect((await get('/v1/disputes/dp_metrics_three')).status).toBe(401);
    expect((await get('/v1/disputes?limit=3', `${key}:`)).status).toBe(200);
    expect((await get('/v1/no_such_thing/dp_metrics_four', `${key}:`)).status).toBe(404);
    expect((await get('/nowhere')).status).toBe(404);
    expect((await call(server.port, 'DELETE', '/healthz')).status).toBe(405);
    expect((await get('/admin/queues/api/queues', operator)).status).toBe(200);

    const lines = await scrape();
    const requests = (labels: string) => sampleOf(lines, `rebuttal_http_requests_total{${labels}}`);
    expect(requests('method="GET",route="/v1/disputes/:id",status="404"')).toBe(2);
    expect(requests('method="GET",route="/v1/disputes/:id",status="401"')).toBe(1);
    expect(requests('method="GET",route="/v1/disputes",status="200"')).toBe(1);
    expect(requests('method="GET",route="unmatched",status="404"')).toBe(2);
    expect(requests('method="DELETE",route="/healthz",status="405"')).toBe(1);
    expect(requests('method="GET",route="/admin/queues",status="200"')).toBe(1);
    expect(
      sampleOf(lines, 'rebuttal_http_request_duration_seconds_count{method="GET",route="/v1/disputes/:id"}'),
    ).toBe(3);
    expect(
      sampleOf(
        lines,
        'rebuttal_http_request_duration_seconds_bucket{le="+Inf",method="GET",route="/v1/disputes/:id"}',
      ),
    ).toBe(3);
    expect(lines.filter((line) => line.includes('dp_metrics') || line.includes('no_such_thing'))).toEqual([]);
  });

  it('labels a method outside the usual ones `other`, so no caller can make series at will', async () => {
    for (const method of ['PROPFIND', 'MKCOL', 'PURGE']) {
      expect((await call(server.port, method, '/healthz')).status).toBe(405);
    }
    const lines = await scrape();
    expect(
      sampleOf(lines, 'rebuttal_http_requests_total{method="other",route="/healthz",status="405"}'),
    ).toBe(3);
    expect(lines.filter((line) => /PROPFIND|MKCOL|PURGE/.test(line))).toEqual([]);
  });

  it('counts a request whose client went away before the answer as `aborted`', async () => {
    // A route that answers only after its client has gone, as a submit waiting on a slow processor.
    const registry = new Registry();
    const app = express();
    app.use(requestMetrics(registry)({ routes: ['/v1/slow/:id'], mounts: [] }));
    app.get('/v1/slow/:id', (_req, res) => {
      setTimeout(() => res.end(), 2000);
    });
    const slow = await serve(app, { secure: true });
    servers.push(slow);
    await new Promise<void>((resolve) => {
      const req = request({
        host: '127.0.0.1',
        port: slow.port,
        path: '/v1/slow/1',
        rejectUnauthorized: false,
      });
      req.on('error', () => resolve());
      req.end();
      setTimeout(() => req.destroy(), 200);
    });
    const counted = async () =>
      (await registry.metrics())
        .split('\n')
        .filter((line) => line.startsWith('rebuttal_http_requests_total{'));
    await expect
      .poll(counted, { timeout: 10_000 })
      .toEqual(['rebuttal_http_requests_total{method="GET",route="/v1/slow/:id",status="aborted"} 1']);
  });
});

describe('queues', () => {
  it('report every state of the four queues from Redis, the added jobs waiting', async () => {
    try {
      for (let n = 0; n < 3; n++) await enqueue(api.queues, 'submit', { submissionId: newId('submission') });
      await enqueue(api.queues, 'submit', { submissionId: newId('submission') }, { delay: 600_000 });
      for (let n = 0; n < 2; n++) {
        await enqueue(api.queues, 'deliverWebhook', { deliveryId: newId('webhookDelivery') });
      }
      await enqueue(api.queues, 'pollAccount', { accountUid: crypto.randomUUID() });
      const added: Record<string, Partial<Record<string, number>>> = {
        submission: { waiting: 3, delayed: 1 },
        webhook: { waiting: 2 },
        mirror: { waiting: 1 },
        deadline: {},
      };

      const lines = await scrape();
      for (const queue of ['submission', 'webhook', 'mirror', 'deadline']) {
        for (const state of jobStates) {
          const count = added[queue]?.[state] ?? 0;
          expect(lines).toContain(`rebuttal_queue_jobs{queue="${queue}",state="${state}"} ${count}`);
        }
      }
      expect(lines.filter((line) => line.startsWith('rebuttal_queue_jobs{'))).toHaveLength(4 * 7);
    } finally {
      // Made-up ids: gone before any worker starts.
      for (const queue of queueNames) await api.queues.byName[queue].drain(true);
    }
  });
});

describe('outcomes', () => {
  let workers: RunningWorkers;
  beforeAll(async () => {
    workers = await startWorkers(api.engine, ['submission', 'webhook']);
  });
  afterAll(async () => {
    await workers.close(1000);
  });

  it('submissions by processor and outcome from Postgres, and their jobs by outcome from the queue events', async () => {
    const tenant = await newTenant(api);
    const accepted = await submittableDispute(api, tenant);
    const refused = await submittableDispute(api, tenant, { charge: 'ch_mock_refuse_metrics' });
    const submit = (id: string) => api.call('POST', `/v1/disputes/${id}/submit`, { key: tenant.key });
    expect((await submit(accepted.dispute.id)).status).toBe(201);
    expect((await submit(refused.dispute.id)).status).toBe(502);

    const lines = await scrape();
    expect(lines).toContain('rebuttal_submissions{processor="mock",outcome="pending"} 0');
    expect(lines).toContain('rebuttal_submissions{processor="mock",outcome="succeeded"} 1');
    expect(lines).toContain('rebuttal_submissions{processor="mock",outcome="failed"} 1');
    expect(lines.filter((line) => line.startsWith('rebuttal_submissions{'))).toHaveLength(3);

    // The events arrive through Redis, as they do from worker processes elsewhere.
    const outcomes = async () =>
      (await scrape()).filter((line) => line.startsWith('rebuttal_job_outcomes_total{queue="submission"'));
    await expect
      .poll(outcomes, { timeout: 5000 })
      .toEqual([
        'rebuttal_job_outcomes_total{queue="submission",outcome="completed"} 1',
        'rebuttal_job_outcomes_total{queue="submission",outcome="failed"} 1',
      ]);
  });

  it('webhook deliveries by outcome from Postgres', async () => {
    const tenant = await newTenant(api);
    const endpoint = await receivingEndpoint(api, tenant.key, { events: ['dispute.created'] });
    await createTestDispute(api, tenant.key);
    await endpoint.receiver.waitFor(1);
    const deliveries = async () =>
      (await scrape()).filter((line) => line.startsWith('rebuttal_webhook_deliveries{'));
    await expect
      .poll(deliveries, { timeout: 5000 })
      .toEqual([
        'rebuttal_webhook_deliveries{outcome="pending"} 0',
        'rebuttal_webhook_deliveries{outcome="succeeded"} 1',
        'rebuttal_webhook_deliveries{outcome="failed"} 0',
      ]);
    await endpoint.receiver.close();
  });
});

describe('connected accounts', () => {
  const connect = async (org: string, id: string) => {
    const { account } = await connectAccount(
      { db: api.deps.db, adapters: api.deps.adapters, scheduler: createQueueAccountScheduler(api.queues) },
      { org, mode: 'test', id, processor: 'mock' },
    );
    return account.uid;
  };

  it('mirror lag: seconds since the last successful poll of each active polled account', async () => {
    const { org } = await newTenant(api);
    const polled = await connect(org, 'polled');
    const fresh = await connect(org, 'fresh');
    const disabled = await connect(org, 'disabled');
    await updateAccount(
      { db: api.deps.db, adapters: api.deps.adapters, scheduler: createQueueAccountScheduler(api.queues) },
      { org, mode: 'test', id: 'disabled', status: 'disabled' },
    );
    await api.db.db
      .update(connectedAccounts)
      .set({ lastPolledAt: sql`now() - interval '120 seconds'` })
      .where(eq(connectedAccounts.uid, polled));

    const lines = await scrape();
    const lag = (uid: string) =>
      sampleOf(lines, `rebuttal_mirror_lag_seconds{account="${uid}",processor="mock"}`);
    expect(lag(polled)).toBeGreaterThanOrEqual(120);
    expect(lag(polled)).toBeLessThan(150);
    // Never polled: since it was connected, moments ago.
    expect(lag(fresh)).toBeGreaterThanOrEqual(0);
    expect(lag(fresh)).toBeLessThan(30);
    // A disabled account makes no calls: neither its lag nor its breaker is shown.
    expect(lines.filter((line) => line.includes(disabled))).toEqual([]);
  });

  it('circuit breakers: the state the guard keeps in Redis, per account', async () => {
    const { org } = await newTenant(api);
    const tripped = await connect(org, 'tripped');
    const cooled = await connect(org, 'cooled');
    const healthy = await connect(org, 'healthy');
    const guards = (cooldownMs: number) =>
      new AccountGuards(redis, api.config.QUEUE_PREFIX, logs.logger, { threshold: 2, cooldownMs });
    for (const [uid, cooldownMs] of [
      [tripped, 600_000],
      [cooled, 200],
    ] as const) {
      const guard = guards(cooldownMs).for('mock', uid, 100);
      await guard.record('failure');
      await guard.record('failure');
    }
    await guards(600_000).for('mock', healthy, 100).record('failure');

    const breaker = async (uid: string) =>
      (await scrape()).filter((line) => line.startsWith('rebuttal_circuit_breaker') && line.includes(uid));
    expect(await breaker(tripped)).toEqual([
      `rebuttal_circuit_breaker_state{account="${tripped}",processor="mock",state="closed"} 0`,
      `rebuttal_circuit_breaker_state{account="${tripped}",processor="mock",state="open"} 1`,
      `rebuttal_circuit_breaker_state{account="${tripped}",processor="mock",state="half_open"} 0`,
      `rebuttal_circuit_breaker_failures{account="${tripped}",processor="mock"} 2`,
    ]);
    expect(await breaker(healthy)).toEqual([
      `rebuttal_circuit_breaker_state{account="${healthy}",processor="mock",state="closed"} 1`,
      `rebuttal_circuit_breaker_state{account="${healthy}",processor="mock",state="open"} 0`,
      `rebuttal_circuit_breaker_state{account="${healthy}",processor="mock",state="half_open"} 0`,
      `rebuttal_circuit_breaker_failures{account="${healthy}",processor="mock"} 1`,
    ]);
    // Once the cooldown is over the next call is the probe: half open until it answers.
    await expect
      .poll(() => breaker(cooled), { timeout: 5000 })
      .toEqual([
        `rebuttal_circuit_breaker_state{account="${cooled}",processor="mock",state="closed"} 0`,
        `rebuttal_circuit_breaker_state{account="${cooled}",processor="mock",state="open"} 0`,
        `rebuttal_circuit_breaker_state{account="${cooled}",processor="mock",state="half_open"} 1`,
        `rebuttal_circuit_breaker_failures{account="${cooled}",processor="mock"} 2`,
      ]);
  });
});

describe('when Redis and Postgres are away', () => {
  it('the scrape still answers within two seconds, without their metrics, and says which collectors failed', async () => {
    const away = capturingLogger();
    const database = connectDatabase('postgres://postgres@127.0.0.1:1/nowhere', { max: 1 });
    const queues = openQueues({ redis: redisAt('redis://127.0.0.1:1'), prefix: api.config.QUEUE_PREFIX });
    for (const queue of Object.values(queues.byName)) {
      queue.on('error', () => {});
      // The producer connection the queues share reports every failed reconnection; this test expects them.
      (queue.opts.connection as RedisClient).on('error', () => {});
    }
    const deadRedis = connectRedis(redisAt('redis://127.0.0.1:1'), away.logger);
    try {
      const metrics = metricsFor(api.config, {
        db: database.db,
        // The event listeners stay on the live Redis: BullMQ's QueueEvents never finishes closing when it
        // never connected, and what is tested here are the scrape-time reads.
        queues: { ...queues, events: (queue) => api.queues.events(queue) },
        redis: deadRedis,
        logger: away.logger,
      });
      const running = await serve(createApp(api.deps, { metrics }), { secure: true });
      servers.push(running);
      const started = Date.now();
      // The sign-in guard cannot count without Redis: it lets the operator through.
      const lines = await scrape(running.port);
      expect(Date.now() - started).toBeLessThan(2000);
      for (const collector of [
        'queues',
        'submissions',
        'webhook_deliveries',
        'mirror_lag',
        'circuit_breakers',
      ]) {
        expect(lines).toContain(`rebuttal_metrics_collector_up{collector="${collector}"} 0`);
      }
      const fromSources = /^rebuttal_(queue_jobs|submissions|webhook_deliveries|mirror_lag|circuit_breaker)/;
      expect(lines.filter((line) => fromSources.test(line))).toEqual([]);
      expect(lines.filter((line) => /^process_cpu_user_seconds_total \d/.test(line))).toHaveLength(1);
      expect(away.text()).toContain('"collector":"submissions"');
      // A failure is told when it starts, not at every scrape while it lasts.
      await scrape(running.port);
      const told = away
        .text()
        .split('\n')
        .filter((line) => line.includes('metrics: a collector failed; its metrics are left out of scrapes'));
      expect(told).toHaveLength(5);
    } finally {
      deadRedis.disconnect();
      await queues.close();
      await database.close();
    }
  });
});
