import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { jobCatalog } from '../../src/jobs/catalog.js';
import { syncSchedules } from '../../src/jobs/schedules.js';
import { startTestApi, type TestApi } from '../helpers/api.js';

/** The schedulers in Redis follow what the code and Postgres ask for, and only differences are written. */
let api: TestApi;
beforeAll(async () => {
  api = await startTestApi({ workers: [] });
});
afterAll(async () => {
  await api.close();
});

const settings = { deadlineSweepMs: 300_000, relaySweepMs: 30_000 };

describe('syncSchedules', () => {
  it('creates the fixed schedulers, then writes nothing while they match', async () => {
    await syncSchedules(api.db.db, api.queues, settings);
    const sweep = await api.queues.byName.deadline.getJobScheduler('deadline-sweep');
    expect(sweep).toMatchObject({ every: 300_000, name: 'sweepDeadlines' });
    expect(await api.queues.byName.webhook.getJobScheduler('outbox-relay')).toMatchObject({
      every: 30_000,
      name: 'relayEvents',
    });

    const upserts = [
      vi.spyOn(api.queues.byName.deadline, 'upsertJobScheduler'),
      vi.spyOn(api.queues.byName.webhook, 'upsertJobScheduler'),
    ];
    try {
      await syncSchedules(api.db.db, api.queues, settings);
      for (const upsert of upserts) expect(upsert).not.toHaveBeenCalled();
    } finally {
      for (const upsert of upserts) upsert.mockRestore();
    }
  });

  it('brings back an interval or a retry policy that differs from the code', async () => {
    await api.queues.byName.deadline.upsertJobScheduler(
      'deadline-sweep',
      { every: 5_000 },
      { name: 'sweepDeadlines', data: {}, opts: { attempts: 9 } },
    );
    await syncSchedules(api.db.db, api.queues, settings);
    const sweep = await api.queues.byName.deadline.getJobScheduler('deadline-sweep');
    expect(sweep?.every).toBe(300_000);
    expect(sweep?.template?.opts?.attempts).toBe(jobCatalog.sweepDeadlines.options.attempts);
  });
});
