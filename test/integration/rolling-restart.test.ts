import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { inArray } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { disputes } from '../../src/db/schema/index.js';
import { type FakeMockProcessor, startFakeMockProcessor } from '../fakes/mock-processor.js';
import { startTestApi, type TestApi } from '../helpers/api.js';
import {
  createTestDispute,
  daysFromNow,
  newTenant,
  orderTemplate,
  type Tenant,
} from '../helpers/disputes.js';
import { exchange, keepAliveAgent, LoadBalancer, type Outcome } from '../helpers/load-balancer.js';
import {
  logLines,
  type ServiceProcess,
  startProcess,
  startWorkerProcess,
  storesOf,
  waitForOutput,
} from '../helpers/processes.js';
import { freePort } from '../helpers/redis-server.js';

/**
 * A rolling restart as docs/operations.md "Rolling restart" describes it: two web processes (WORKERS=none)
 * behind a load balancer that follows /readyz, and two worker processes, on one database and Redis,
 * each restarted in turn (SIGTERM, exit, start again) under a bounded load of creates, reads and queued
 * submissions. Through the balancer no request fails; a client ignoring readiness sees failures only on
 * the port being restarted; every acknowledged write is stored, and every queued dispute reaches the
 * processor exactly once.
 */
let api: TestApi;
let tenant: Tenant;
let processor: FakeMockProcessor;
const dataDirs: string[] = [];
const running = new Set<ServiceProcess>();
const drainSeconds = 2;
const graceSeconds = 6;
// Well under the drain: the balancer has a draining process out before it stops accepting.
const probeIntervalMs = 200;

beforeAll(async () => {
  api = await startTestApi({ workers: [] });
  tenant = await newTenant(api);
  processor = await startFakeMockProcessor();
  // Long enough that a worker told to stop has calls in flight to finish.
  processor.delayMs = 300;
});
afterAll(async () => {
  for (const each of running) each.child.kill('SIGKILL');
  await processor.close();
  await api.close();
  for (const dir of dataDirs) await rm(dir, { recursive: true, force: true });
});

const shared = () => ({
  ...storesOf(api),
  MOCK_PROCESSOR_URL: processor.url,
  SHUTDOWN_DRAIN_SECONDS: String(drainSeconds),
  SHUTDOWN_GRACE_SECONDS: String(graceSeconds),
  JOB_LOCK_SECONDS: '5',
  DEADLINE_SWEEP_SECONDS: '3600',
});

interface Slot {
  name: string;
  start(): Promise<ServiceProcess>;
  process: ServiceProcess;
  port?: number;
}

async function webSlot(name: string): Promise<Slot> {
  const port = await freePort();
  const dataDir = await mkdtemp(join(tmpdir(), `rebuttal-rolling-${name}-`));
  dataDirs.push(dataDir);
  const start = async () => {
    const started = startProcess('src/server.ts', {
      ...process.env,
      ...shared(),
      WORKERS: 'none',
      PORT: String(port),
      DATA_DIR: dataDir,
      RATE_LIMIT_PER_SECOND: '10000',
      RATE_LIMIT_TEST_DISPUTES_PER_MINUTE: '100000',
      RATE_LIMIT_READYZ_PER_SECOND: '10000',
    });
    running.add(started);
    await waitForOutput(started, '"msg":"serving HTTPS"', 60);
    return started;
  };
  return { name, start, process: await start(), port };
}

async function workerSlot(name: string): Promise<Slot> {
  const start = async () => {
    const started = await startWorkerProcess({ ...shared(), WORKERS: 'submission,webhook,deadline' });
    running.add(started);
    return started;
  };
  return { name, start, process: await start() };
}

/** When each step of one restart happened, in ms from its signal (the web process's own: from its log). */
interface Restart {
  slot: string;
  port?: number;
  signalledAt: number;
  outOfRotationMs?: number;
  stoppedAcceptingMs?: number;
  exitMs: number;
  backMs: number;
}

