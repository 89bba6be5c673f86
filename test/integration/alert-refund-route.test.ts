import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findJob } from '../../src/jobs/enqueue.js';
import { alertEvents, alertRow, insertAlert } from '../helpers/alert-refunds.js';
import { startTestApi, type TestApi } from '../helpers/api.js';
import { expectError, newTenant, type Tenant, uniqueId } from '../helpers/disputes.js';

/**
 * `POST /v1/alerts/:id/refund` (docs/api.md, "Refunds"): statuses and bodies, against the mock processor,
 * with no worker running, so nothing happens behind an answer that the test did not ask for.
 */

let api: TestApi;
let tenant: Tenant;
beforeAll(async () => {
  api = await startTestApi({ workers: [] });
  tenant = await newTenant(api);
});
afterAll(async () => {
  await api.close();
});

const refund = (id: string, options: { key?: string; headers?: Record<string, string> } = {}) =>
  api.call('POST', `/v1/alerts/${encodeURIComponent(id)}/refund`, {
    key: options.key ?? tenant.key,
    ...(options.headers && { headers: options.headers }),
  });

/** The alert object of docs/api.md, "Alerts", written out. */
function alertObject(alert: Awaited<ReturnType<typeof insertAlert>>, over: Record<string, unknown> = {}) {
  return {
    object: 'alert',
    id: alert.id,
    processor: 'mock',
    account: 'default',
    charge: alert.charge,
    amount: alert.amount,
    currency: alert.currency,
    fraud_type: 'made_with_stolen_card',
    actionable: alert.actionable,
    created: '2026-11-20T10:00:00',
    outcome: 'open',
    refund: null,
    refund_failure: null,
    dispute: null,
    livemode: false,
    url: `/v1/alerts/${alert.id}`,
    ...over,
  };
}

const callsFor = (charge: string | null) => api.mock.refunds.calls.filter((call) => call.charge === charge);

