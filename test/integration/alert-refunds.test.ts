import { and, eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { alerts, disputes, events } from '../../src/db/schema/index.js';
import { refundCoveredAlerts, sweepAlertRefunds } from '../../src/features/alerts/refund-dispatch.js';
import { type RefundDeps, refundAlert } from '../../src/features/alerts/refunds.js';
import { findJob } from '../../src/jobs/enqueue.js';
import { type RunningWorkers, startWorkers } from '../../src/jobs/workers/engine.js';
import { alertEvents, alertRow, insertAlert, setThresholds } from '../helpers/alert-refunds.js';
import { startTestApi, type TestApi } from '../helpers/api.js';
import { newTenant, type Tenant, uniqueId } from '../helpers/disputes.js';

/**
 * Alert refunds exactly once (docs/architecture.md, "Alert refunds exactly once"): the executor under
 * races, lost replies, refusals and crashes, and the automatic refunds of the rule (the job, the kick, the
 * sweep), against the mock processor.
 */

let api: TestApi;
let tenant: Tenant;
let deps: RefundDeps;
beforeAll(async () => {
  api = await startTestApi({ workers: [] });
  tenant = await newTenant(api);
  deps = {
    db: api.db.db,
    adapters: api.deps.adapters,
    secrets: api.deps.secrets,
    logger: api.deps.logger,
    leaseMs: 5000,
  };
});
afterAll(async () => {
  await api.close();
});

const byRule = { by: 'rule', final: false } as const;
const keyOf = (uid: string) => `alert_refund_${uid}`;
const callsWith = (uid: string) =>
  api.mock.refunds.calls.filter((call) => call.idempotencyKey === keyOf(uid));

describe('the refund executor', () => {
  it('makes one processor call when two workers race on one alert', async () => {
    await setThresholds(api.db.db, tenant.org, { test: { usd: 5000 } });
    const alert = await insertAlert(api.db.db, tenant.org);
    let open = () => {};
    api.mock.refunds.gate = new Promise((resolve) => {
      open = resolve;
    });
    try {
      const first = refundAlert(deps, alert.uid, byRule);
      await expect.poll(() => callsWith(alert.uid).length).toBe(1);
      const second = await refundAlert(deps, alert.uid, byRule);
      expect(second.status).toBe('in_flight');
      open();
      expect((await first).status).toBe('refunded');
    } finally {
      api.mock.refunds.gate = null;
    }
    expect(callsWith(alert.uid)).toHaveLength(1);
    // Afterwards, a late job finds it decided and calls nothing.
    expect(await refundAlert(deps, alert.uid, byRule)).toMatchObject({ status: 'skipped' });
    expect(callsWith(alert.uid)).toHaveLength(1);
  });

  it('resolves by alert_refund a dispute linked while the refund was under way, with dispute.updated', async () => {
    await setThresholds(api.db.db, tenant.org, { test: { usd: 5000 } });
    const alert = await insertAlert(api.db.db, tenant.org);
    let open = () => {};
    api.mock.refunds.gate = new Promise((resolve) => {
      open = resolve;
    });
    const disputeId = uniqueId('dp_linked');
    try {
      const refund = refundAlert(deps, alert.uid, byRule);
      await expect.poll(() => callsWith(alert.uid).length).toBe(1);
      // What linking does while the lease is held (features/alerts/link.ts): both named, the alert left open.
      await api.db.db.insert(disputes).values({
        orgId: tenant.org,
        livemode: false,
        id: disputeId,
        state: 'needs_response',
        reason: 'fraudulent',
        source: 'mock',
        charge: alert.charge,
        alert: alert.id,
      });
      await api.db.db.update(alerts).set({ dispute: disputeId }).where(eq(alerts.uid, alert.uid));
      open();
      expect((await refund).status).toBe('refunded');
    } finally {
      api.mock.refunds.gate = null;
    }
    const [dispute] = await api.db.db.select().from(disputes).where(eq(disputes.id, disputeId));
    expect(dispute?.resolution).toBe('alert_refund');
    const updates = await api.db.db
      .select({ type: events.type, data: events.data })
      .from(events)
      .where(and(eq(events.orgId, tenant.org), eq(events.disputeUid, dispute?.uid ?? '')));
    expect(updates.map(({ type, data }) => [type, data.resolution, data.alert])).toEqual([
      ['dispute.updated', 'alert_refund', alert.id],
    ]);
  });

  it('makes one refund when the reply is lost: tried again under the same key, recorded refunded', async () => {
    const alert = await insertAlert(api.db.db, tenant.org, { charge: uniqueId('ch_mock_lost_reply') });
    const first = await refundAlert(deps, alert.uid, byRule);
    expect(first.status).toBe('retry');
    expect((await alertRow(api.db.db, alert.uid)).outcome).toBe('open');
    const second = await refundAlert(deps, alert.uid, byRule);
    expect(second.status).toBe('refunded');
    expect(api.mock.refunds.refundsOf(alert.charge ?? '')).toBe(1);
    expect(callsWith(alert.uid)).toHaveLength(2);
    const refund = api.mock.refunds.made.get(keyOf(alert.uid))?.refund;
    expect(await alertRow(api.db.db, alert.uid)).toMatchObject({ outcome: 'refunded', refund });
  });

  it("records a refusal as refund_failed with the processor's reason, and never calls again", async () => {
    const alert = await insertAlert(api.db.db, tenant.org, { charge: uniqueId('ch_mock_refuse') });
    expect((await refundAlert(deps, alert.uid, byRule)).status).toBe('refund_failed');
    expect(await alertRow(api.db.db, alert.uid)).toMatchObject({
      outcome: 'refund_failed',
      refund: null,
      refundFailure: 'Charge has already been refunded. (charge_already_refunded)',
      refundClaimedUntil: null,
    });
    expect((await refundAlert(deps, alert.uid, byRule)).status).toBe('skipped');
    expect(callsWith(alert.uid)).toHaveLength(1);
    const events = (await alertEvents(api.db.db, tenant.org)).filter((event) => event.data.id === alert.id);
    expect(events).toEqual([
      {
        type: 'alert.updated',
        data: expect.objectContaining({ outcome: 'refund_failed', refund_failure: expect.any(String) }),
      },
    ]);
  });

  it('gives up on an outage after the last try: refund_failed, saying the processor never answered', async () => {
    const alert = await insertAlert(api.db.db, tenant.org, { charge: uniqueId('ch_mock_unavailable') });
    expect((await refundAlert(deps, alert.uid, byRule)).status).toBe('retry');
    expect((await refundAlert(deps, alert.uid, { by: 'rule', final: true })).status).toBe('refund_failed');
    expect((await alertRow(api.db.db, alert.uid)).refundFailure).toBe(
      'The processor did not answer after every try: The mock processor is unavailable (503).',
    );
    expect(callsWith(alert.uid)).toHaveLength(2);
  });

  it('finishes a refund whose worker died mid-call once its lease expires, under the same key', async () => {
    // No threshold covers it: a refund by hand started it, and a crash must not leave it behind.
    await setThresholds(api.db.db, tenant.org, {});
    const alert = await insertAlert(api.db.db, tenant.org);
    // What a worker that died mid-call leaves: its lease, and the processor's refund under the key.
    await api.db.db
      .update(alerts)
      .set({ refundClaimedUntil: sql`now() + interval '1 hour'` })
      .where(eq(alerts.uid, alert.uid));
    await api.mock.refunds.refundCharge({
      connection: {
        account: { uid: 'x', id: 'default', livemode: false },
        credentials: null,
        baseUrl: null,
        readOnly: false,
      },
      charge: alert.charge ?? '',
      amount: alert.amount,
      currency: alert.currency,
      idempotencyKey: keyOf(alert.uid),
    });
    // While the lease holds, nobody calls.
    expect((await refundAlert(deps, alert.uid, byRule)).status).toBe('in_flight');
    const refunds: string[] = [];
    await sweepAlertRefunds({ ...deps, refunder: { refund: async (uids) => void refunds.push(...uids) } });
    expect(refunds).not.toContain(alert.uid);
    // The lease expires: the sweep finds it whatever the rule says, and the retry gets the same refund.
    await api.db.db
      .update(alerts)
      .set({ refundClaimedUntil: sql`now() - interval '1 second'` })
      .where(eq(alerts.uid, alert.uid));
    await sweepAlertRefunds({ ...deps, refunder: { refund: async (uids) => void refunds.push(...uids) } });
    expect(refunds).toContain(alert.uid);
    expect((await refundAlert(deps, alert.uid, byRule)).status).toBe('refunded');
    expect(api.mock.refunds.refundsOf(alert.charge ?? '')).toBe(1);
    expect(new Set(callsWith(alert.uid).map((call) => call.charge))).toEqual(new Set([alert.charge]));
    expect(await alertRow(api.db.db, alert.uid)).toMatchObject({
      outcome: 'refunded',
      refund: api.mock.refunds.made.get(keyOf(alert.uid))?.refund,
    });
  });
});

describe('automatic refunds', () => {
  let workers: RunningWorkers | undefined;
  let org: Tenant;
  beforeAll(async () => {
    org = await newTenant(api);
    await setThresholds(api.db.db, org.org, { test: { usd: 5000, eur: 1000 } });
    workers = await startWorkers(api.engine, ['submission']);
  });
  afterAll(async () => {
    await workers?.close(1000);
  });

  const settled = (uid: string) =>
    expect.poll(async () => (await alertRow(api.db.db, uid)).outcome, { timeout: 15_000 }).not.toBe('open');

  it('refunds at the threshold per currency once, and leaves those over it, or in another currency, open', async () => {
    const at = await insertAlert(api.db.db, org.org, { amount: 5000, currency: 'usd' });
    const over = await insertAlert(api.db.db, org.org, { amount: 5001, currency: 'usd' });
    const eur = await insertAlert(api.db.db, org.org, { amount: 1000, currency: 'eur' });
    const eurOver = await insertAlert(api.db.db, org.org, { amount: 1001, currency: 'eur' });
    const gbp = await insertAlert(api.db.db, org.org, { amount: 1, currency: 'gbp' });
    const live = await insertAlert(api.db.db, org.org, { amount: 1, livemode: true });
    const all = [at, over, eur, eurOver, gbp, live].map((alert) => alert.uid);
    // The kick the mirroring makes after its commit: only those the rule covers get a job.
    expect(await refundCoveredAlerts({ db: api.db.db, alertRefunds: api.deps.alertRefunds }, all)).toBe(2);
    await settled(at.uid);
    await settled(eur.uid);
    expect((await alertRow(api.db.db, at.uid)).outcome).toBe('refunded');
    expect((await alertRow(api.db.db, eur.uid)).outcome).toBe('refunded');
    for (const alert of [over, eurOver, gbp, live]) {
      expect(await alertRow(api.db.db, alert.uid)).toMatchObject({
        outcome: 'open',
        refundClaimedUntil: null,
      });
      expect(callsWith(alert.uid)).toEqual([]);
      expect(await findJob(api.queues, 'refundAlert', { alertUid: alert.uid })).toBeUndefined();
    }
    // A second kick of the same alerts refunds nothing more.
    await refundCoveredAlerts({ db: api.db.db, alertRefunds: api.deps.alertRefunds }, all);
    await expect
      .poll(async () => (await findJob(api.queues, 'refundAlert', { alertUid: at.uid }))?.getState())
      .toBe('completed');
    expect(callsWith(at.uid)).toHaveLength(1);
    expect(callsWith(eur.uid)).toHaveLength(1);
  });

  it('refunds, by the sweep, an alert whose kick never came (a process died after the commit)', async () => {
    const alert = await insertAlert(api.db.db, org.org, { amount: 100 });
    const report = await sweepAlertRefunds({
      db: api.db.db,
      adapters: api.deps.adapters,
      refunder: api.deps.alertRefunds,
    });
    expect(report.refunds).toBeGreaterThanOrEqual(1);
    await settled(alert.uid);
    expect((await alertRow(api.db.db, alert.uid)).outcome).toBe('refunded');
    expect(callsWith(alert.uid)).toHaveLength(1);
  });

  it('retries a lost reply in the job and records one refund; a refusal is not retried', async () => {
    const lost = await insertAlert(api.db.db, org.org, {
      amount: 100,
      charge: uniqueId('ch_mock_lost_reply'),
    });
    const refused = await insertAlert(api.db.db, org.org, {
      amount: 100,
      charge: uniqueId('ch_mock_refuse'),
    });
    await refundCoveredAlerts({ db: api.db.db, alertRefunds: api.deps.alertRefunds }, [
      lost.uid,
      refused.uid,
    ]);
    await settled(lost.uid);
    await settled(refused.uid);
    expect((await alertRow(api.db.db, lost.uid)).outcome).toBe('refunded');
    expect(api.mock.refunds.refundsOf(lost.charge ?? '')).toBe(1);
    expect(callsWith(lost.uid)).toHaveLength(2);
    expect((await alertRow(api.db.db, refused.uid)).outcome).toBe('refund_failed');
    const job = await findJob(api.queues, 'refundAlert', { alertUid: refused.uid });
    await expect.poll(() => job?.getState()).toBe('completed');
    expect(callsWith(refused.uid)).toHaveLength(1);
  });
});
