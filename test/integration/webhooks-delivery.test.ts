import { readdir, readFile } from 'node:fs/promises';
import { eq, sql } from 'drizzle-orm';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  disputes,
  events,
  submissions,
  webhookAttempts,
  webhookDeliveries,
  webhookEndpoints,
} from '../../src/db/schema/index.js';
import { recordDisputeEvent } from '../../src/features/webhooks/events.js';
import { enqueue } from '../../src/jobs/enqueue.js';
import type { ReceivedWebhook } from '../fakes/webhook-receiver.js';
import { startTestApi, type TestApi } from '../helpers/api.js';
import { noEvidence } from '../helpers/evidence-documents.js';
import {
  attemptRows,
  deliveryRow,
  endpointRow,
  JobEventLog,
  promoteRetry,
  receivingEndpoint,
} from '../helpers/webhooks.js';

/** Webhook delivery through the real relay, queue and HTTP (docs/api.md, "Webhooks"), to receivers on loopback. */

let api: TestApi;
let jobs: JobEventLog;
beforeAll(async () => {
  // All workers, and the webhook worker's listener: a commit with events wakes the relay at once.
  api = await startTestApi();
  jobs = await JobEventLog.start(api);
});
afterAll(async () => {
  await api.close();
});

const day = 86_400_000;

async function newDispute(key: string, body: Record<string, unknown> = {}) {
  const response = await api.call('POST', '/v1/test/disputes', { key, json: body });
  expect(response.status, response.text).toBe(201);
  return response.body as { id: string; charge: string; account_id: string | null };
}

async function disputeRow(id: string) {
  const [row] = await api.db.db.select().from(disputes).where(eq(disputes.id, id));
  if (!row) throw new Error(`no dispute ${id}`);
  return row;
}

/** An event as the services write them (a closed dispute comes from mirroring, outside this suite). */
async function recordEvent(type: 'dispute.closed' | 'dispute.updated', disputeId: string) {
  const row = await disputeRow(disputeId);
  await api.db.db.transaction((tx) => recordDisputeEvent(tx, type, row, null));
}

/** An endpoint answering `answers` in turn, and a delivery to it whose first attempt failed: its retry waits. */
async function failedOnce(answers: number[]) {
  const { test_key } = await api.createOrg();
  const endpoint = await receivingEndpoint(api, test_key, {}, answers);
  await newDispute(test_key);
  const [first] = await endpoint.receiver.waitFor(1);
  const deliveryId = first?.payload.id as string;
  await jobs.wait(deliveryId, 'delayed');
  return { test_key, endpoint, first, deliveryId };
}