describe('POST /v1/alerts/:id/refund', () => {
  it('refunds the charge in full at once: 200 with the alert refunded, and alert.updated', async () => {
    const alert = await insertAlert(api.db.db, tenant.org, { amount: 12_000 });
    const response = await refund(alert.id);
    expect(response.status).toBe(200);
    const refundId = api.mock.refunds.made.get(`alert_refund_${alert.uid}`)?.refund;
    expect(refundId).toMatch(/^re_mock_\d+$/);
    expect(response.body).toEqual(alertObject(alert, { outcome: 'refunded', refund: refundId }));
    // The whole charge, under the key derived from the alert, through the account's connection.
    expect(callsFor(alert.charge)).toEqual([
      expect.objectContaining({
        charge: alert.charge,
        amount: 12_000,
        currency: 'usd',
        idempotencyKey: `alert_refund_${alert.uid}`,
      }),
    ]);
    const stored = await alertRow(api.db.db, alert.uid);
    expect(stored).toMatchObject({ outcome: 'refunded', refund: refundId, refundClaimedUntil: null });
    const updated = (await alertEvents(api.db.db, tenant.org)).filter((event) => event.data.id === alert.id);
    expect(updated).toEqual([{ type: 'alert.updated', data: response.body }]);
  });

  it('answers 400 invalid_request for an alert refunded already, and calls nothing', async () => {
    const alert = await insertAlert(api.db.db, tenant.org);
    expect((await refund(alert.id)).status).toBe(200);
    const again = await refund(alert.id);
    expectError(again, 400, 'invalid_request', { url: `/v1/alerts/${alert.id}/refund` });
    expect((again.body as { error: { message: string } }).error.message).toBe(
      'The alert was refunded already.',
    );
    expect(callsFor(alert.charge)).toHaveLength(1);
  });

  it.each([
    [
      'not actionable',
      { actionable: false },
      'The alert is not actionable: the processor no longer offers a refund for it.',
    ],
    ['without a charge', { charge: null }, 'The alert names no charge to refund.'],
    [
      'of a processor without a refund call',
      { processor: 'adyen' },
      'adyen offers no refund through its API: refund the charge in its dashboard.',
    ],
    [
      'disputed',
      { outcome: 'disputed' as const },
      'A dispute arrived for this charge: answer the dispute instead.',
    ],
  ])('answers 400 invalid_request for an alert %s, and changes nothing', async (_name, over, message) => {
    const alert = await insertAlert(api.db.db, tenant.org, over);
    const response = await refund(alert.id);
    expectError(response, 400, 'invalid_request', { url: `/v1/alerts/${alert.id}/refund` });
    expect((response.body as { error: { message: string } }).error.message).toBe(message);
    expect(await alertRow(api.db.db, alert.uid)).toEqual(alert);
    expect(api.mock.refunds.calls.filter((call) => call.idempotencyKey.endsWith(alert.uid))).toEqual([]);
  });

  it("answers 404 alert_not_found for an unknown id and for another organisation's alert", async () => {
    const unknown = await refund('issfr_unknown');
    expectError(unknown, 404, 'alert_not_found', { url: '/v1/alerts/issfr_unknown/refund' });
    expect((unknown.body as { error: { message: string } }).error.message).toBe(
      "No alert with id 'issfr_unknown'.",
    );

    const other = await newTenant(api);
    const theirs = await insertAlert(api.db.db, other.org);
    expectError(await refund(theirs.id), 404, 'alert_not_found', { url: `/v1/alerts/${theirs.id}/refund` });
    // The other mode of the same organisation is another tenant too.
    const live = await insertAlert(api.db.db, tenant.org, { livemode: true });
    expectError(await refund(live.id), 404, 'alert_not_found', { url: `/v1/alerts/${live.id}/refund` });
    expect(await alertRow(api.db.db, theirs.uid)).toEqual(theirs);
    expect(callsFor(theirs.charge)).toEqual([]);
    expect(callsFor(live.charge)).toEqual([]);
  });

  it("answers a refusal with the alert refund_failed and the processor's reason, never tried again", async () => {
    const alert = await insertAlert(api.db.db, tenant.org, { charge: uniqueId('ch_mock_refuse') });
    const response = await refund(alert.id);
    expect(response.status).toBe(200);
    expect(response.body).toEqual(
      alertObject(alert, {
        outcome: 'refund_failed',
        refund_failure: 'Charge has already been refunded. (charge_already_refunded)',
      }),
    );
    const again = await refund(alert.id);
    expectError(again, 400, 'invalid_request', { url: `/v1/alerts/${alert.id}/refund` });
    expect(callsFor(alert.charge)).toHaveLength(1);
    expect(await findJob(api.queues, 'refundAlert', { alertUid: alert.uid })).toBeUndefined();
  });

  it('answers 202 with the alert open when the reply is lost, and leaves the retry to the job', async () => {
    const alert = await insertAlert(api.db.db, tenant.org, { charge: uniqueId('ch_mock_lost_reply') });
    const response = await refund(alert.id);
    expect(response.status).toBe(202);
    expect(response.body).toEqual(alertObject(alert));
    // The processor did refund; the alert stays started (its lease set) for the job to finish.
    expect(api.mock.refunds.refundsOf(alert.charge ?? '')).toBe(1);
    expect((await alertRow(api.db.db, alert.uid)).refundClaimedUntil).not.toBeNull();
    const job = await findJob(api.queues, 'refundAlert', { alertUid: alert.uid });
    expect(job?.data).toEqual({ alertUid: alert.uid });
    // A second request meanwhile calls again under the same key: the same refund, now recorded.
    const again = await refund(alert.id);
    expect(again.status).toBe(200);
    expect(again.body).toMatchObject({ outcome: 'refunded', refund: expect.stringMatching(/^re_mock_/) });
    expect(api.mock.refunds.refundsOf(alert.charge ?? '')).toBe(1);
    expect(new Set(callsFor(alert.charge).map((call) => call.idempotencyKey))).toEqual(
      new Set([`alert_refund_${alert.uid}`]),
    );
  });

  it('answers the first answer again under the same Idempotency-Key, with no second call', async () => {
    const alert = await insertAlert(api.db.db, tenant.org);
    const headers = { 'Idempotency-Key': uniqueId('refund-key') };
    const first = await refund(alert.id, { headers });
    const second = await refund(alert.id, { headers });
    expect(first.status).toBe(200);
    expect(second.status).toBe(200);
    expect(second.body).toEqual(first.body);
    expect(second.headers['idempotent-replayed']).toBe('true');
    expect(callsFor(alert.charge)).toHaveLength(1);
  });

  it('answers 405 for another method on the path', async () => {
    const alert = await insertAlert(api.db.db, tenant.org);
    const response = await api.call('GET', `/v1/alerts/${alert.id}/refund`, { key: tenant.key });
    expectError(response, 405, 'method_not_allowed', { url: `/v1/alerts/${alert.id}/refund` });
    expect(response.headers.allow).toBe('POST');
  });
});
