import { EventEmitter } from 'node:events';
import { eq } from 'drizzle-orm';
import { expect } from 'vitest';
import { webhookAttempts, webhookDeliveries, webhookEndpoints } from '../../src/db/schema/index.js';
import { jobCatalog } from '../../src/jobs/catalog.js';
import { startWebhookReceiver, type WebhookReceiver } from '../fakes/webhook-receiver.js';
import type { TestApi } from './api.js';

/** Webhook test plumbing: endpoints with their receivers, the job events of deliveries, and the rows. */

export type JobEventName = 'completed' | 'failed' | 'delayed';

/**
 * Every completed, failed and delayed event of the webhook queue since the log started, so a test can
 * wait for one that may already have happened. A retried attempt shows as `delayed`; `failed` only when
 * the job ends failed.
 */
export class JobEventLog {
  private readonly seen = new Map<string, JobEventName[]>();
  private readonly arrivals = new EventEmitter();

  static async start(api: TestApi): Promise<JobEventLog> {
    const log = new JobEventLog();
    const events = api.queues.events('webhook');
    for (const name of ['completed', 'failed', 'delayed'] as const) {
      events.on(name, ({ jobId }: { jobId: string }) => log.record(jobId, name));
    }
    await events.waitUntilReady();
    return log;
  }

  private record(jobId: string, name: JobEventName): void {
    this.seen.set(jobId, [...(this.seen.get(jobId) ?? []), name]);
    this.arrivals.emit('event');
  }

  count(deliveryId: string, name: JobEventName): number {
    return (this.seen.get(deliveryJobId(deliveryId)) ?? []).filter((seen) => seen === name).length;
  }

  /** Resolves once the delivery's job has had `times` events called `name`. */
  wait(deliveryId: string, name: JobEventName, times = 1, timeoutMs = 10_000): Promise<void> {
    if (this.count(deliveryId, name) >= times) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.arrivals.off('event', check);
        reject(new Error(`job of ${deliveryId}: no ${times}x '${name}' within ${timeoutMs} ms`));
      }, timeoutMs);
      const check = () => {
        if (this.count(deliveryId, name) < times) return;
        clearTimeout(timer);
        this.arrivals.off('event', check);
        resolve();
      };
      this.arrivals.on('event', check);
    });
  }
}

export function deliveryJobId(deliveryId: string): string {
  return jobCatalog.deliverWebhook.jobId?.({ deliveryId }) ?? '';
}

/** Runs a delivery's retry now instead of after its backoff, as an operator's promote in Bull Board does. */
export async function promoteRetry(api: TestApi, deliveryId: string): Promise<void> {
  const job = await api.queues.byName.webhook.getJob(deliveryJobId(deliveryId));
  expect(await job?.getState()).toBe('delayed');
  await job?.promote();
}

export interface ReceivingEndpoint {
  id: string;
  secret: string;
  receiver: WebhookReceiver;
  body: Record<string, unknown>;
}

/** A receiver and an endpoint pointing at it, created through the API with the receiver's secret set. */
export async function receivingEndpoint(
  api: TestApi,
  key: string,
  params: Record<string, unknown> = {},
  answers: number[] = [],
): Promise<ReceivingEndpoint> {
  const receiver = await startWebhookReceiver({ answers });
  const response = await api.call('POST', '/v1/webhook_endpoints', {
    key,
    json: { url: receiver.url, ...params },
  });
  expect(response.status, response.text).toBe(201);
  receiver.secret = response.body.secret as string;
  return { id: response.body.id as string, secret: receiver.secret, receiver, body: response.body };
}

export async function deliveryRow(api: TestApi, id: string) {
  const [row] = await api.db.db.select().from(webhookDeliveries).where(eq(webhookDeliveries.id, id));
  return row;
}

export async function attemptRows(api: TestApi, deliveryId: string) {
  return api.db.db
    .select()
    .from(webhookAttempts)
    .where(eq(webhookAttempts.deliveryId, deliveryId))
    .orderBy(webhookAttempts.id);
}

export async function endpointRow(api: TestApi, id: string) {
  const [row] = await api.db.db.select().from(webhookEndpoints).where(eq(webhookEndpoints.id, id));
  return row;
}
