import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { jobCatalog, openQueues, type Queues } from '../../src/jobs/catalog.js';
import { syncSchedules } from '../../src/jobs/schedules.js';
import { redisAt } from '../../src/redis-connection.js';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';
import { dropKeys, redisUrl, testRedisPrefix } from '../helpers/services.js';

/** The schedulers in Redis follow what the code and Postgres ask for, and only differences are written. */
const prefix = testRedisPrefix();
let db: TestDatabase;
let queues: Queues;
beforeAll(async () => {
  db = await createTestDatabase();
  queues = openQueues({ redis: redisAt(redisUrl), prefix });
});
afterAll(async () => {
  await queues.close();
  await dropKeys(redisUrl, prefix);
  await db.drop();
});

const settings = { deadlineSweepMs: 300_000, relaySweepMs: 30_000 };

describe('syncSchedules', () => {
  it('creates the fixed schedulers, then writes nothing while they match', async () => {
    await syncSchedules(db.db, queues, settings);
    const sweep = await queues.byName.deadline.getJobScheduler('deadline-sweep');
    expect(sweep).toMatchObject({ every: 300_000, name: 'sweepDeadlines' });
    expect(await queues.byName.webhook.getJobScheduler('outbox-relay')).toMatchObject({
      every: 30_000,
      name: 'relayEvents',
    });
    expect(await queues.byName.deadline.getJobScheduler('idempotency-sweep')).toMatchObject({
      every: 3_600_000,
      name: 'sweepIdempotencyKeys',
    });
    expect(await queues.byName.deadline.getJobScheduler('alert-refund-sweep')).toMatchObject({
      every: 300_000,
      name: 'sweepAlertRefunds',
    });

    const upserts = [
      vi.spyOn(queues.byName.deadline, 'upsertJobScheduler'),
      vi.spyOn(queues.byName.webhook, 'upsertJobScheduler'),
    ];
    try {
      await syncSchedules(db.db, queues, settings);
      for (const upsert of upserts) expect(upsert).not.toHaveBeenCalled();
    } finally {
      for (const upsert of upserts) upsert.mockRestore();
    }
  });

  it('brings back an interval or a retry policy that differs from the code', async () => {
    await queues.byName.deadline.upsertJobScheduler(
      'deadline-sweep',
      { every: 5_000 },
      { name: 'sweepDeadlines', data: {}, opts: { attempts: 9 } },
    );
    await syncSchedules(db.db, queues, settings);
    const sweep = await queues.byName.deadline.getJobScheduler('deadline-sweep');
    expect(sweep?.every).toBe(300_000);
    expect(sweep?.template?.opts?.attempts).toBe(jobCatalog.sweepDeadlines.options.attempts);
  });
});
