import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { webhookDeliveries } from '../../src/db/schema/index.js';
import { redeliverDeliveries } from '../../src/features/webhooks/deliveries.js';
import { startTestApi, type TestApi } from '../helpers/api.js';
import { cliOf } from '../helpers/cli.js';
import {
  deliveryRow,
  JobEventLog,
  promoteRetry,
  type ReceivingEndpoint,
  receivingEndpoint,
} from '../helpers/webhooks.js';

/**
 * `webhook endpoints|deliveries|redeliver`, run as on-call runs them: a separate process on the database
 * and queues of a running service, whose webhook worker (woken by the relay's notification) sends what
 * a redelivery restarts to receivers on loopback.
 */

let api: TestApi;
let jobs: JobEventLog;
beforeAll(async () => {
  api = await startTestApi({ workers: ['webhook'] });
  jobs = await JobEventLog.start(api);
});
afterAll(async () => {
  await api.close();
});

const cli = (...args: string[]) => cliOf(api)(...args);
const cliJson = async (...args: string[]) => {
  const result = await cli(...args, '--json');
  expect(result, result.stderr).toMatchObject({ code: 0, stderr: '' });
  return JSON.parse(result.stdout);
};

const day = 86_400_000;

async function newDispute(key: string): Promise<string> {
  const response = await api.call('POST', '/v1/test/disputes', { key, json: {} });
  expect(response.status, response.text).toBe(201);
  return response.body.id as string;
}

/** A new organisation whose endpoint received a dispute's first event; its delivery done. */
async function deliveredOnce() {
  const { org, test_key } = await api.createOrg();
  const endpoint = await receivingEndpoint(api, test_key);
  await newDispute(test_key);
  const [received] = await endpoint.receiver.waitFor(1);
  const deliveryId = received?.payload.id as string;
  await jobs.wait(deliveryId, 'completed');
  return { org, test_key, endpoint, deliveryId };
}

/** The deliveries `endpoint` has received so far (by webhook-id), in order. */
const receivedIds = (endpoint: ReceivingEndpoint) =>
  endpoint.receiver.received.map((received) => received.headers['webhook-id']);

/**
 * Ends a delivery whose first attempt failed as 3 days of failures end it: its first attempt moved back
 * past the window, its waiting retry run now and refused again, so it ends `failed` and its job fails.
 */
async function failForGood(deliveryId: string): Promise<void> {
  await jobs.wait(deliveryId, 'delayed');
  await api.db.db
    .update(webhookDeliveries)
    .set({ firstAttemptAt: new Date(Date.now() - 4 * day) })
    .where(eq(webhookDeliveries.id, deliveryId));
  await promoteRetry(api, deliveryId);
  await jobs.wait(deliveryId, 'failed');
  expect(await deliveryRow(api, deliveryId)).toMatchObject({ status: 'failed', attempts: 2 });
}

/** The deliveries made to `endpoint` for the events so far, oldest first. */
async function deliveriesTo(endpoint: ReceivingEndpoint) {
  return api.db.db
    .select()
    .from(webhookDeliveries)
    .where(eq(webhookDeliveries.endpointId, endpoint.id))
    .orderBy(webhookDeliveries.createdAt, webhookDeliveries.id);
}

describe('npm run cli -- webhook endpoints', () => {
  it('lists the endpoints as the API shows them, and never their signing secrets', async () => {
    const { org, test_key } = await api.createOrg();
    const first = await receivingEndpoint(api, test_key);
    const second = await receivingEndpoint(api, test_key, { events: ['dispute.created'] });
    await api.call('PUT', `/v1/webhook_endpoints/${second.id}`, { key: test_key, json: { enabled: false } });

    const listed = await cli('webhook', 'endpoints', '--org', org, '--mode', 'test', '--json');
    expect(listed, listed.stderr).toMatchObject({ code: 0, stderr: '' });
    const endpoints = JSON.parse(listed.stdout) as { id: string }[];
    expect(endpoints.map((endpoint) => endpoint.id).sort()).toEqual([first.id, second.id].sort());
    for (const endpoint of endpoints) {
      const retrieved = await api.call('GET', `/v1/webhook_endpoints/${endpoint.id}`, { key: test_key });
      expect(endpoint).toEqual(retrieved.body);
    }
    const human = await cli('webhook', 'endpoints', '--org', org, '--mode', 'test');
    expect(human.stdout).toContain(`${second.id}  disabled`);
    expect(human.stdout).toContain('dispute.created');
    for (const output of [listed.stdout, human.stdout]) {
      expect(output).not.toContain(first.secret);
      expect(output).not.toContain(second.secret);
      expect(output).not.toContain('whsec_');
    }
    expect(await cliJson('webhook', 'endpoints', '--org', org, '--mode', 'live')).toEqual([]);
    await first.receiver.close();
    await second.receiver.close();
  });
});

