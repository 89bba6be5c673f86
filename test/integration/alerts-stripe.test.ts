import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { alerts } from '../../src/db/schema/index.js';
import { formatTimestamp } from '../../src/domain/disputes.js';
import { sweepAlertRefunds } from '../../src/features/alerts/refund-dispatch.js';
import { findJob } from '../../src/jobs/enqueue.js';
import { type RunningWorkers, startWorkers } from '../../src/jobs/workers/engine.js';
import { type StripeFake, startStripeFake } from '../fakes/stripe.js';
import { alertRow, setThresholds } from '../helpers/alert-refunds.js';
import { startTestApi, type TestApi } from '../helpers/api.js';
import { newTenant, type Tenant } from '../helpers/disputes.js';
import { connectStripeFake, type StripeAccount } from '../helpers/mirroring.js';

/**
 * The "Done when" for early fraud warnings at Stripe (docs/api.md, "Alerts"): warnings mirrored
 * from the fake by the account's poll, the organisation's refund rule `usd: 5000` in test mode, the poll's
 * kick refunding the one at the threshold once through `POST /v1/refunds` and leaving the one over it
 * open; polling again and the sweep refund nothing more; a refund Stripe refuses ends `refund_failed` with
 * Stripe's reason, called once.
 */
let api: TestApi;
let tenant: Tenant;
let fake: StripeFake;
let stripe: StripeAccount;

beforeAll(async () => {
  // No workers yet: each test starts the submission queue's worker (it runs `refundAlert`) when it wants
  // the kicked jobs to run.
  api = await startTestApi({ workers: [] });
  tenant = await newTenant(api);
  fake = await startStripeFake();
  stripe = await connectStripeFake(api, tenant.org, fake);
  await setThresholds(api.db.db, tenant.org, { test: { usd: 5000 } });
});
afterAll(async () => {
  await fake.close();
  await api.close();
});

const poll = async () =>
  expect(await stripe.poll()).toMatchObject({
    outcome: 'polled',
    alerts: { outcome: 'polled' },
  });

const refundPosts = (charge: string) =>
  fake.received.filter(
    (request) =>
      request.method === 'POST' &&
      request.path === '/v1/refunds' &&
      new URLSearchParams(request.body.toString('utf8')).get('charge') === charge,
  );

async function listed() {
  const response = await api.call<{ data: Record<string, unknown>[] }>('GET', '/v1/alerts', {
    key: tenant.key,
  });
  expect(response.status, response.text).toBe(200);
  return response.body.data;
}

/** The alert object of the fake's warning `id`, as the API shows it, with `over` its changed fields. */
function expected(id: string, over: Record<string, unknown>) {
  const warning = fake.radar.warning(id);
  const charge = fake.radar.chargeOf(id);
  return {
    object: 'alert',
    id,
    processor: 'stripe',
    account: 'stripe',
    charge: charge.id,
    amount: charge.amount,
    currency: 'usd',
    fraud_type: warning.fraud_type,
    actionable: true,
    created: formatTimestamp(new Date(Number(warning.created) * 1000)),
    outcome: 'open',
    refund: null,
    refund_failure: null,
    dispute: null,
    livemode: false,
    url: `/v1/alerts/${id}`,
    ...over,
  };
}

async function uidOf(id: string): Promise<string> {
  const [row] = await api.db.db.select({ uid: alerts.uid }).from(alerts).where(eq(alerts.id, id));
  if (!row) throw new Error(`alert ${id} not mirrored`);
  return row.uid;
}

const settled = async (id: string) => {
  const uid = await uidOf(id);
  await expect
    .poll(async () => (await alertRow(api.db.db, uid)).outcome, { timeout: 20_000 })
    .not.toBe('open');
  const job = await findJob(api.queues, 'refundAlert', { alertUid: uid });
  await expect.poll(() => job?.getState(), { timeout: 20_000 }).toBe('completed');
};