describe('a delivery', () => {
  it('arrives signed (verified by the standardwebhooks package) with the payload of the latest version', async () => {
    const { test_key } = await api.createOrg();
    const endpoint = await receivingEndpoint(api, test_key);
    const dispute = await newDispute(test_key);
    const [received] = await endpoint.receiver.waitFor(1);
    expect(received?.verified).toBe(true);
    expect(received?.payload).toEqual({
      id: expect.stringMatching(/^wh_[0-9a-z]{20}$/),
      type: 'dispute.created',
      object: 'webhook',
      livemode: false,
      dispute: dispute.id,
      charge: dispute.charge,
      account_id: dispute.account_id,
    });
    expect(received?.headers['webhook-id']).toBe(received?.payload.id);
    expect(received?.headers['content-type']).toBe('application/json');
    expect(Math.abs(Number(received?.headers['webhook-timestamp']) - Date.now() / 1000)).toBeLessThan(60);
    const deliveryId = received?.payload.id as string;
    await jobs.wait(deliveryId, 'completed');
    expect(await deliveryRow(api, deliveryId)).toMatchObject({
      status: 'succeeded',
      attempts: 1,
      lastStatus: 200,
      lastError: null,
      nextAttemptAt: null,
      completedAt: expect.any(Date),
      firstAttemptAt: expect.any(Date),
    });
    const attempts = await attemptRows(api, deliveryId);
    expect(attempts).toEqual([
      expect.objectContaining({ status: 200, error: null, durationMs: expect.any(Number) }),
    ]);
    await endpoint.receiver.close();
  });

  it('that fails (HTTP 500) is retried with the same webhook-id and body, and succeeds on the retry', async () => {
    const { endpoint, first, deliveryId } = await failedOnce([500]);
    const pending = await deliveryRow(api, deliveryId);
    expect(pending).toMatchObject({ status: 'pending', attempts: 1, lastStatus: 500, lastError: 'HTTP 500' });
    // The queue's webhook backoff: about 30 s for the first retry (jitter takes off up to 20%), counted
    // from when the failure was recorded: at least 24 s after the attempt began, and at most 30 s after
    // this read, however late a loaded machine makes either.
    const [attempt] = await attemptRows(api, deliveryId);
    const next = pending?.nextAttemptAt?.getTime() ?? 0;
    expect(next - (attempt?.attemptedAt.getTime() ?? Infinity)).toBeGreaterThanOrEqual(24_000);
    expect(next - Date.now()).toBeLessThanOrEqual(30_000);
    expect((await endpointRow(api, endpoint.id))?.failingSince).toBeInstanceOf(Date);

    await promoteRetry(api, deliveryId);
    const [, second] = await endpoint.receiver.waitFor(2);
    expect(second?.headers['webhook-id']).toBe(deliveryId);
    expect(second?.body).toBe(first?.body);
    expect(second?.verified).toBe(true);
    await jobs.wait(deliveryId, 'completed');
    expect(await deliveryRow(api, deliveryId)).toMatchObject({
      status: 'succeeded',
      attempts: 2,
      lastStatus: 200,
    });
    expect((await attemptRows(api, deliveryId)).map((attempt) => [attempt.status, attempt.error])).toEqual([
      [500, 'HTTP 500'],
      [200, null],
    ]);
    // A success ends the endpoint's run of failures.
    expect((await endpointRow(api, endpoint.id))?.failingSince).toBeNull();
    await endpoint.receiver.close();
  });

  it('counts a redirect (3xx) as a failure and does not follow it', async () => {
    const { endpoint, deliveryId } = await failedOnce([301]);
    expect(endpoint.receiver.received).toHaveLength(1);
    expect(await deliveryRow(api, deliveryId)).toMatchObject({
      status: 'pending',
      lastStatus: 301,
      lastError: 'HTTP 301',
    });
    await endpoint.receiver.close();
  });

  it('logs a receiver that is not there as an attempt without a status', async () => {
    const { test_key } = await api.createOrg();
    const witness = await receivingEndpoint(api, test_key);
    const endpoint = await receivingEndpoint(api, test_key);
    await endpoint.receiver.close();
    await newDispute(test_key);
    // One transaction makes an event's deliveries to every endpoint: the witness's arrival means both exist.
    await witness.receiver.waitFor(1);
    const [delivery] = await deliveriesTo(endpoint.id);
    const deliveryId = delivery?.id ?? '';
    await jobs.wait(deliveryId, 'delayed');
    const [attempt] = await attemptRows(api, deliveryId);
    // The failure's class, not the error's text ("connect ECONNREFUSED 127.0.0.1:<port>").
    expect(attempt).toMatchObject({ status: null, error: 'connection refused' });
    expect(await deliveryRow(api, deliveryId)).toMatchObject({
      status: 'pending',
      lastStatus: null,
      lastError: 'connection refused',
    });
    await witness.receiver.close();
  });

  it('gives up after 3 days since its first attempt: failed on its row, and its job fails for on-call', async () => {
    const { endpoint, deliveryId } = await failedOnce([500, 500]);
    // Time passes: the first attempt was 3 days and a minute ago (the endpoint's run of failures is younger).
    await api.db.db
      .update(webhookDeliveries)
      .set({ firstAttemptAt: new Date(Date.now() - 3 * day - 60_000) })
      .where(eq(webhookDeliveries.id, deliveryId));
    await promoteRetry(api, deliveryId);
    await jobs.wait(deliveryId, 'failed');
    expect(await deliveryRow(api, deliveryId)).toMatchObject({
      status: 'failed',
      attempts: 2,
      lastStatus: 500,
      nextAttemptAt: null,
      completedAt: expect.any(Date),
    });
    const job = await api.queues.byName.webhook.getJob(`delivery-${deliveryId}`);
    expect(job?.failedReason).toBe('gave up after 3 days of failed attempts; last answer: HTTP 500');
    expect(await endpointRow(api, endpoint.id)).toMatchObject({ enabled: true, disabledReason: null });
    await endpoint.receiver.close();
  });

  it('disables an endpoint that has failed for 3 days, with the reason and the last answer', async () => {
    const { test_key, endpoint, deliveryId } = await failedOnce([500, 500]);
    await api.db.db
      .update(webhookEndpoints)
      .set({ failingSince: new Date(Date.now() - 3 * day - 60_000) })
      .where(eq(webhookEndpoints.id, endpoint.id));
    await promoteRetry(api, deliveryId);
    await jobs.wait(deliveryId, 'failed');
    const reason = 'disabled after 3 days of failed deliveries; last answer: HTTP 500';
    expect(await endpointRow(api, endpoint.id)).toMatchObject({ enabled: false, disabledReason: reason });
    expect(await deliveryRow(api, deliveryId)).toMatchObject({ status: 'failed', attempts: 2 });
    const shown = await api.call('GET', `/v1/webhook_endpoints/${endpoint.id}`, { key: test_key });
    expect(shown.body).toMatchObject({ enabled: false, disabled_reason: reason });

    // A disabled endpoint gets no deliveries for new events.
    const witness = await receivingEndpoint(api, test_key);
    await newDispute(test_key);
    await witness.receiver.waitFor(1);
    expect(await deliveriesTo(endpoint.id)).toHaveLength(1);
    await witness.receiver.close();

    // Enabling it again clears the reason and the run of failures.
    const enabled = await api.call('PUT', `/v1/webhook_endpoints/${endpoint.id}`, {
      key: test_key,
      json: { enabled: true },
    });
    expect(enabled.body).toMatchObject({ enabled: true, disabled_reason: null, failing_since: null });
    await endpoint.receiver.close();
  });

  it('ends a pending delivery as failed without calling when its endpoint was disabled before its turn', async () => {
    const { test_key, endpoint, deliveryId } = await failedOnce([500]);
    await api.call('PUT', `/v1/webhook_endpoints/${endpoint.id}`, {
      key: test_key,
      json: { enabled: false },
    });
    await promoteRetry(api, deliveryId);
    await jobs.wait(deliveryId, 'completed');
    expect(endpoint.receiver.received).toHaveLength(1);
    expect(await deliveryRow(api, deliveryId)).toMatchObject({
      status: 'failed',
      attempts: 1,
      lastError: 'endpoint disabled: by request',
    });
    await endpoint.receiver.close();
  });
});

