import { eq, gte } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { events } from '../../src/db/schema/events.js';
import { webhookDeliveries } from '../../src/db/schema/webhooks.js';
import { type FakeMockProcessor, startFakeMockProcessor } from '../fakes/mock-processor.js';
import { startTestApi, type TestApi } from '../helpers/api.js';
import { cliOf } from '../helpers/cli.js';
import { exerciseEngine, exerciseSettings } from '../helpers/engine-exercise.js';
import { logLines, startWorkerProcess, storesOf, type WorkerProcess } from '../helpers/processes.js';
import { type Failover, type SentinelGroup, sentinelGroup } from '../helpers/redis-sentinel.js';

/**
 * The service on a Sentinel-managed Redis (REDIS_SENTINELS), with passwords on the data nodes and on the
 * sentinels, as a managed Sentinel has them: the web part in this process, the workers in a process of
 * their own as the Procfile runs them, sharing the mock processor over HTTP so every call is counted, and
 * the CLI.
 */
let group: SentinelGroup;
let api: TestApi;
let processor: FakeMockProcessor;
let worker: WorkerProcess;

beforeAll(async () => {
  group = await sentinelGroup({ password: 'data-node-password', sentinelPassword: 'sentinel-password' });
  api = await startTestApi({
    workers: [],
    env: {
      ...exerciseSettings,
      REDIS_SENTINELS: group.sentinels,
      REDIS_SENTINEL_NAME: group.name,
      REDIS_PASSWORD: 'data-node-password',
      REDIS_SENTINEL_PASSWORD: 'sentinel-password',
    },
  });
  processor = await startFakeMockProcessor();
  worker = await startWorkerProcess({
    ...storesOf(api),
    MOCK_PROCESSOR_URL: processor.url,
    WEBHOOK_ALLOW_PRIVATE: 'true',
    // Two at a time, each held at the processor: the 50 submissions are still going out when the
    // master changes, and their webhooks after them.
    SUBMISSION_CONCURRENCY: '2',
    // The default: a job whose end the old master lost looks active this long.
    JOB_LOCK_SECONDS: '30',
    DEADLINE_SWEEP_SECONDS: '3600',
  });
});
afterAll(async () => {
  worker?.child.kill('SIGKILL');
  await processor?.close();
  await api?.close();
  await group?.close();
});

/** Submissions the processor accepted for one dispute. */
function accepted(id: string): number {
  return [...processor.desk.accepted.values()].filter((recorded) => recorded.request.dispute.id === id)
    .length;
}

describe('the service on Sentinel', () => {
  it('runs the engine round: queued submissions once, webhooks, Bull Board, rate limits', async () => {
    const calls = processor.desk.calls;
    const figures = await exerciseEngine(api, { acceptedFor: accepted });
    expect(processor.desk.calls - calls).toBe(figures.submissions);
    expect(logLines(worker, /master changed/)).toEqual([]);
  });

  it('through two failovers under 50 submissions: each sent exactly once, every webhook delivered, one log line per master change', async () => {
    processor.delayMs = 600;
    const since = new Date();
    const calls = processor.desk.calls;
    const failovers: Array<Failover & { began: number; callsBefore: number }> = [];
    const failover = async () => {
      const began = Date.now();
      const callsBefore = processor.desk.calls - calls;
      failovers.push({ ...(await group.failover()), began, callsBefore });
    };
    const figures = await exerciseEngine(api, {
      disputes: 25,
      acceptedFor: accepted,
      withinMs: 60_000,
      meanwhile: async () => {
        await failover();
        await failover();
      },
    });

    expect(figures.submissions).toBe(50);
    // Sent once each: the processor counted 50 calls in all (repeats of one key included).
    expect(processor.desk.calls - calls).toBe(50);
    for (const { callsBefore } of failovers) expect(callsBefore).toBeLessThan(50);
    // Every webhook of the round delivered; a repeat would be allowed (at least once, docs/api.md).
    const deliveries = await api.db.db
      .select({
        status: webhookDeliveries.status,
        event: events.createdAt,
        done: webhookDeliveries.completedAt,
      })
      .from(webhookDeliveries)
      .innerJoin(events, eq(events.id, webhookDeliveries.eventId))
      .where(gte(webhookDeliveries.createdAt, since));
    expect(deliveries.map(({ status }) => status)).toEqual(Array(50).fill('succeeded'));
    const changes = logLines(worker, /master changed/);
    expect(changes).toEqual(
      failovers.map(({ from, to }) =>
        expect.objectContaining({ level: 40, from: `127.0.0.1:${from}`, to: `127.0.0.1:${to}` }),
      ),
    );

    // The figures docs/operations.md "Scaling out" quotes.
    const slowestWebhookMs = Math.max(
      ...deliveries.map(({ event, done }) => (done?.getTime() ?? 0) - event.getTime()),
    );
    const seen = failovers.map(({ began }, n) => (changes[n]?.time as number) - began);
    console.log(
      `Sentinel: failovers settled in ${failovers.map(({ ms }) => ms).join(', ')} ms, the service on the new master after ${seen.join(', ')} ms; ` +
        `50 of 50 submissions sent once, settled ${figures.settledMs} ms after the last request; slowest webhook ${slowestWebhookMs} ms after its event`,
    );
    // Within seconds, not a job lock later: a failover restarts the relay (src/jobs/workers/webhook.ts).
    expect(slowestWebhookMs).toBeLessThan(10_000);
  }, 120_000);

  it('a CLI command reads the queues on the master the sentinels name', async () => {
    const later = await api.queues.byName.deadline.add(
      'sweepDeadlines',
      {},
      { jobId: `sentinel-delayed-${Date.now()}`, delay: 3600_000 },
    );
    const listed = await cliOf(api)('jobs', 'list', '--queue', 'deadline', '--state', 'delayed', '--json');
    expect(listed.code, listed.stderr).toBe(0);
    // Beside the worker process's own schedule of the sweep.
    expect(JSON.parse(listed.stdout)).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ id: later.id, name: 'sweepDeadlines', state: 'delayed', attempts: 0 }),
      ]),
    );
  });
});