describe('early fraud warnings against the Stripe fake', () => {
  it('refunds the warning at the threshold once, leaves the one over it open, and never refunds again', {
    timeout: 90_000,
  }, async () => {
    const [at] = fake.radar.addWarnings(1, { amount: 5000, currency: 'usd' }) as [string];
    const [over] = fake.radar.addWarnings(1, { amount: 5001, currency: 'usd' }) as [string];
    const atCharge = fake.radar.chargeOf(at).id;
    const overCharge = fake.radar.chargeOf(over).id;
    await poll();
    const workers: RunningWorkers = await startWorkers(api.engine, ['submission']);
    try {
      await settled(at);
      const [refund] = fake.radar.refundsOf(atCharge) as [{ id: string }];
      expect(fake.radar.refundsOf(atCharge)).toEqual([
        expect.objectContaining({ id: refund.id, amount: 5000, charge: atCharge, status: 'succeeded' }),
      ]);
      expect(fake.radar.refundsOf(overCharge)).toEqual([]);
      expect(fake.radar.refundCount).toBe(1);
      // One call, under the key derived from the alert (docs/api.md, "Alerts").
      expect(refundPosts(atCharge).map((request) => request.headers['idempotency-key'])).toEqual([
        `alert_refund_${await uidOf(at)}`,
      ]);
      expect(await listed()).toEqual([
        expected(over, {}),
        expected(at, { outcome: 'refunded', refund: refund.id }),
      ]);

      // Polling again mirrors Stripe's `actionable: false` for the refunded charge, and neither that nor
      // the sweep refunds again.
      await poll();
      expect(
        await sweepAlertRefunds({
          db: api.db.db,
          adapters: api.deps.adapters,
          refunder: api.deps.alertRefunds,
        }),
      ).toEqual({
        refunds: 0,
      });
      await new Promise((resolve) => setTimeout(resolve, 500));
      expect(fake.radar.refundsOf(atCharge)).toHaveLength(1);
      expect(fake.radar.refundsOf(overCharge)).toEqual([]);
      expect(refundPosts(atCharge)).toHaveLength(1);
      expect(refundPosts(overCharge)).toEqual([]);
      expect(fake.radar.refundCount).toBe(1);
      expect(await listed()).toEqual([
        expected(over, {}),
        expected(at, { outcome: 'refunded', refund: refund.id, actionable: false }),
      ]);
    } finally {
      await workers.close(1000);
    }
  });

  it("ends refund_failed with Stripe's reason when Stripe refuses the refund, and does not retry", {
    timeout: 90_000,
  }, async () => {
    const [id] = fake.radar.addWarnings(1, { amount: 1200, currency: 'usd' }) as [string];
    const charge = fake.radar.chargeOf(id).id;
    const refundsBefore = fake.radar.refundCount;
    await poll();
    // The charge is disputed at Stripe after the poll mirrored the warning as actionable and kicked its
    // refund, before the job runs: Stripe refuses the refund.
    fake.radar.disputeCharge(id);
    const workers: RunningWorkers = await startWorkers(api.engine, ['submission']);
    try {
      await settled(id);
      const response = await api.call<Record<string, unknown>>('GET', `/v1/alerts/${id}`, {
        key: tenant.key,
      });
      expect(response.status, response.text).toBe(200);
      expect(response.body).toEqual(
        expected(id, {
          outcome: 'refund_failed',
          refund_failure: `Stripe refused the refund: charge_disputed: Charge ${charge} has been charged back; refunds are not possible.`,
        }),
      );
      expect(
        await sweepAlertRefunds({
          db: api.db.db,
          adapters: api.deps.adapters,
          refunder: api.deps.alertRefunds,
        }),
      ).toEqual({
        refunds: 0,
      });
      await new Promise((resolve) => setTimeout(resolve, 500));
      expect(refundPosts(charge)).toHaveLength(1);
      expect(fake.radar.refundsOf(charge)).toEqual([]);
      expect(fake.radar.refundCount).toBe(refundsBefore);
    } finally {
      await workers.close(1000);
    }
  });
});