async function deliveriesTo(endpointId: string) {
  return api.db.db.select().from(webhookDeliveries).where(eq(webhookDeliveries.endpointId, endpointId));
}

describe('fan-out', () => {
  it('sends each event to every enabled endpoint of its organisation and mode that wants it, and no other', async () => {
    const acme = await api.createOrg();
    const other = await api.createOrg();
    const everything = await receivingEndpoint(api, acme.test_key);
    const updatesOnly = await receivingEndpoint(api, acme.test_key, { events: ['dispute.updated'] });
    const live = await receivingEndpoint(api, acme.live_key);
    const elsewhere = await receivingEndpoint(api, other.test_key);
    const dispute = await newDispute(acme.test_key);
    await recordEvent('dispute.updated', dispute.id);
    await everything.receiver.waitFor(2);
    await updatesOnly.receiver.waitFor(1);
    expect(everything.receiver.received.map((webhook) => webhook.payload.type).sort()).toEqual([
      'dispute.created',
      'dispute.updated',
    ]);
    expect(updatesOnly.receiver.received.map((webhook) => webhook.payload.type)).toEqual(['dispute.updated']);
    // Each delivery has its own id: the same event reaches two endpoints under two webhook-ids.
    const ids = [...everything.receiver.received, ...updatesOnly.receiver.received].map((w) => w.payload.id);
    expect(new Set(ids).size).toBe(3);
    // Deliveries are made in the relay's transaction, with those the witnesses received.
    expect(await deliveriesTo(live.id)).toEqual([]);
    expect(await deliveriesTo(elsewhere.id)).toEqual([]);
    for (const endpoint of [everything, updatesOnly, live, elsewhere]) await endpoint.receiver.close();
  });

  it('gives an endpoint on 2016-03-05 dispute_id, external_charge and user_id beside the current names', async () => {
    const { test_key } = await api.createOrg();
    const endpoint = await receivingEndpoint(api, test_key, {
      api_version: '2016-03-05',
      events: ['dispute.updated'],
    });
    const dispute = await newDispute(test_key);
    await api.db.db.update(disputes).set({ accountId: 'acct_7' }).where(eq(disputes.id, dispute.id));
    await recordEvent('dispute.updated', dispute.id);
    const [received] = await endpoint.receiver.waitFor(1);
    expect(received?.verified).toBe(true);
    expect(received?.payload).toEqual({
      id: expect.stringMatching(/^wh_/),
      type: 'dispute.updated',
      object: 'webhook',
      livemode: false,
      dispute_id: dispute.id,
      external_charge: dispute.charge,
      user_id: 'acct_7',
      dispute: dispute.id,
      charge: dispute.charge,
      account_id: 'acct_7',
    });
    await endpoint.receiver.close();
  });

  it('sends dispute.closed before 2021-09-15 only for disputes whose evidence this service submitted', async () => {
    const { test_key } = await api.createOrg();
    const old = await receivingEndpoint(api, test_key, {
      api_version: '2016-03-05',
      events: ['dispute.closed'],
    });
    const modern = await receivingEndpoint(api, test_key, { events: ['dispute.closed'] });
    const untouched = await newDispute(test_key);
    const submittedAt = await newDispute(test_key);
    const succeeded = await newDispute(test_key);
    const refused = await newDispute(test_key);
    await api.db.db.update(disputes).set({ submittedAt: new Date() }).where(eq(disputes.id, submittedAt.id));
    for (const [dispute, status] of [
      [succeeded, 'succeeded'],
      [refused, 'failed'],
    ] as const) {
      const row = await disputeRow(dispute.id);
      await api.db.db.insert(submissions).values({
        id: `sub_${status}_${row.uid.slice(0, 8)}`,
        orgId: row.orgId,
        livemode: false,
        disputeUid: row.uid,
        status,
        adapter: 'mock',
        previousState: 'needs_response',
        evidence: noEvidence,
      });
    }
    for (const dispute of [untouched, submittedAt, succeeded, refused])
      await recordEvent('dispute.closed', dispute.id);
    await modern.receiver.waitFor(4);
    expect(await deliveriesTo(old.id)).toHaveLength(2);
    await old.receiver.waitFor(2);
    const closedFor = (endpoint: typeof old) =>
      endpoint.receiver.received
        .map((webhook) => webhook.payload.dispute ?? webhook.payload.dispute_id)
        .sort();
    expect(closedFor(old)).toEqual([submittedAt.id, succeeded.id].sort());
    expect(closedFor(modern)).toEqual([untouched.id, submittedAt.id, succeeded.id, refused.id].sort());
    await old.receiver.close();
    await modern.receiver.close();
  });
});

