import { once } from 'node:events';
import { Cluster } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FakeMockProcessor, startFakeMockProcessor } from '../fakes/mock-processor.js';
import { startTestApi, type TestApi } from '../helpers/api.js';
import { cliOf, runCli } from '../helpers/cli.js';
import { getDispute, newTenant, submittableDispute } from '../helpers/disputes.js';
import { exerciseEngine, exerciseSettings } from '../helpers/engine-exercise.js';
import {
  logLines,
  startProcess,
  startWorkerProcess,
  storesOf,
  type WorkerProcess,
} from '../helpers/processes.js';
import { type RedisClusterRig, startRedisCluster } from '../helpers/redis-cluster.js';

/**
 * The service on a three-master Redis Cluster (REDIS_CLUSTER_NODES): the engine's round in this process,
 * a worker process and a CLI command beside a web process without workers, and a REDIS_URL at one node
 * refused at start (docs/architecture.md "Redis connections").
 */
let cluster: RedisClusterRig;
let api: TestApi;

beforeAll(async () => {
  cluster = await startRedisCluster();
  console.info(`three-master Redis Cluster started in ${cluster.startMs} ms`);
  api = await startTestApi({ env: { REDIS_CLUSTER_NODES: cluster.nodes, ...exerciseSettings } });
}, 60_000);
afterAll(async () => {
  await api?.close();
  await cluster?.stop();
});

describe('the service on a Redis Cluster', () => {
  it('gives QUEUE_PREFIX a hash tag, so that every key of the service is in one slot', () => {
    expect(api.config.QUEUE_PREFIX).toMatch(/^\{rebuttal_test_[0-9a-f]{12}\}$/);
    expect(api.config.queuePrefixTagged).toBe(true);
  });

  it('sends queued submissions once each, delivers webhooks, serves Bull Board and rate limits', async () => {
    const figures = await exerciseEngine(api, { disputes: 10 });
    console.info(
      `cluster round: ${figures.submissions} submissions settled ${figures.settledMs} ms after the last request, ${figures.webhooks} webhooks`,
    );
    expect(figures.submissions).toBe(20);
  });

  it('writes every key under QUEUE_PREFIX, all in one slot: queues, rate limits, the sign-in guard', async () => {
    const wrong = `Basic ${Buffer.from('operator:not the password at all').toString('base64')}`;
    const refused = await api.call('GET', '/admin/queues/api/queues', { headers: { authorization: wrong } });
    expect(refused.status).toBe(401);
    const reader = new Cluster(cluster.ports.map((port) => ({ host: '127.0.0.1', port })));
    try {
      await once(reader, 'ready');
      const keys: string[] = [];
      for (const node of reader.nodes('master')) keys.push(...(await node.keys('*')));
      // The kinds of key this round makes: BullMQ's, the API's rate limits, the operators' sign-in guard.
      const kinds = new Set(keys.map((key) => key.slice(api.config.QUEUE_PREFIX.length + 1).split(':')[0]));
      expect([...kinds].sort()).toEqual(
        expect.arrayContaining(['admin-attempts', 'personal-data', 'rate', 'submission']),
      );
      expect(keys.filter((key) => !key.startsWith(`${api.config.QUEUE_PREFIX}:`))).toEqual([]);
      const slots = new Set(await Promise.all(keys.map((key) => reader.cluster('KEYSLOT', key))));
      expect(slots.size).toBe(1);
    } finally {
      reader.disconnect();
    }
  });
});

describe('processes of their own on the cluster', () => {
  let web: TestApi;
  let processor: FakeMockProcessor;
  let worker: WorkerProcess | undefined;

  beforeAll(async () => {
    web = await startTestApi({
      workers: [],
      env: { REDIS_CLUSTER_NODES: cluster.nodes, SUBMIT_WAIT_MS: '200' },
    });
    processor = await startFakeMockProcessor();
  }, 60_000);
  afterAll(async () => {
    worker?.child.kill('SIGKILL');
    await processor?.close();
    await web?.close();
  });

  it('a worker process takes the web process’s submissions from the cluster and sends each once', async () => {
    worker = await startWorkerProcess({
      ...storesOf(web),
      // As an operator sets it: the worker gives it the same hash tag as the web process did.
      QUEUE_PREFIX: web.config.QUEUE_PREFIX.replace(/^\{(.*)\}$/, '$1'),
      MOCK_PROCESSOR_URL: processor.url,
      WORKERS: 'submission',
      DEADLINE_SWEEP_SECONDS: '3600',
    });
    // Said once, at start: the prefix as the cluster needs it, the web process's.
    expect(logLines(worker, /hash tag/).map((line) => line.queuePrefix)).toEqual([web.config.QUEUE_PREFIX]);
    const tenant = await newTenant(web);
    const ids: string[] = [];
    for (let index = 0; index < 5; index++) {
      const { dispute } = await submittableDispute(web, tenant);
      const response = await web.call('POST', `/v1/disputes/${dispute.id}/submit`, { key: tenant.key });
      // 201 when the worker's call ends within SUBMIT_WAIT_MS, 202 when it is still under way.
      expect([201, 202], response.text).toContain(response.status);
      ids.push(dispute.id);
    }
    await expect
      .poll(async () => Promise.all(ids.map(async (id) => (await getDispute(web, tenant.key, id)).state)), {
        timeout: 20_000,
      })
      .toEqual(ids.map(() => 'submitted'));
    const accepted = [...processor.desk.accepted.values()].map((recorded) => recorded.request.dispute.id);
    expect(accepted.sort()).toEqual([...ids].sort());
  });

  it('a CLI command reads the queues on the cluster', async () => {
    const later = await web.queues.byName.deadline.add(
      'sweepDeadlines',
      {},
      { jobId: `cluster-delayed-${Date.now()}`, delay: 3600_000 },
    );
    const listed = await cliOf(web)('jobs', 'list', '--queue', 'deadline', '--state', 'delayed', '--json');
    expect(listed.code, listed.stderr).toBe(0);
    expect(JSON.parse(listed.stdout)).toEqual([
      expect.objectContaining({ id: later.id, name: 'sweepDeadlines', state: 'delayed', attempts: 0 }),
    ]);

    // A cluster that does not answer: one line naming the setting to check, not a hang.
    const away = await runCli(['jobs', 'list', '--queue', 'deadline', '--state', 'delayed'], {
      ...storesOf(web),
      REDIS_CLUSTER_NODES: '127.0.0.1:1',
    });
    expect([away.code, away.stderr.trim()]).toEqual([
      1,
      'error: no answer from Redis (REDIS_CLUSTER_NODES) within 3000 ms',
    ]);
  });

  it('a web process given REDIS_URL at a cluster node stops at start, saying to set REDIS_CLUSTER_NODES', async () => {
    const stores = storesOf(web);
    const started = startProcess('src/server.ts', {
      ...process.env,
      ...stores,
      REDIS_CLUSTER_NODES: '',
      REDIS_URL: `redis://127.0.0.1:${cluster.ports[0]}`,
      PORT: '0',
      WORKERS: 'none',
    });
    expect(await started.exited).toBe(1);
    expect(started.errors().trim()).toBe(
      `rebuttal could not start: Redis at 127.0.0.1:${cluster.ports[0]} (REDIS_URL) is a node of a Redis Cluster: set REDIS_CLUSTER_NODES=host:port,… to its nodes instead`,
    );
  });
});
