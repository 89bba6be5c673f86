import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import {
  authInvalidationChannel,
  hashApiKey,
  keyInvalidation,
} from '../../src/features/organisations/api-keys.js';
import { createLogger } from '../../src/logger.js';
import { startService } from '../../src/service.js';
import { startTestApi, type TestApi } from '../helpers/api.js';
import { runCli } from '../helpers/cli.js';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';
import { newTenant, orderTemplate, requiredParams, type Tenant } from '../helpers/disputes.js';
import { exerciseEngine, exerciseSettings } from '../helpers/engine-exercise.js';
import { type PgBouncer, startPgBouncer } from '../helpers/pgbouncer.js';
import { storesOf } from '../helpers/processes.js';
import { dropKeys, redisUrl, testRedisPrefix } from '../helpers/services.js';

/**
 * The service behind PgBouncer in transaction mode (issue 17, docs/operations.md "Behind a pooler"), with
 * a pool of four server connections for eight concurrent clients: every acknowledged write is stored, no
 * request fails or hangs, no transaction is left open, and notifications work through DATABASE_DIRECT_URL,
 * or are polled for, said once at start, without it.
 */
let pooler: PgBouncer;
beforeAll(async () => {
  pooler = await startPgBouncer({ poolSize: 4 });
});
afterAll(async () => {
  await pooler?.close();
});

/** The bound on any one request under the load. */
const requestBoundMs = 15_000;

interface Sent {
  op: 'create' | 'update' | 'list' | 'submit';
  id?: string;
  note?: string;
  status: number;
  ms: number;
  text: string;
}

const expectedStatus = { create: 201, update: 200, list: 200, submit: 202 } as const;

/**
 * Eight clients at once, each creating a dispute, updating it, listing, and submitting every other one,
 * `rounds` times. Each dispute is only ever written by the client that made it, so what each write's
 * answer acknowledged is what the database must hold afterwards.
 */