describe('a rotated signing secret', () => {
  it('signs beside the new one for 24 hours, so either verifies; after them only the new one signs', async () => {
    const { test_key } = await api.createOrg();
    const endpoint = await receivingEndpoint(api, test_key);
    const rotated = await api.call('POST', `/v1/webhook_endpoints/${endpoint.id}/rotate_secret`, {
      key: test_key,
    });
    expect(rotated.status, rotated.text).toBe(200);
    const secret = rotated.body.secret as string;
    const sendTest = async (count: number) => {
      const sent = await api.call('POST', `/v1/webhook_endpoints/${endpoint.id}/test`, { key: test_key });
      expect(sent.status, sent.text).toBe(202);
      const received = (await endpoint.receiver.waitFor(count))[count - 1];
      if (!received) throw new Error('no webhook');
      return received;
    };
    const verifies = (key: string, { body, headers }: ReceivedWebhook) => {
      try {
        new Webhook(key).verify(body, headers as Record<string, string>);
        return true;
      } catch {
        return false;
      }
    };

    // The receiver still holds the old secret: it verifies, and so does one that has switched.
    const during = await sendTest(1);
    expect(during.verified).toBe(true);
    expect(verifies(endpoint.secret, during)).toBe(true);
    expect(verifies(secret, during)).toBe(true);
    expect(String(during.headers['webhook-signature']).split(' ')).toHaveLength(2);

    // The 24 hours are over.
    await api.db.db
      .update(webhookEndpoints)
      .set({ previousSecretExpiresAt: new Date(Date.now() - 1000) })
      .where(eq(webhookEndpoints.id, endpoint.id));
    const after = await sendTest(2);
    expect(verifies(secret, after)).toBe(true);
    expect(verifies(endpoint.secret, after)).toBe(false);
    expect(String(after.headers['webhook-signature']).split(' ')).toHaveLength(1);
    await endpoint.receiver.close();
  });
});

