import { expect } from 'vitest';
import type { TestApi } from './api.js';
import {
  acceptedSubmissions,
  daysFromNow,
  getDispute,
  newTenant,
  submittableDispute,
  type Tenant,
} from './disputes.js';
import { receivingEndpoint } from './webhooks.js';

/**
 * The engine's end-to-end round on whatever stores a test started the service on (a Redis Cluster,
 * Sentinel, a pooler): queued submissions sent exactly once, webhooks delivered within seconds, Bull
 * Board answering, and rate limits refusing past their limit. Start the service with `exerciseSettings`
 * among its settings.
 */
export const exerciseSettings = {
  ADMIN_USER: 'operator',
  ADMIN_PASSWORD: 'an operator password of some length',
  // Submits answer at once (202) and go through the queue; queued ones are due within the lead.
  SUBMIT_WAIT_MS: '0',
  RATE_LIMIT_PERSONAL_DATA_PER_MINUTE: '2',
} as const;

export interface ExerciseOptions {
  /** Disputes submitted at once and disputes queued, each (default 10 and 10). */
  disputes?: number;
  /** How long every submission and webhook may take to arrive (default 30 s). */
  withinMs?: number;
  /** Where the processor's accepted submissions are counted (default the in-process mock's). */
  acceptedFor?: (id: string) => number;
  /** Runs while submissions and webhooks are in flight (a failover, a restart). */
  meanwhile?: () => Promise<void>;
}

export interface ExerciseFigures {
  submissions: number;
  /** From the last submit request to the last dispute seen `submitted`. */
  settledMs: number;
  webhooks: number;
}

export async function exerciseEngine(api: TestApi, options: ExerciseOptions = {}): Promise<ExerciseFigures> {
  const count = options.disputes ?? 10;
  const withinMs = options.withinMs ?? 30_000;
  const acceptedFor = options.acceptedFor ?? ((id: string) => acceptedSubmissions(api, id).length);
  const tenant = await newTenant(api);
  const endpoint = await receivingEndpoint(api, tenant.key, { events: ['dispute.submitted'] });

  const ids = [...(await submitted(api, tenant, count)), ...(await queued(api, tenant, count))];
  const sentAt = Date.now();
  await options.meanwhile?.();
  await expect
    .poll(
      async () => (await Promise.all(ids.map((id) => getDispute(api, tenant.key, id)))).map((d) => d.state),
      {
        timeout: withinMs,
        interval: 200,
      },
    )
    .toEqual(ids.map(() => 'submitted'));
  const settledMs = Date.now() - sentAt;
  expect(ids.map(acceptedFor)).toEqual(ids.map(() => 1));

  // One dispute.submitted event each (at least once: a receiver may see one twice, docs/api.md "Webhooks").
  await endpoint.receiver.waitFor(ids.length, withinMs);
  const received = endpoint.receiver.received.filter((hook) => hook.verified);
  const disputesTold = new Set(received.map((hook) => hook.payload.dispute as string));
  expect([...disputesTold].sort()).toEqual([...ids].sort());
  await endpoint.receiver.close();

  await expectBoard(api);
  await expectRateLimited(api, tenant);
  return { submissions: ids.length, settledMs, webhooks: received.length };
}

/** Disputes submitted now: 202 while under way, then sent by the submission worker. */
async function submitted(api: TestApi, tenant: Tenant, count: number): Promise<string[]> {
  const ids: string[] = [];
  for (let index = 0; index < count; index++) {
    const { dispute } = await submittableDispute(api, tenant);
    const response = await api.call('POST', `/v1/disputes/${dispute.id}/submit`, { key: tenant.key });
    expect(response.status, response.text).toBe(202);
    ids.push(dispute.id);
  }
  return ids;
}

/** Disputes queued (200 `queued`) whose moment has passed: due within the 24-hour lead, sent at once. */
async function queued(api: TestApi, tenant: Tenant, count: number): Promise<string[]> {
  const ids: string[] = [];
  for (let index = 0; index < count; index++) {
    const { dispute } = await submittableDispute(api, tenant, { due_by: daysFromNow(0.5) });
    const response = await api.call('POST', `/v1/disputes/${dispute.id}/submit`, {
      key: tenant.key,
      json: { queue: true },
    });
    expect(response.status, response.text).toBe(200);
    expect(response.body).toMatchObject({ state: 'queued' });
    ids.push(dispute.id);
  }
  return ids;
}

/** Bull Board lists every queue to the operator. */
async function expectBoard(api: TestApi): Promise<void> {
  const { ADMIN_USER, ADMIN_PASSWORD } = api.config;
  if (!ADMIN_USER || !ADMIN_PASSWORD) throw new Error('start the service with exerciseSettings');
  const authorization = `Basic ${Buffer.from(`${ADMIN_USER}:${ADMIN_PASSWORD}`).toString('base64')}`;
  const response = await api.call<{ queues: Array<{ name: string }> }>('GET', '/admin/queues/api/queues', {
    headers: { authorization },
  });
  expect(response.status, response.text).toBe(200);
  expect(response.body.queues.map((queue) => queue.name).sort()).toEqual(
    Object.keys(api.queues.byName).sort(),
  );
}

/** The personal data limit (2 a minute in `exerciseSettings`) refuses the third request. */
async function expectRateLimited(api: TestApi, tenant: Tenant): Promise<void> {
  const retrieve = () =>
    api.call('POST', '/v1/personal-data/retrieve', {
      key: tenant.key,
      json: { email: 'someone@example.com', name: 'Someone', notification_email: 'dpo@example.com' },
    });
  expect((await retrieve()).status).toBe(200);
  expect((await retrieve()).status).toBe(200);
  const refused = await retrieve();
  expect(refused.status, refused.text).toBe(429);
  expect(refused.body).toMatchObject({ error: { type: 'rate_limited', status: 429 } });
  expect(Number(refused.headers['retry-after'])).toBeGreaterThanOrEqual(1);
}
