import { count, eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { events, webhookDeliveries, webhookEndpoints } from '../../src/db/schema/index.js';
import { deliveryRowsPerBatch, relayEvents } from '../../src/features/webhooks/relay.js';
import { createQueueDeliveryDispatcher } from '../../src/jobs/delivery-dispatcher.js';
import { startTestApi, type TestApi } from '../helpers/api.js';

/**
 * The outbox relay's batches (docs/architecture.md, "The outbox and deliveries"): bounded by the deliveries they make, and
 * one organisation's failing events unable to hold back another's. No workers: the tests run the relay
 * themselves, with a clock that moves a second at each batch, so each batch's events share a `relayed_at`.
 */

let api: TestApi;
beforeAll(async () => {
  api = await startTestApi({ workers: [] });
});
afterAll(async () => {
  await api.close();
});

function relay() {
  let tick = 0;
  const start = Date.now();
  return relayEvents({
    db: api.db.db,
    deliveries: createQueueDeliveryDispatcher(api.queues),
    now: () => new Date(start + 1000 * tick++),
  });
}

/** `endpoints` enabled endpoints of one organisation, made in the database (past any cap), for every event. */
async function endpointsOf(orgId: string, endpoints: number) {
  await api.db.sql`
    insert into webhook_endpoints (id, org_id, livemode, url, events, api_version, secret)
    select 'we_relay' || substr(md5(random()::text), 1, 12) || lpad(n::text, 6, '0'), ${orgId}, false,
      'https://hooks.example.com/' || n, '["*"]'::jsonb, '2021-09-15', 'v1.none.none.none'
    from generate_series(1, ${endpoints}) as n`;
}

/** `how_many` unrelayed `dispute.updated` events of one organisation, oldest first, an hour ago. */
async function eventsOf(orgId: string, howMany: number): Promise<void> {
  await api.db.sql`
    insert into events (id, org_id, livemode, type, data, created_at)
    select 'evt_relay' || substr(md5(random()::text), 1, 12) || lpad(n::text, 6, '0'), ${orgId}, false,
      'dispute.updated', '{}'::jsonb, now() - interval '1 hour' + n * interval '1 millisecond'
    from generate_series(1, ${howMany}) as n`;
}

/** The deliveries each batch made, by the `relayed_at` its events share. */
async function deliveriesPerBatch(orgId: string): Promise<number[]> {
  const rows = await api.db.db
    .select({ relayedAt: events.relayedAt, deliveries: count() })
    .from(webhookDeliveries)
    .innerJoin(events, eq(events.id, webhookDeliveries.eventId))
    .where(eq(webhookDeliveries.orgId, orgId))
    .groupBy(events.relayedAt)
    .orderBy(events.relayedAt);
  return rows.map((row) => row.deliveries);
}

async function unrelayed(orgId: string): Promise<number> {
  const [row] = await api.db.db
    .select({ events: count() })
    .from(events)
    .where(sql`${events.orgId} = ${orgId} and ${events.relayedAt} is null`);
  return row?.events ?? 0;
}

describe('a relay batch', () => {
  it('makes at most deliveryRowsPerBatch deliveries, taking fewer events when their endpoints are many', async () => {
    const { org } = await api.createOrg();
    const endpoints = api.config.WEBHOOK_ENDPOINTS_MAX;
    const eventCount = Math.ceil(deliveryRowsPerBatch / endpoints) + 1;
    await endpointsOf(org, endpoints);
    await eventsOf(org, eventCount);
    const report = await relay();
    expect(report).toMatchObject({ events: eventCount, queued: eventCount * endpoints, failed: [] });
    const batches = await deliveriesPerBatch(org);
    expect(batches.length).toBeGreaterThan(1);
    for (const deliveries of batches) expect(deliveries).toBeLessThanOrEqual(deliveryRowsPerBatch);
    expect(batches.reduce((sum, deliveries) => sum + deliveries, 0)).toBe(eventCount * endpoints);
    expect(await unrelayed(org)).toBe(0);
  });

  it('relays an event whose own deliveries are more than a batch takes, in parts of deliveryRowsPerBatch', async () => {
    const { org } = await api.createOrg();
    // Endpoints made before the cap, or a cap lowered since.
    await endpointsOf(org, deliveryRowsPerBatch + 1);
    await eventsOf(org, 1);
    expect(await relay()).toMatchObject({ events: 1, queued: deliveryRowsPerBatch + 1, failed: [] });
    expect(await deliveriesPerBatch(org)).toEqual([deliveryRowsPerBatch + 1]);
  });
});

describe('an organisation whose events fail their batch', () => {
  it("holds back no other organisation's events, even when its own fill whole batches", async () => {
    const broken = await api.createOrg();
    const other = await api.createOrg();
    await endpointsOf(broken.org, 1);
    // A row the relay cannot read (an `events` list that is not a list) fails any batch holding its events.
    await api.db.db
      .update(webhookEndpoints)
      .set({ events: sql`'7'::jsonb` })
      .where(eq(webhookEndpoints.orgId, broken.org));
    await eventsOf(broken.org, 1200);
    await endpointsOf(other.org, 2);
    await eventsOf(other.org, 3);

    const report = await relay();
    expect(report.failed).toEqual([
      { orgId: broken.org, error: expect.objectContaining({ type: 'TypeError' }) },
    ]);
    expect(report).toMatchObject({ events: 3, queued: 6 });
    expect(await unrelayed(other.org)).toBe(0);
    expect(await deliveriesPerBatch(other.org)).toEqual([6]);
    // The broken organisation's events wait, none lost, and go once its row is mended.
    expect(await unrelayed(broken.org)).toBe(1200);
    await api.db.db
      .update(webhookEndpoints)
      .set({ events: ['*'] })
      .where(eq(webhookEndpoints.orgId, broken.org));
    expect(await relay()).toMatchObject({ events: 1200, queued: 1200, failed: [] });
    expect(await unrelayed(broken.org)).toBe(0);
  });
});