describe('test events and redelivery', () => {
  it('POST /v1/webhook_endpoints/:id/test sends a test event to that endpoint only', async () => {
    const { test_key } = await api.createOrg();
    const target = await receivingEndpoint(api, test_key);
    const bystander = await receivingEndpoint(api, test_key);
    const response = await api.call('POST', `/v1/webhook_endpoints/${target.id}/test`, { key: test_key });
    expect(response.status, response.text).toBe(202);
    const [received] = await target.receiver.waitFor(1);
    expect(received?.verified).toBe(true);
    expect(received?.payload).toEqual({
      id: expect.stringMatching(/^wh_/),
      type: 'test',
      object: 'webhook',
      livemode: false,
    });
    const eventId = response.body.id as string;
    await jobs.wait(received?.payload.id as string, 'completed');
    const event = await api.call('GET', `/v1/events/${eventId}`, { key: test_key });
    expect(event.body).toMatchObject({
      type: 'test',
      deliveries: [{ id: received?.payload.id, endpoint: target.id, status: 'succeeded', attempts: 1 }],
    });
    expect(bystander.receiver.received).toHaveLength(0);
    await target.receiver.close();
    await bystander.receiver.close();
  });

  it('sends a test event to a disabled endpoint too, so it can be checked before it is enabled', async () => {
    const { test_key } = await api.createOrg();
    const endpoint = await receivingEndpoint(api, test_key, {});
    await api.call('PUT', `/v1/webhook_endpoints/${endpoint.id}`, {
      key: test_key,
      json: { enabled: false },
    });
    await api.call('POST', `/v1/webhook_endpoints/${endpoint.id}/test`, { key: test_key });
    const [received] = await endpoint.receiver.waitFor(1);
    expect(received?.payload.type).toBe('test');
    await endpoint.receiver.close();
  });

  it('retries a failed test event to an endpoint disabled for its failures, instead of giving up at once', async () => {
    const { test_key } = await api.createOrg();
    const endpoint = await receivingEndpoint(api, test_key, {}, [500, 200]);
    await api.db.db
      .update(webhookEndpoints)
      .set({
        enabled: false,
        disabledReason: 'disabled by the test',
        failingSince: new Date(Date.now() - 4 * day),
      })
      .where(eq(webhookEndpoints.id, endpoint.id));
    await api.call('POST', `/v1/webhook_endpoints/${endpoint.id}/test`, { key: test_key });
    const [first] = await endpoint.receiver.waitFor(1);
    const deliveryId = first?.payload.id as string;
    await jobs.wait(deliveryId, 'delayed');
    expect(await deliveryRow(api, deliveryId)).toMatchObject({ status: 'pending', attempts: 1 });
    await promoteRetry(api, deliveryId);
    await jobs.wait(deliveryId, 'completed');
    expect(await deliveryRow(api, deliveryId)).toMatchObject({ status: 'succeeded', attempts: 2 });
    await endpoint.receiver.close();
  });

  it('redelivers an event: the same webhook-id again, attempts counted on, and endpoints that match now', async () => {
    const { test_key } = await api.createOrg();
    const first = await receivingEndpoint(api, test_key);
    await newDispute(test_key);
    const [original] = await first.receiver.waitFor(1);
    const deliveryId = original?.payload.id as string;
    await jobs.wait(deliveryId, 'completed');
    const later = await receivingEndpoint(api, test_key);
    const { body: list } = await api.call<{ data: { id: string }[] }>('GET', '/v1/events', { key: test_key });
    const eventId = list.data[0]?.id ?? '';

    const response = await api.call('POST', `/v1/events/${eventId}/redeliver`, { key: test_key });
    expect(response.status, response.text).toBe(202);
    expect(response.body).toMatchObject({
      object: 'event',
      id: eventId,
      deliveries: [
        { id: deliveryId, endpoint: first.id, status: 'pending', attempts: 1, completed_at: null },
        { endpoint: later.id, status: 'pending', attempts: 0, completed_at: null },
      ],
      url: `/v1/events/${eventId}/redeliver`,
    });
    const [again] = (await first.receiver.waitFor(2)).slice(1);
    expect(again?.headers['webhook-id']).toBe(deliveryId);
    expect(again?.verified).toBe(true);
    const [fresh] = await later.receiver.waitFor(1);
    expect(fresh?.payload).toMatchObject({ type: 'dispute.created' });
    expect(fresh?.payload.id).toBe((response.body as { deliveries: { id: string }[] }).deliveries[1]?.id);
    await jobs.wait(deliveryId, 'completed', 2);
    expect(await deliveryRow(api, deliveryId)).toMatchObject({ status: 'succeeded', attempts: 2 });
    expect(await attemptRows(api, deliveryId)).toHaveLength(2);
    await first.receiver.close();
    await later.receiver.close();
  });

  it('redelivers a delivery waiting out a retry at once', async () => {
    const { test_key, endpoint, deliveryId } = await failedOnce([503]);
    const [delivery] = await api.db.db
      .select()
      .from(webhookDeliveries)
      .where(eq(webhookDeliveries.id, deliveryId));
    await api.call('POST', `/v1/events/${delivery?.eventId}/redeliver`, { key: test_key });
    await endpoint.receiver.waitFor(2);
    await jobs.wait(deliveryId, 'completed');
    expect(await deliveryRow(api, deliveryId)).toMatchObject({ status: 'succeeded', attempts: 2 });
    await endpoint.receiver.close();
  });
});