describe('npm run cli -- webhook deliveries and redeliver', () => {
  it('lists a failed delivery with its attempts and last answer; redelivering it sends it again, and it arrives', async () => {
    const { org, test_key } = await api.createOrg();
    const endpoint = await receivingEndpoint(api, test_key, {}, [500, 500]);
    const disputeId = await newDispute(test_key);
    const [first] = await endpoint.receiver.waitFor(1);
    const deliveryId = first?.payload.id as string;
    await failForGood(deliveryId);

    const failed = await cliJson(
      'webhook',
      'deliveries',
      '--org',
      org,
      '--mode',
      'test',
      '--status',
      'failed',
    );
    expect(failed).toEqual([
      {
        id: deliveryId,
        endpoint: endpoint.id,
        event: expect.stringMatching(/^evt_/),
        type: 'dispute.created',
        dispute: disputeId,
        status: 'failed',
        attempts: 2,
        last_status: 500,
        last_error: 'HTTP 500',
        next_attempt_at: null,
        created: expect.stringMatching(/^\d{4}-.*Z$/),
        completed_at: expect.stringMatching(/^\d{4}-.*Z$/),
      },
    ]);
    expect(
      await cliJson('webhook', 'deliveries', '--org', org, '--mode', 'test', '--status', 'succeeded'),
    ).toEqual([]);
    const human = await cli(
      'webhook',
      'deliveries',
      '--org',
      org,
      '--mode',
      'test',
      '--endpoint',
      endpoint.id,
    );
    expect(human.stdout.split('\n')[1]).toMatch(
      new RegExp(
        `^${deliveryId} +failed +2 +HTTP 500 +- +\\S+Z +${endpoint.id} +dispute.created ${disputeId}$`,
      ),
    );

    const redelivered = await cliJson(
      'webhook',
      'redeliver',
      '--org',
      org,
      '--mode',
      'test',
      '--delivery',
      deliveryId,
    );
    expect(redelivered).toMatchObject({
      redelivered: [{ id: deliveryId, attempts: 2, completed_at: null }],
      skipped: [],
    });
    const [, , again] = await endpoint.receiver.waitFor(3);
    expect(again?.headers['webhook-id']).toBe(deliveryId);
    expect(again?.body).toBe(first?.body);
    expect(again?.verified).toBe(true);
    await expect.poll(async () => (await deliveryRow(api, deliveryId))?.status).toBe('succeeded');
    expect(await deliveryRow(api, deliveryId)).toMatchObject({ attempts: 3, lastStatus: 200 });
    await endpoint.receiver.close();
  });

  it('redelivers every delivery that ended failed since a moment, to one endpoint, and no other', async () => {
    const { org, test_key } = await api.createOrg();
    // Two endpoints for every event; each refuses the first two attempts of each of three deliveries.
    const down = await receivingEndpoint(api, test_key, {}, Array(6).fill(500));
    const other = await receivingEndpoint(api, test_key, {}, Array(6).fill(500));
    for (let index = 0; index < 3; index++) await newDispute(test_key);
    await down.receiver.waitFor(3);
    await other.receiver.waitFor(3);
    const [old, ...recent] = await deliveriesTo(down);
    const others = await deliveriesTo(other);
    for (const delivery of [old, ...recent, ...others]) await failForGood(delivery?.id ?? '');
    // One ended failed two days ago: before the moment asked for.
    await api.db.db
      .update(webhookDeliveries)
      .set({ completedAt: new Date(Date.now() - 2 * day) })
      .where(eq(webhookDeliveries.id, old?.id ?? ''));
    const receivedBefore = { down: receivedIds(down).length, other: receivedIds(other).length };

    const since = new Date(Date.now() - 3600_000).toISOString();
    const result = await cliJson(
      'webhook',
      'redeliver',
      '--org',
      org,
      '--mode',
      'test',
      '--failed-since',
      since,
      '--endpoint',
      down.id,
    );
    const recentIds = recent.map((delivery) => delivery.id);
    expect(result.skipped).toEqual([]);
    expect(result.redelivered.map((delivery: { id: string }) => delivery.id)).toEqual(recentIds);

    await down.receiver.waitFor(receivedBefore.down + 2);
    expect(receivedIds(down).slice(receivedBefore.down).sort()).toEqual([...recentIds].sort());
    for (const id of recentIds) {
      await expect.poll(async () => (await deliveryRow(api, id))?.status).toBe('succeeded');
    }
    expect(await deliveryRow(api, old?.id ?? '')).toMatchObject({ status: 'failed', attempts: 2 });
    for (const delivery of others) {
      expect(await deliveryRow(api, delivery.id)).toMatchObject({ status: 'failed', attempts: 2 });
    }
    expect(receivedIds(other)).toHaveLength(receivedBefore.other);
    await down.receiver.close();
    await other.receiver.close();
  });

  it('refuses an unknown delivery, one to a disabled endpoint, and a call without a choice, with one line', async () => {
    const { org, test_key, endpoint, deliveryId } = await deliveredOnce();
    await api.call('PUT', `/v1/webhook_endpoints/${endpoint.id}`, {
      key: test_key,
      json: { enabled: false },
    });

    const base = ['webhook', 'redeliver', '--org', org, '--mode', 'test'];
    const unknown = await cli(...base, '--delivery', 'wh_nope');
    expect([unknown.code, unknown.stderr.trim()]).toEqual([
      1,
      `error: no webhook delivery wh_nope in ${org} (test)`,
    ]);
    const disabled = await cli(...base, '--delivery', deliveryId);
    expect([disabled.code, disabled.stderr.trim()]).toEqual([
      1,
      `error: not redelivered: endpoint ${endpoint.id} is disabled; enable it first`,
    ]);
    expect(await deliveryRow(api, deliveryId)).toMatchObject({ status: 'succeeded', attempts: 1 });
    const neither = await cli(...base);
    expect([neither.code, neither.stderr.trim()]).toEqual([
      1,
      'error: give either --delivery or --failed-since',
    ]);
    const badTime = await cli(...base, '--failed-since', 'yesterday');
    expect([badTime.code, badTime.stderr.trim()]).toEqual([
      1,
      'error: --failed-since must be an ISO 8601 time or Unix seconds',
    ]);
    expect(endpoint.receiver.received).toHaveLength(1);
    await endpoint.receiver.close();
  });
});

describe('webhook redeliver beside the API', () => {
  it('redelivers from the CLI while the API redelivers the same event, without a deadlock', async () => {
    const { org, endpoint, deliveryId } = await deliveredOnce();
    const eventId = (await deliveryRow(api, deliveryId))?.eventId as string;
    // The API's redelivery as event-log.ts makes it: its event locked, then its deliveries written. The
    // CLI's, started in between, waits for the event before it locks any delivery.
    const apiSide = await api.db.sql.reserve();
    try {
      await apiSide`begin`;
      await apiSide`select id from events where id = ${eventId} for update`;
      const cliSide = redeliverDeliveries(
        api.db.db,
        { orgId: org, livemode: false },
        { delivery: deliveryId },
      );
      await new Promise((resolve) => setTimeout(resolve, 300));
      await apiSide`update webhook_deliveries set next_attempt_at = now() where id = ${deliveryId}`;
      await apiSide`commit`;
      expect((await cliSide).redelivered.map((row) => row.id)).toEqual([deliveryId]);
    } finally {
      apiSide.release();
    }
    await endpoint.receiver.waitFor(2);
    await endpoint.receiver.close();
  });
});
