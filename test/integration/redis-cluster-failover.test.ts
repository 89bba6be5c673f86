import { eq, gte } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { events } from '../../src/db/schema/events.js';
import { webhookDeliveries } from '../../src/db/schema/webhooks.js';
import { type FakeMockProcessor, startFakeMockProcessor } from '../fakes/mock-processor.js';
import { startTestApi, type TestApi } from '../helpers/api.js';
import { exerciseEngine, exerciseSettings } from '../helpers/engine-exercise.js';
import { logLines, startWorkerProcess, storesOf, type WorkerProcess } from '../helpers/processes.js';
import { type RedisClusterRig, startRedisCluster } from '../helpers/redis-cluster.js';

/**
 * The service on a Redis Cluster with a replica a master (six nodes) through a failover: the web part in
 * this process, the workers in a process of their own sharing the mock processor over HTTP, so every call
 * is counted. The cluster client stays ready through it; the watch tells it from the slots it refreshes
 * (src/redis-watch.ts) and restarts the outbox relay, as on Sentinel.
 */
let cluster: RedisClusterRig;
let api: TestApi;
let processor: FakeMockProcessor;
let worker: WorkerProcess;

beforeAll(async () => {
  cluster = await startRedisCluster({ replicas: 1 });
  api = await startTestApi({ workers: [], env: { REDIS_CLUSTER_NODES: cluster.nodes, ...exerciseSettings } });
  processor = await startFakeMockProcessor();
  worker = await startWorkerProcess({
    ...storesOf(api),
    MOCK_PROCESSOR_URL: processor.url,
    WEBHOOK_ALLOW_PRIVATE: 'true',
    // Two at a time, each held at the processor: submissions are still going out when the master changes.
    SUBMISSION_CONCURRENCY: '2',
    // The default: a job whose end the old master lost looks active this long.
    JOB_LOCK_SECONDS: '30',
    DEADLINE_SWEEP_SECONDS: '3600',
  });
}, 60_000);
afterAll(async () => {
  worker?.child.kill('SIGKILL');
  await processor?.close();
  await api?.close();
  await cluster?.stop();
});

/** Submissions the processor accepted for one dispute. */
function accepted(id: string): number {
  return [...processor.desk.accepted.values()].filter((recorded) => recorded.request.dispute.id === id)
    .length;
}

describe('the service on a Redis Cluster with replicas', () => {
  it('through a failover under 20 submissions: each sent exactly once, webhooks delivered, one log line', async () => {
    expect(logLines(worker, /Redis Cluster masters changed/)).toEqual([]);
    processor.delayMs = 300;
    const since = new Date();
    const calls = processor.desk.calls;
    let failover: { from: number; to: number; ms: number; began: number; callsBefore: number } | undefined;
    const figures = await exerciseEngine(api, {
      acceptedFor: accepted,
      withinMs: 30_000,
      meanwhile: async () => {
        const began = Date.now();
        const callsBefore = processor.desk.calls - calls;
        failover = { ...(await cluster.failover(api.config.QUEUE_PREFIX)), began, callsBefore };
      },
    });

    expect(figures.submissions).toBe(20);
    expect(processor.desk.calls - calls).toBe(20);
    expect(failover?.callsBefore).toBeLessThan(20);
    const changes = logLines(worker, /Redis Cluster masters changed/);
    expect(changes).toEqual([
      expect.objectContaining({
        level: 40,
        from: expect.arrayContaining([`127.0.0.1:${failover?.from}`]),
        to: expect.arrayContaining([`127.0.0.1:${failover?.to}`]),
      }),
    ]);
    expect(changes[0]?.from).not.toContain(`127.0.0.1:${failover?.to}`);
    expect(changes[0]?.to).not.toContain(`127.0.0.1:${failover?.from}`);
    // The blocking reads the demoted master cut (UNBLOCKED) are the failover's, told by that line alone.
    expect(logLines(worker, /job queue error|Redis is away/)).toEqual([]);

    const deliveries = await api.db.db
      .select({
        status: webhookDeliveries.status,
        event: events.createdAt,
        done: webhookDeliveries.completedAt,
      })
      .from(webhookDeliveries)
      .innerJoin(events, eq(events.id, webhookDeliveries.eventId))
      .where(gte(webhookDeliveries.createdAt, since));
    expect(deliveries.map(({ status }) => status)).toEqual(Array(20).fill('succeeded'));
    const slowestWebhookMs = Math.max(
      ...deliveries.map(({ event, done }) => (done?.getTime() ?? 0) - event.getTime()),
    );
    console.info(
      `Cluster failover: settled in ${failover?.ms} ms, told by the worker process ${(changes[0]?.time as number) - (failover?.began ?? 0)} ms after it began; ` +
        `20 of 20 submissions sent once, settled ${figures.settledMs} ms after the last request; slowest webhook ${slowestWebhookMs} ms after its event`,
    );
    // Within seconds, not a job lock later: the failover restarts the relay (src/jobs/workers/webhook.ts).
    expect(slowestWebhookMs).toBeLessThan(10_000);
  }, 60_000);
});