describe('recovery', () => {
  it('gives a pending delivery long past due its job back (lost between commit and enqueue, or a flushed Redis)', async () => {
    const { test_key, org } = await api.createOrg();
    const endpoint = await receivingEndpoint(api, test_key);
    // As a relay that committed and then died would leave it: relayed, delivery pending, no job.
    const eventId = `evt_recover${'0'.repeat(13)}`;
    await api.db.db.insert(events).values({
      id: eventId,
      orgId: org,
      livemode: false,
      type: 'test',
      data: {},
      relayedAt: new Date(),
    });
    const deliveryId = `wh_recover${'0'.repeat(13)}`;
    await api.db.db.insert(webhookDeliveries).values({
      id: deliveryId,
      orgId: org,
      livemode: false,
      endpointId: endpoint.id,
      eventId,
      nextAttemptAt: new Date(Date.now() - 5 * 60_000),
    });
    await enqueue(api.queues, 'relayEvents', {});
    const [received] = await endpoint.receiver.waitFor(1);
    expect(received?.headers['webhook-id']).toBe(deliveryId);
    await jobs.wait(deliveryId, 'completed');
    expect(await deliveryRow(api, deliveryId)).toMatchObject({ status: 'succeeded' });
    await endpoint.receiver.close();
  });

  it('leaves a delivery that has finished alone when its job runs again (the row is the guard)', async () => {
    const { test_key } = await api.createOrg();
    const endpoint = await receivingEndpoint(api, test_key);
    await newDispute(test_key);
    const [received] = await endpoint.receiver.waitFor(1);
    const deliveryId = received?.payload.id as string;
    await jobs.wait(deliveryId, 'completed');
    const job = await api.queues.byName.webhook.getJob(`delivery-${deliveryId}`);
    await job?.retry('completed');
    await jobs.wait(deliveryId, 'completed', 2);
    expect(endpoint.receiver.received).toHaveLength(1);
    expect(await deliveryRow(api, deliveryId)).toMatchObject({ status: 'succeeded', attempts: 1 });
    await endpoint.receiver.close();
  });
});