async function restart(slot: Slot, balancer: LoadBalancer): Promise<Restart> {
  const stopping = slot.process;
  const signalledAt = Date.now();
  stopping.child.kill('SIGTERM');
  const code = await stopping.exited;
  const exitMs = Date.now() - signalledAt;
  running.delete(stopping);
  expect(code, stopping.output()).toBe(0);
  expect(logLines(stopping, /^stopped$/)).toHaveLength(1);
  slot.process = await slot.start();
  const port = slot.port;
  if (port !== undefined) await expect.poll(() => balancer.inRotation(port), { timeout: 10_000 }).toBe(true);
  const out = balancer.changes.find(
    (change) => change.port === port && change.at >= signalledAt && !change.inRotation,
  );
  const began = logLines(stopping, /^shutting down/)[0]?.time as number | undefined;
  const stopped = logLines(stopping, /^stopped accepting/)[0]?.time as number | undefined;
  return {
    slot: slot.name,
    port,
    signalledAt,
    outOfRotationMs: out && out.at - signalledAt,
    stoppedAcceptingMs: began && stopped && stopped - began,
    exitMs,
    backMs: Date.now() - signalledAt,
  };
}

/** Submittable disputes, due within the queue lead: queued, each goes out at once. */
async function queueable(count: number): Promise<string[]> {
  const template = await orderTemplate(api, tenant.key);
  const ids: string[] = [];
  while (ids.length < count) {
    const made = await Promise.all(
      Array.from({ length: 5 }, () => createTestDispute(api, tenant.key, { due_by: daysFromNow(10) })),
    );
    ids.push(...made.map((dispute) => dispute.id));
  }
  await api.db.db
    .update(disputes)
    .set({ template, fields: { order_id: 'A-1001' }, dueBy: new Date(Date.now() + 3_600_000) })
    .where(inArray(disputes.id, ids));
  return ids;
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** An outcome with what it should have been; failed: no answer, or another status. */
interface Checked extends Outcome {
  expected: number;
}
const failed = (outcome: Checked) => outcome.status !== outcome.expected;
const began = Date.now();
const shown = (outcome: Checked) =>
  `+${outcome.sentAt - began} ms ${outcome.method} ${outcome.path} :${outcome.port} → ${outcome.error ?? outcome.status} ${JSON.stringify(outcome.body ?? {}).slice(0, 200)}`;

describe('a rolling restart of two web and two worker processes under load', () => {
  it('fails no request through the balancer, none on the surviving port, loses and duplicates no submission', async () => {
    // Enough for the submissions to go on through every restart, one every 400 ms.
    const pool = await queueable(150);
    const slots = await Promise.all([
      webSlot('web-1'),
      webSlot('web-2'),
      workerSlot('worker-1'),
      workerSlot('worker-2'),
    ]);
    const webPorts = slots.flatMap((slot) => (slot.port === undefined ? [] : [slot.port]));
    const balancer = new LoadBalancer(webPorts, probeIntervalMs);
    balancer.start();
    await expect
      .poll(() => webPorts.every((port) => balancer.inRotation(port)), { timeout: 10_000 })
      .toBe(true);
    const callsBefore = processor.desk.calls;

    const { key } = tenant;
    const outcomes: Checked[] = [];
    const careless: Checked[] = [];
    const created: string[] = [];
    const queued: string[] = [];
    let done = false;
    const clients = Array.from({ length: 2 }, async () => {
      while (!done) {
        await pause(50);
        const made = await balancer.call('POST', '/v1/test/disputes', { key, json: {} });
        outcomes.push({ ...made, expected: 201 });
        const id = made.status === 201 ? (made.body?.id as string) : undefined;
        if (id) {
          created.push(id);
          outcomes.push({ ...(await balancer.call('GET', `/v1/disputes/${id}`, { key })), expected: 200 });
        }
        outcomes.push({ ...(await balancer.call('GET', '/v1/disputes?limit=5', { key })), expected: 200 });
      }
    });
    const submissions = (async () => {
      for (const id of pool) {
        if (done) break;
        const answer = await balancer.call('POST', `/v1/disputes/${id}/submit`, {
          key,
          json: { queue: true },
        });
        outcomes.push({ ...answer, expected: 200 });
        if (answer.status === 200 && answer.body?.state === 'queued') queued.push(id);
        await pause(400);
      }
    })();
    // A client that reaches each web process directly, ignoring readiness.
    const direct = new Map(webPorts.map((port) => [port, keepAliveAgent()]));
    const carelessClient = (async () => {
      while (!done) {
        for (const [port, agent] of direct) {
          careless.push({
            ...(await exchange(port, agent, 'GET', '/v1/disputes?limit=1', { key })),
            expected: 200,
          });
          await pause(100);
        }
      }
    })();

    await pause(1000);
    const restarts: Restart[] = [];
    for (const slot of slots) {
      // A worker is told to stop with submissions under way.
      if (slot.port === undefined) {
        await expect.poll(() => processor.inFlight, { timeout: 10_000 }).toBeGreaterThan(0);
      }
      restarts.push(await restart(slot, balancer));
    }
    done = true;
    await Promise.all([...clients, submissions, carelessClient]);
    balancer.close();
    for (const agent of direct.values()) agent.destroy();

    // Through the balancer: nothing failed.
    expect(outcomes.filter(failed).map(shown)).toEqual([]);
    expect(outcomes.length).toBeGreaterThan(100);
    // Directly: failures only on the port being restarted, between its signal and its return.
    const webRestarts = restarts.filter((each) => each.port !== undefined);
    const restarting = (outcome: Checked) =>
      webRestarts.some(
        (each) =>
          each.port === outcome.port &&
          outcome.sentAt >= each.signalledAt &&
          outcome.sentAt <= each.signalledAt + each.backMs,
      );
    expect(careless.filter((outcome) => failed(outcome) && !restarting(outcome)).map(shown)).toEqual([]);
    // The surviving port answered all along, and the stopping one through its drain.
    for (const each of webRestarts) {
      const during = careless.filter(
        (outcome) => outcome.sentAt >= each.signalledAt && outcome.sentAt <= each.signalledAt + each.backMs,
      );
      expect(
        during.filter((outcome) => outcome.port !== each.port && !failed(outcome)).length,
      ).toBeGreaterThan(0);
      expect(
        during.filter(
          (outcome) =>
            outcome.port === each.port && !failed(outcome) && outcome.sentAt >= each.signalledAt + 200,
        ).length,
      ).toBeGreaterThan(0);
      // The balancer took it out while it drained, before it stopped accepting; the drain lasted its time.
      expect(each.outOfRotationMs).toBeLessThan(each.stoppedAcceptingMs ?? 0);
      expect(each.stoppedAcceptingMs).toBeGreaterThanOrEqual(drainSeconds * 1000);
    }
    for (const each of restarts) expect(each.exitMs).toBeLessThan(graceSeconds * 1000 + 3000);

    // Every acknowledged write is stored.
    const stored = await api.db.sql<{ id: string }[]>`select id from disputes where id = any(${created})`;
    expect(stored.map(({ id }) => id).sort()).toEqual([...created].sort());
    // Every queued dispute is submitted, exactly once.
    expect(queued.length).toBeGreaterThan(20);
    await expect
      .poll(
        async () => {
          const rows = await api.db.sql<
            { state: string }[]
          >`select state from disputes where id = any(${queued})`;
          return rows.filter(({ state }) => state === 'submitted').length;
        },
        { timeout: 30_000 },
      )
      .toBe(queued.length);
    const accepted = [...processor.desk.accepted.values()].map((recorded) => recorded.request.dispute.id);
    for (const id of queued) expect(accepted.filter((each) => each === id)).toHaveLength(1);
    expect(processor.desk.calls - callsBefore).toBe(queued.length);
    // Eight process starts through tsx take most of it: 2.5–3 minutes measured on 2 cores at a load of 15.
  }, 300_000);
});