async function load(api: TestApi, tenant: Tenant, template: string, rounds: number) {
  const sent: Sent[] = [];
  const call = async (
    entry: Omit<Sent, 'status' | 'ms' | 'text'>,
    method: string,
    path: string,
    json?: object,
  ) => {
    const started = performance.now();
    const response = await api.call(method, path, { key: tenant.key, ...(json && { json }) });
    sent.push({ ...entry, status: response.status, ms: performance.now() - started, text: response.text });
    return response.status === expectedStatus[entry.op];
  };
  const started = performance.now();
  await Promise.all(
    Array.from({ length: 8 }, async (_, lane) => {
      for (let round = 0; round < rounds; round++) {
        const params = requiredParams({ template, fields: { order_id: `A-${lane}-${round}` } });
        const id = params.id as string;
        if (!(await call({ op: 'create', id }, 'POST', '/v1/disputes', params))) continue;
        const note = `lane ${lane} round ${round}`;
        await call({ op: 'update', id, note }, 'PUT', `/v1/disputes/${id}`, { fields: { note } });
        await call({ op: 'list' }, 'GET', '/v1/disputes', undefined);
        if (round % 2 === 0) await call({ op: 'submit', id }, 'POST', `/v1/disputes/${id}/submit`, {});
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  const latencies = sent.map((entry) => entry.ms).sort((a, b) => a - b);
  const figures = {
    requests: sent.length,
    perSecond: Math.round(sent.length / seconds),
    p99Ms: Math.round(latencies[Math.floor(latencies.length * 0.99)] ?? 0),
    maxMs: Math.round(latencies.at(-1) ?? 0),
  };
  console.log('load behind the pooler', figures);
  return { sent, figures };
}

/** What the load's answers acknowledged is in the database, read on a direct connection. */
async function expectAcknowledgedStored(api: TestApi, tenant: Tenant, sent: Sent[]): Promise<void> {
  const rows = await api.db.sql<{ id: string; note: string | null }[]>`
    select id, fields->>'note' as note from disputes where org_id = ${tenant.org} and not livemode`;
  const stored = new Map(rows.map((row) => [row.id, row.note]));
  const created = sent
    .filter((entry) => entry.op === 'create' && entry.status === 201)
    .map((entry) => entry.id as string);
  expect(created.filter((id) => !stored.has(id))).toEqual([]);
  const updates = sent.filter((entry) => entry.op === 'update' && entry.status === 200);
  expect(updates.filter((entry) => stored.get(entry.id as string) !== entry.note)).toEqual([]);
  // Then every answer was the one expected (no 5xx), within the bound.
  const unexpected = sent.filter((entry) => entry.status !== expectedStatus[entry.op]);
  expect(unexpected.map(({ op, status, text }) => ({ op, status, text }))).toEqual([]);
  expect(Math.max(...sent.map((entry) => entry.ms))).toBeLessThan(requestBoundMs);

  // Each submit accepted (202) is carried out, once.
  const submitted = sent
    .filter((entry) => entry.op === 'submit' && entry.status === 202)
    .map((entry) => entry.id as string);
  await expect
    .poll(
      async () => {
        const states = await api.db.sql<{ id: string; state: string; submitted_count: number }[]>`
          select id, state, submitted_count from disputes
          where org_id = ${tenant.org} and not livemode and id = any(${submitted})`;
        return states
          .filter((row) => row.state !== 'submitted' || row.submitted_count !== 1)
          .map((row) => row.id);
      },
      { timeout: 30_000 },
    )
    .toEqual([]);
}

/** Server connections of the test database left inside a transaction (aborted or not). */
async function openTransactions(api: TestApi): Promise<string[]> {
  const rows = await api.db.sql<{ state: string }[]>`
    select state from pg_stat_activity
    where datname = current_database() and state like 'idle in transaction%'`;
  return rows.map((row) => row.state);
}

/**
 * No transaction is left open once the load is over. The service's own work goes on meanwhile (the
 * submissions the load made are sent, their webhooks relayed), and a transaction of it may be caught
 * between two statements: one that is merely running ends within moments, one left open never does.
 */
async function expectNoTransactionLeft(api: TestApi): Promise<void> {
  await expect.poll(() => openTransactions(api), { timeout: 5_000, interval: 100 }).toEqual([]);
}

/**
 * A key cached by the service, revoked elsewhere (another process: the row and its notification, on a
 * direct connection), is refused: how long that took.
 */
async function refusalAfterRevocation(api: TestApi): Promise<number> {
  const tenant = await newTenant(api);
  expect((await api.call('GET', '/v1/disputes', { key: tenant.key })).status).toBe(200);
  const hash = hashApiKey(tenant.key);
  const started = Date.now();
  await api.db.sql`update api_keys set revoked_at = now() where hash = ${hash}`;
  await api.db.sql`select pg_notify(${authInvalidationChannel}, ${keyInvalidation(hash)})`;
  await expect
    .poll(async () => (await api.call('GET', '/v1/disputes', { key: tenant.key })).status, {
      timeout: 10_000,
      interval: 50,
    })
    .toBe(401);
  return Date.now() - started;
}

/** The CLI as on-call runs it beside the service: on the service's own database settings, the pooler's. */
async function expectCliWorks(api: TestApi): Promise<void> {
  const name = `Pooled ${Date.now()}`;
  const created = await runCli(['org', 'create', '--name', name, '--json'], {
    ...storesOf(api),
    DATABASE_URL: api.config.DATABASE_URL ?? '',
    DATABASE_DIRECT_URL: api.config.DATABASE_DIRECT_URL ?? '',
  });
  expect(created.code, created.stderr).toBe(0);
  const { org } = JSON.parse(created.stdout) as { org: string };
  const [stored] = await api.db.sql`select name from organisations where id = ${org}`;
  expect(stored).toEqual({ name });
}

describe('behind PgBouncer with DATABASE_DIRECT_URL', () => {
  let api: TestApi;
  let tenant: Tenant;
  let template: string;
  beforeAll(async () => {
    api = await startTestApi({
      databaseUrl: (url) => pooler.via(url),
      directDatabase: true,
      env: exerciseSettings,
    });
    tenant = await newTenant(api);
    template = await orderTemplate(api, tenant.key);
  });
  afterAll(async () => {
    await api?.close();
  });

  it('answers every request of a concurrent load as it should, in time, and stores every write it acknowledged', async () => {
    const { sent } = await load(api, tenant, template, 10);
    await expectAcknowledgedStored(api, tenant, sent);
    await expectNoTransactionLeft(api);
  }, 120_000);

  it('runs the engine: queued submissions exactly once, webhooks within seconds, Bull Board, rate limits', async () => {
    const figures = await exerciseEngine(api, { withinMs: 15_000 });
    console.log('engine behind the pooler, direct URL', figures);
  }, 90_000);

  it('refuses a key revoked by another process within seconds (LISTEN on the direct URL)', async () => {
    const ms = await refusalAfterRevocation(api);
    console.log('revoked key refused after', ms, 'ms (direct URL)');
    expect(ms).toBeLessThan(5000);
  });

  it('runs a CLI command', async () => {
    await expectCliWorks(api);
  }, 60_000);
});

describe('behind PgBouncer without DATABASE_DIRECT_URL', () => {
  let api: TestApi;
  let tenant: Tenant;
  let template: string;
  const lines: { level: number; msg: string; pollSeconds?: number }[] = [];
  beforeAll(async () => {
    const sink = new Writable({
      write(chunk: Buffer, _encoding, done) {
        for (const line of chunk.toString('utf8').split('\n').filter(Boolean)) lines.push(JSON.parse(line));
        done();
      },
    });
    api = await startTestApi({
      databaseUrl: (url) => pooler.via(url),
      env: exerciseSettings,
      logger: createLogger('warn', sink),
    });
    tenant = await newTenant(api);
    template = await orderTemplate(api, tenant.key);
  });
  afterAll(async () => {
    await api?.close();
  });

  it('says once at start that notifications are polled for, and how often', () => {
    expect(lines.filter(({ msg }) => msg.startsWith('Postgres notifications'))).toEqual([
      {
        level: 40,
        pollSeconds: 2,
        msg: 'Postgres notifications do not arrive through DATABASE_URL (a transaction-mode pooler?) and DATABASE_DIRECT_URL is unset: the outbox relay and the API key cache poll instead, so webhooks may leave and a revoked key may work up to pollSeconds later; set DATABASE_DIRECT_URL to the database itself',
        service: 'rebuttal',
        time: expect.any(Number),
      },
    ]);
  });

  it('answers a concurrent load as it should and stores every write it acknowledged', async () => {
    const { sent } = await load(api, tenant, template, 6);
    await expectAcknowledgedStored(api, tenant, sent);
    await expectNoTransactionLeft(api);
  }, 120_000);

  it('runs the engine, webhooks within seconds of polling', async () => {
    const figures = await exerciseEngine(api, { withinMs: 15_000 });
    console.log('engine behind the pooler, polling', figures);
  }, 90_000);

  it('runs a CLI command, which sends unnamed statements without probing', async () => {
    await expectCliWorks(api);
  }, 60_000);

  it('adds no relay job while no event waits, however often it polls', async () => {
    const relayJobs = async () =>
      (await api.queues.byName.webhook.getJobs(['completed', 'waiting', 'active', 'delayed']))
        .filter((job) => job.name === 'relayEvents' && !job.id?.startsWith('repeat:'))
        .map((job) => job.id);
    await expect
      .poll(async () => (await api.db.sql`select 1 from events where relayed_at is null`).length, {
        timeout: 10_000,
      })
      .toBe(0);
    const before = await relayJobs();
    await new Promise((resolve) => setTimeout(resolve, 5000));
    expect(await relayJobs()).toEqual(before);
  });

  it('refuses a key revoked by another process within the polling interval and a little', async () => {
    const ms = await refusalAfterRevocation(api);
    console.log('revoked key refused after', ms, 'ms (polling)');
    expect(ms).toBeLessThan(5000);
  });

  it('with the pooler hung, answers 503 unavailable with Retry-After within the bound, not a hang', async () => {
    pooler.pause();
    try {
      const started = Date.now();
      const response = await api.call('GET', '/v1/disputes', { key: tenant.key });
      expect({
        status: response.status,
        retryAfter: response.headers['retry-after'],
        body: response.body,
      }).toEqual({
        status: 503,
        retryAfter: '2',
        body: {
          url: '/v1/disputes',
          livemode: false,
          error: {
            status: 503,
            type: 'unavailable',
            message:
              'The service could not reach its database, or it did not answer in time; try again shortly.',
          },
        },
      });
      expect(Date.now() - started).toBeLessThan(3000);
    } finally {
      pooler.resume();
    }
  });
});

describe('a service stopping while the pooler hangs', () => {
  let db: TestDatabase;
  let dataDir: string;
  const prefix = testRedisPrefix();
  beforeAll(async () => {
    db = await createTestDatabase();
    dataDir = await mkdtemp(join(tmpdir(), 'rebuttal-pgbouncer-'));
  });
  afterAll(async () => {
    pooler.resume();
    await dropKeys(redisUrl, prefix);
    await db?.drop();
    await rm(dataDir, { recursive: true, force: true });
  });

  it('stops within SHUTDOWN_GRACE_SECONDS and a second or two, its database connections cut off', async () => {
    const service = await startService(
      loadConfig({
        DATABASE_URL: pooler.via(db.url),
        REDIS_URL: redisUrl,
        QUEUE_PREFIX: prefix,
        APP_SECRET: 'test-app-secret-of-at-least-32-characters',
        DATA_DIR: dataDir,
        PORT: '0',
        SHUTDOWN_GRACE_SECONDS: '3',
        // What a hung pooler costs a stop, without the load balancer's drain before it.
        SHUTDOWN_DRAIN_SECONDS: '0',
      }),
      createLogger('silent'),
    );
    pooler.pause();
    const closing = Date.now();
    await service.close();
    const ms = Date.now() - closing;
    console.log('service stopped with the pooler hung in', ms, 'ms');
    expect(ms).toBeLessThan(5000);
  }, 60_000);
});
