import { type ChildProcess, spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sweepDeadlines } from '../../src/features/disputes/deadline-sweep.js';
import { syncSchedules } from '../../src/jobs/schedules.js';
import { startWorkers } from '../../src/jobs/workers/engine.js';
import { startTestApi, type TestApi } from '../helpers/api.js';
import {
  getDispute,
  newTenant,
  readStored,
  submittableDispute,
  type Tenant,
  writeStored,
} from '../helpers/disputes.js';

/**
 * Redis loses everything (FLUSHALL) while disputes wait in the queue. Postgres is the truth: a sweep puts
 * every queued dispute's job back, and the workers then submit them. This file runs a Redis server of
 * its own, so flushing it touches no other test file's keys.
 */
let redisServer: ChildProcess;
let url: string;
let api: TestApi;
let tenant: Tenant;

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

beforeAll(async () => {
  const port = await freePort();
  redisServer = spawn(
    'redis-server',
    ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
    {
      stdio: 'ignore',
    },
  );
  url = `redis://127.0.0.1:${port}`;
  const probe = new Redis(url, { maxRetriesPerRequest: null, retryStrategy: () => 100 });
  probe.on('error', () => {});
  await probe.ping();
  probe.disconnect();
  api = await startTestApi({ workers: [], env: { REDIS_URL: url } });
  tenant = await newTenant(api);
});
afterAll(async () => {
  await api?.close();
  redisServer?.kill();
});

const lead = 24 * 3_600_000;

describe('after FLUSHALL', () => {
  it('a sweep re-enqueues every queued dispute, the schedulers come back, and the workers submit them', async () => {
    const uids: string[] = [];
    for (let n = 0; n < 5; n++) {
      const { dispute } = await submittableDispute(api, tenant);
      await writeStored(api, tenant, dispute.id, { dueBy: new Date(Date.now() + lead + 1500) });
      await api.call('POST', `/v1/disputes/${dispute.id}/submit`, { key: tenant.key, json: { queue: true } });
      uids.push((await readStored(api, tenant, dispute.id)).uid);
    }
    const queuedJobs = async () =>
      (await api.queues.byName.submission.getJobs(['delayed', 'waiting', 'prioritized'])).filter((job) =>
        uids.some((uid) => job.id?.startsWith(`queued-${uid}`)),
      );
    expect(await queuedJobs()).toHaveLength(5);

    const redis = new Redis(url);
    await redis.flushall();
    redis.disconnect();
    expect(await queuedJobs()).toHaveLength(0);

    const report = await sweepDeadlines({
      db: api.db.db,
      submitter: api.deps.submitter,
      removals: api.deps.removals,
      dueSoonMs: 48 * 3_600_000,
      lookaheadMs: 300_000,
      unattendedAfterMs: 60_000,
    });
    expect(report.queued).toBe(5);
    expect(await queuedJobs()).toHaveLength(5);
    await syncSchedules(api.db.db, api.queues, { deadlineSweepMs: 300_000, relaySweepMs: 30_000 });
    expect(await api.queues.byName.deadline.getJobScheduler('deadline-sweep')).toBeDefined();

    const workers = await startWorkers(api.engine, ['submission']);
    try {
      const ids = await Promise.all(
        uids.map(
          async (uid) =>
            (await api.db.sql<{ id: string }[]>`select id from disputes where uid = ${uid}`)[0]?.id ?? '',
        ),
      );
      await expect
        .poll(
          async () =>
            (await Promise.all(ids.map(async (id) => (await getDispute(api, tenant.key, id)).state))).join(),
          {
            timeout: 15_000,
          },
        )
        .toBe(Array(5).fill('submitted').join());
    } finally {
      await workers.close(1000);
    }
  });
});