describe('an endpoint deleted while its delivery is in flight', () => {
  it('ends that delivery quietly and records the others delivered with it', async () => {
    const { test_key, org } = await api.createOrg();
    const healthy = await receivingEndpoint(api, test_key);
    const doomed = await receivingEndpoint(api, test_key);
    await doomed.receiver.close();
    // The doomed endpoint's receiver deletes the endpoint before it answers 200.
    const { createServer } = await import('node:http');
    const server = createServer((req, res) => {
      req.resume();
      req.on('end', async () => {
        await api.call('DELETE', `/v1/webhook_endpoints/${doomed.id}`, { key: test_key });
        res.writeHead(200).end();
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as { port: number };
    await api.db.db
      .update(webhookEndpoints)
      .set({ url: `http://127.0.0.1:${port}/` })
      .where(eq(webhookEndpoints.id, doomed.id));
    const eventId = `evt_deleted${'0'.repeat(13)}`;
    await api.db.db
      .insert(events)
      .values({ id: eventId, orgId: org, livemode: false, type: 'test', data: {}, relayedAt: new Date() });
    const ids = [`wh_deleted${'0'.repeat(12)}1`, `wh_deleted${'0'.repeat(12)}2`];
    await api.db.db.insert(webhookDeliveries).values([
      { id: ids[0] as string, orgId: org, livemode: false, endpointId: doomed.id, eventId },
      { id: ids[1] as string, orgId: org, livemode: false, endpointId: healthy.id, eventId },
    ]);
    const { webhookDeliverer } = await import('../../src/features/webhooks/deliver.js');
    const { createWebhookSender } = await import('../../src/features/webhooks/send.js');
    const sender = createWebhookSender({ allowPrivate: true });
    const deliver = webhookDeliverer({ ...api.engine, sender });
    const outcomes = await Promise.all(ids.map((id) => deliver(id, 1)));
    expect(outcomes).toEqual([
      { status: 'succeeded', httpStatus: 200 },
      { status: 'succeeded', httpStatus: 200 },
    ]);
    expect(await deliveryRow(api, ids[0] as string)).toBeUndefined();
    expect(await deliveryRow(api, ids[1] as string)).toMatchObject({ status: 'succeeded', attempts: 1 });
    expect(await attemptRows(api, ids[1] as string)).toHaveLength(1);
    sender.close();
    server.closeAllConnections();
    server.close();
    await healthy.receiver.close();
  });
});

describe('without WEBHOOK_ALLOW_PRIVATE', () => {
  it('refuses at delivery time an https URL on a loopback address, logging why but never the address', async () => {
    const { test_key, org } = await api.createOrg();
    const endpoint = await receivingEndpoint(api, test_key);
    const { webhookDeliverer } = await import('../../src/features/webhooks/deliver.js');
    const { createWebhookSender } = await import('../../src/features/webhooks/send.js');
    const sender = createWebhookSender({ allowPrivate: false });
    const deliver = webhookDeliverer({ ...api.engine, sender });
    const targets = [
      `https://127.0.0.1:${endpoint.receiver.port}/hook`,
      `https://localhost:${endpoint.receiver.port}/`,
    ];
    for (const [index, url] of targets.entries()) {
      await api.db.db.update(webhookEndpoints).set({ url }).where(eq(webhookEndpoints.id, endpoint.id));
      const eventId = `evt_private${'0'.repeat(12)}${index}`;
      const deliveryId = `wh_private${'0'.repeat(12)}${index}`;
      await api.db.db
        .insert(events)
        .values({ id: eventId, orgId: org, livemode: false, type: 'test', data: {}, relayedAt: new Date() });
      await api.db.db
        .insert(webhookDeliveries)
        .values({ id: deliveryId, orgId: org, livemode: false, endpointId: endpoint.id, eventId });
      const outcome = await deliver(deliveryId, 1);
      const refused = 'refused: the address is private';
      expect(outcome).toEqual({ status: 'retry', reason: refused, afterMs: expect.any(Number) });
      const [attempt] = await attemptRows(api, deliveryId);
      expect(attempt).toMatchObject({ status: null, error: refused });
      expect(await deliveryRow(api, deliveryId)).toMatchObject({ lastStatus: null, lastError: refused });
      // What the client reads: the class of the failure, not what `localhost` resolved to.
      const logged = await api.call('GET', `/v1/events/${eventId}`, { key: test_key });
      expect(logged.status).toBe(200);
      expect(logged.body.deliveries).toEqual([expect.objectContaining({ last_error: refused })]);
      expect(logged.text).not.toContain('127.0.0.1');
    }
    expect(endpoint.receiver.received).toHaveLength(0);
    sender.close();
    await endpoint.receiver.close();
  });

  it('has the failures recorded before with their addresses rewritten by the migration to their class', async () => {
    const { test_key, org } = await api.createOrg();
    const endpoint = await receivingEndpoint(api, test_key);
    const leaked =
      'DNS lookup 10.1.2.3(family:4, host:hooks.internal) is not allowed. Because, It is private IP address.';
    const reason =
      'disabled after 3 days of failed deliveries; last answer: connect ECONNREFUSED 10.1.2.3:443';
    await api.db.db
      .update(webhookEndpoints)
      .set({ enabled: false, disabledReason: reason })
      .where(eq(webhookEndpoints.id, endpoint.id));
    const eventId = `evt_leaked${'0'.repeat(14)}`;
    const deliveryId = `wh_leaked${'0'.repeat(14)}`;
    await api.db.db
      .insert(events)
      .values({ id: eventId, orgId: org, livemode: false, type: 'test', data: {} });
    await api.db.db.insert(webhookDeliveries).values({
      id: deliveryId,
      orgId: org,
      livemode: false,
      endpointId: endpoint.id,
      eventId,
      status: 'failed',
      lastError: leaked,
    });
    await api.db.db
      .insert(webhookAttempts)
      .values({ deliveryId, error: 'connect ECONNREFUSED 10.1.2.3:443', durationMs: 1 });
    // The migration's own statements, run again on these rows.
    const file = (await readdir('drizzle')).find((name) => name.endsWith('_webhook_secret_rotation.sql'));
    const migration = await readFile(`drizzle/${file}`, 'utf8');
    for (const statement of migration.split('--> statement-breakpoint')) {
      if (statement.includes('UPDATE')) await api.db.sql.unsafe(statement);
    }
    expect(await deliveryRow(api, deliveryId)).toMatchObject({
      lastError: 'refused: the address is private',
    });
    expect(await attemptRows(api, deliveryId)).toEqual([
      expect.objectContaining({ error: 'connection refused' }),
    ]);
    expect((await endpointRow(api, endpoint.id))?.disabledReason).toBe(
      'disabled after 3 days of failed deliveries; last answer: connection refused',
    );
    await endpoint.receiver.close();
  });

  it('refuses at delivery time a plain http URL', async () => {
    const { createWebhookSender } = await import('../../src/features/webhooks/send.js');
    const sender = createWebhookSender({ allowPrivate: false });
    expect(await sender.send('http://example.com/hook', {}, '{}')).toMatchObject({
      ok: false,
      status: null,
      error: 'webhook URLs must use https',
    });
    sender.close();
  });

  it('counts no answer within the timeout as a failure', async () => {
    const { createServer } = await import('node:http');
    const server = createServer(() => {});
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as { port: number };
    const { createWebhookSender } = await import('../../src/features/webhooks/send.js');
    const sender = createWebhookSender({ allowPrivate: true, timeoutMs: 200 });
    expect(await sender.send(`http://127.0.0.1:${port}/`, {}, '{}')).toMatchObject({
      ok: false,
      status: null,
      error: 'no answer within 0.2 s',
    });
    sender.close();
    server.closeAllConnections();
    server.close();
  });
});

describe('the outbox', () => {
  it('notifies the rebuttal_events channel when a transaction that wrote events commits', async () => {
    const { test_key } = await api.createOrg();
    const payloads: string[] = [];
    const { unlisten } = await api.db.sql.listen('rebuttal_events', (payload) => payloads.push(payload));
    try {
      expect(payloads).toEqual([]);
      await newDispute(test_key);
      // The notification wakes the relay; what to relay is in the outbox, so it carries nothing.
      await expect.poll(() => payloads.length > 0, { timeout: 5000 }).toBe(true);
      expect(new Set(payloads)).toEqual(new Set(['']));
    } finally {
      await unlisten();
    }
  });
  it("delivers an organisation's webhooks while another's events fail every batch they are in", async () => {
    const broken = await api.createOrg();
    const brokenEndpoint = await receivingEndpoint(api, broken.test_key);
    // A row the relay cannot read (an `events` list that is not a list): any batch holding this
    // organisation's events fails. Its events are the oldest, enough to fill whole batches on their own.
    await api.db.db
      .update(webhookEndpoints)
      .set({ events: sql`'7'::jsonb` })
      .where(eq(webhookEndpoints.id, brokenEndpoint.id));
    await api.db.sql`
      insert into events (id, org_id, livemode, type, data, created_at)
      select 'evt_broken' || lpad(n::text, 14, '0'), ${broken.org}, false, 'dispute.updated', '{}'::jsonb,
        now() - interval '1 hour' + n * interval '1 millisecond'
      from generate_series(1, 600) as n`;

    const { test_key } = await api.createOrg();
    const endpoint = await receivingEndpoint(api, test_key);
    const dispute = await newDispute(test_key);
    const [received] = await endpoint.receiver.waitFor(1);
    expect(received).toMatchObject({
      verified: true,
      payload: { type: 'dispute.created', dispute: dispute.id },
    });
    const [waiting] = await api.db.sql`
      select count(*)::int as events from events where org_id = ${broken.org} and relayed_at is null`;
    expect(waiting?.events).toBe(600);

    // Mended, the broken organisation's events go too: none was lost.
    await api.db.db
      .update(webhookEndpoints)
      .set({ events: ['*'] })
      .where(eq(webhookEndpoints.id, brokenEndpoint.id));
    await enqueue(api.queues, 'relayEvents', {});
    await brokenEndpoint.receiver.waitFor(600, 20_000);
    await endpoint.receiver.close();
    await brokenEndpoint.receiver.close();
  });
});
