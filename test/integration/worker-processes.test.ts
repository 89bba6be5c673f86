import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type FakeMockProcessor, startFakeMockProcessor } from '../fakes/mock-processor.js';
import { startTestApi, type TestApi } from '../helpers/api.js';
import { getDispute, newTenant, submittableDispute, type Tenant, writeStored } from '../helpers/disputes.js';
import { logLines, startWorkerProcess, storesOf, type WorkerProcess } from '../helpers/processes.js';

/**
 * Worker processes as the Procfile runs them, sharing one mock processor over HTTP: killed mid-call,
 * stopped with SIGTERM, and two at once on the same queues. The API runs in this process without
 * workers of its own.
 */
let api: TestApi;
let tenant: Tenant;
let processor: FakeMockProcessor;
const running: WorkerProcess[] = [];

beforeAll(async () => {
  api = await startTestApi({ workers: [], env: { SUBMIT_WAIT_MS: '200' } });
  tenant = await newTenant(api);
  processor = await startFakeMockProcessor();
});
afterEach(() => {
  for (const worker of running.splice(0)) worker.child.kill('SIGKILL');
  processor.delayMs = 0;
});
afterAll(async () => {
  await processor.close();
  await api.close();
});

async function worker(graceSeconds = 10): Promise<WorkerProcess> {
  const started = await startWorkerProcess({
    ...storesOf(api),
    MOCK_PROCESSOR_URL: processor.url,
    WORKERS: 'submission',
    JOB_LOCK_SECONDS: '2',
    DEADLINE_SWEEP_SECONDS: '3600',
    SHUTDOWN_GRACE_SECONDS: String(graceSeconds),
  });
  running.push(started);
  return started;
}

/** What the processor holds for one dispute: accepted submissions, and calls received. */
function atProcessor(id: string) {
  return [...processor.desk.accepted.values()].filter((recorded) => recorded.request.dispute.id === id);
}

async function submitInBackground(id: string) {
  const response = await api.call('POST', `/v1/disputes/${id}/submit`, { key: tenant.key });
  expect(response.status, response.text).toBe(202);
  expect(response.body).toMatchObject({ state: 'compiling_evidence' });
}

describe('a worker process', () => {
  it('killed with SIGKILL mid-submission: after recovery the processor holds exactly one submission', async () => {
    const { dispute } = await submittableDispute(api, tenant);
    const doomed = await worker();
    processor.delayMs = 2000;
    await submitInBackground(dispute.id);
    await expect.poll(() => processor.inFlight, { timeout: 10_000 }).toBe(1);
    doomed.child.kill('SIGKILL');
    expect(await doomed.exited).toBeNull();

    processor.delayMs = 0;
    await worker();
    await expect
      .poll(async () => (await getDispute(api, tenant.key, dispute.id)).state, { timeout: 20_000 })
      .toBe('submitted');
    expect(atProcessor(dispute.id)).toHaveLength(1);
    expect((await getDispute(api, tenant.key, dispute.id)).submitted_count).toBe(1);
  });

  it('stopped with SIGTERM finishes its in-flight submission and exits 0', async () => {
    const { dispute } = await submittableDispute(api, tenant);
    const stopping = await worker();
    processor.delayMs = 1500;
    await submitInBackground(dispute.id);
    await expect.poll(() => processor.inFlight, { timeout: 10_000 }).toBe(1);
    const calls = processor.desk.calls;
    stopping.child.kill('SIGTERM');

    expect(await stopping.exited, stopping.output()).toBe(0);
    expect(stopping.output()).toContain('stopped');
    expect((await getDispute(api, tenant.key, dispute.id)).state).toBe('submitted');
    // The one call under way when the signal came (the fake counts it once answered), and no other.
    expect(processor.desk.calls).toBe(calls + 1);
    expect(atProcessor(dispute.id)).toHaveLength(1);
  });

  it('stopped with SIGTERM during a call longer than its grace exits when the grace ends; another worker finishes the job once', async () => {
    const { dispute } = await submittableDispute(api, tenant);
    const stopping = await worker(1);
    // Far longer than the grace: the call is still under way when the process must be gone.
    processor.delayMs = 20_000;
    await submitInBackground(dispute.id);
    await expect.poll(() => processor.inFlight, { timeout: 10_000 }).toBe(1);
    stopping.child.kill('SIGTERM');

    expect(await stopping.exited, stopping.output()).toBe(0);
    expect(processor.inFlight).toBe(1);
    expect(logLines(stopping, /grace period/)).toEqual([
      expect.objectContaining({ level: 40, graceMs: 1000 }),
    ]);
    // The job's lock lapses with its process; stall recovery gives it to the next worker.
    processor.delayMs = 0;
    await worker();
    await expect
      .poll(async () => (await getDispute(api, tenant.key, dispute.id)).state, { timeout: 30_000 })
      .toBe('submitted');
    expect(atProcessor(dispute.id)).toHaveLength(1);
    expect((await getDispute(api, tenant.key, dispute.id)).submitted_count).toBe(1);
  }, 60_000);
});

describe('two worker processes on the same queues', () => {
  it('submit each of 20 queued disputes exactly once, with no second call', async () => {
    await Promise.all([worker(), worker()]);
    processor.delayMs = 20;
    const calls = processor.desk.calls;
    const ids: string[] = [];
    for (let n = 0; n < 20; n++) {
      const { dispute } = await submittableDispute(api, tenant);
      // Due now: the queue lead has passed, so each goes out at once.
      await writeStored(api, tenant, dispute.id, { dueBy: new Date(Date.now() + 3_600_000) });
      const queued = await api.call('POST', `/v1/disputes/${dispute.id}/submit`, {
        key: tenant.key,
        json: { queue: true },
      });
      expect(queued.body).toMatchObject({ state: 'queued' });
      ids.push(dispute.id);
    }
    await expect
      .poll(
        async () => {
          const states = await Promise.all(
            ids.map(async (id) => (await getDispute(api, tenant.key, id)).state),
          );
          return states.filter((state) => state === 'submitted').length;
        },
        { timeout: 20_000 },
      )
      .toBe(20);
    for (const id of ids) expect(atProcessor(id)).toHaveLength(1);
    expect(processor.desk.calls - calls).toBe(20);
  });
});
