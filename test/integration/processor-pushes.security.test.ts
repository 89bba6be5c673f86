import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectedAccounts } from '../../src/db/schema/index.js';
import { sealedAt } from '../../src/features/secrets/sealed-columns.js';
import { type AdyenFake, adyenFakeCredentials, startAdyenFake } from '../fakes/adyen.js';
import { type CheckoutFake, checkoutFakeCredentials, startCheckoutFake } from '../fakes/checkout.js';
import { type PaypalFake, startPaypalFake } from '../fakes/paypal.js';
import { startWorldpayFake, type WorldpayFake, worldpayFakeCredentials } from '../fakes/worldpay.js';
import { startTestApi, type TestApi } from '../helpers/api.js';
import { readStored, type Tenant } from '../helpers/disputes.js';
import { paypalCredentials } from '../helpers/processor-specs.js';
import { snapshotTables } from '../helpers/security.js';
import { redisUrl } from '../helpers/services.js';

/**
 * Pushes a forger can send (docs/operations.md, "Processors"): a validly signed push replayed after the
 * processor's own retries, Adyen's unsigned fields altered under a valid HMAC, and forged PayPal pushes,
 * which must not spend the account's calls.
 */

let api: TestApi;
let tenant: Pick<Tenant, 'org'>;
let redis: Redis;
const day = 86_400_000;

beforeAll(async () => {
  // No workers: a push that names a dispute to fetch leaves its job in the queue, to be counted.
  api = await startTestApi({ workers: [] });
  tenant = await api.createOrg('Pushes');
  redis = new Redis(redisUrl);
});
afterAll(async () => {
  redis.disconnect();
  await api.close();
});

async function connect(processor: string, credentials: object, baseUrl: string): Promise<string> {
  const uid = randomUUID();
  const [account] = await api.db.db
    .insert(connectedAccounts)
    .values({
      uid,
      orgId: tenant.org,
      livemode: false,
      id: processor,
      processor,
      credentials: api.deps.secrets.seal(JSON.stringify(credentials), sealedAt('accountCredentials', uid)),
      baseUrl,
    })
    .returning();
  if (!account) throw new Error('no account');
  return account.uid;
}

type Push = { headers: Record<string, string>; body: Buffer };
const send = (processor: string, uid: string, push: Push) =>
  api.call('POST', `/processor-hooks/${processor}/${uid}`, { raw: push.body, headers: push.headers });

const refreshJobs = async () =>
  Object.values(await api.queues.byName.mirror.getJobCounts()).reduce((a, b) => a + b, 0);

describe('replay window: a push whose signature covers its time', () => {
  let worldpay: WorldpayFake;
  let checkout: CheckoutFake;
  let worldpayUid: string;
  let checkoutUid: string;
  beforeAll(async () => {
    [worldpay, checkout] = await Promise.all([startWorldpayFake(), startCheckoutFake()]);
    worldpayUid = await connect('worldpay', worldpayFakeCredentials, worldpay.server.url);
    checkoutUid = await connect('checkout', checkoutFakeCredentials, checkout.server.url);
  });
  afterAll(async () => {
    await Promise.all([worldpay.close(), checkout.close()]);
  });

  it('Worldpay: an event older than its week of retries is refused though it verifies; a fresh one is written', async () => {
    const old = worldpay.addDispute({ changedAt: new Date(Date.now() - 9 * day) });
    const ahead = worldpay.addDispute({ changedAt: new Date(Date.now() + 3_600_000) });
    const before = await snapshotTables(api.db.sql);
    for (const dispute of [old, ahead]) {
      const refused = await send('worldpay', worldpayUid, worldpay.event(dispute.reference));
      expect(refused.status).toBe(400);
      expect(refused.body).toMatchObject({ error: { type: 'invalid_request', status: 400 } });
    }
    const replay = await send('worldpay', worldpayUid, worldpay.event(old.reference));
    expect((replay.body as { error: { message: string } }).error.message).toMatch(/a replay$/);
    expect(await snapshotTables(api.db.sql)).toEqual(before);

    const fresh = worldpay.addDispute({ changedAt: new Date(Date.now() - 6 * day) });
    const taken = await send('worldpay', worldpayUid, worldpay.event(fresh.reference));
    expect(taken.status, taken.text).toBe(200);
    expect(await readStored(api, tenant as Tenant, fresh.reference)).toMatchObject({
      state: 'needs_response',
    });
  });

  it('Checkout.com: an event created before its retries end is refused though it verifies; a fresh one is fetched', async () => {
    const [id] = checkout.addDisputes(1) as [string];
    const dated = (createdOn: Date): Push => {
      const event = JSON.parse(checkout.webhook(id).body.toString('utf8'));
      const body = Buffer.from(JSON.stringify({ ...event, created_on: createdOn.toISOString() }));
      return { headers: { 'cko-signature': checkout.sign(body) }, body };
    };
    const jobs = await refreshJobs();
    for (const createdOn of [new Date(Date.now() - 6 * day), new Date(Date.now() + 3_600_000)]) {
      const refused = await send('checkout', checkoutUid, dated(createdOn));
      expect(refused.status).toBe(400);
      expect(refused.body).toMatchObject({ error: { type: 'invalid_request', status: 400 } });
    }
    const { created_on: _, ...undated } = JSON.parse(checkout.webhook(id).body.toString('utf8'));
    const body = Buffer.from(JSON.stringify(undated));
    const noTime = await send('checkout', checkoutUid, {
      headers: { 'cko-signature': checkout.sign(body) },
      body,
    });
    expect(noTime.status).toBe(400);
    expect(await refreshJobs()).toBe(jobs);

    const taken = await send('checkout', checkoutUid, dated(new Date(Date.now() - 2 * day)));
    expect(taken.status, taken.text).toBe(200);
    expect(await refreshJobs()).toBe(jobs + 1);
  });
});

describe('Adyen: what its HMAC does not cover', () => {
  let adyen: AdyenFake;
  let uid: string;
  beforeAll(async () => {
    adyen = await startAdyenFake();
    uid = await connect('adyen', adyenFakeCredentials, adyen.server.url);
  });
  afterAll(() => adyen.close());

  /** The item as Adyen signed it, with `additionalData` and the other unsigned fields changed. */
  function altered(item: Record<string, unknown>): Record<string, unknown> {
    const data = item.additionalData as Record<string, string>;
    return {
      ...item,
      eventDate: '2026-01-01T00:00:00+01:00',
      paymentMethod: 'amex',
      additionalData: {
        ...data,
        chargebackReasonCode: '10.4',
        chargebackSchemeCode: 'visa',
        defensePeriodEndsAt: '2030-01-01T00:00:00+01:00',
        disputeStatus: 'Lost',
        defendable: 'false',
        shopperReference: 'forged-shopper',
      },
    };
  }

  it('a replayed item with altered unsigned fields verifies, and changes nothing of the mirrored dispute', async () => {
    const dispute = adyen.addDispute({
      paymentMethod: 'visa',
      reasonCode: '13.1',
      shopperReference: 'shopper-1',
    });
    const item = adyen.notificationItem(dispute.pspReference);
    const first = await send('adyen', uid, adyen.push([item]));
    expect(first.status, first.text).toBe(200);
    const stored = await readStored(api, tenant as Tenant, dispute.pspReference);
    expect(stored).toMatchObject({
      state: 'needs_response',
      reason: 'product_not_received',
      customer: 'shopper-1',
    });

    const before = await snapshotTables(api.db.sql);
    const replayed = await send('adyen', uid, adyen.push([altered(item)]));
    expect(replayed.status, replayed.text).toBe(200);
    expect(replayed.text).toBe('[accepted]');
    expect(await snapshotTables(api.db.sql)).toEqual(before);
  });

  it('a new dispute takes its details from the push; its state is the signed event code’s alone', async () => {
    const dispute = adyen.addDispute({ paymentMethod: 'visa', reasonCode: '13.1' });
    const answer = await send(
      'adyen',
      uid,
      adyen.push([altered(adyen.notificationItem(dispute.pspReference))]),
    );
    expect(answer.status, answer.text).toBe(200);
    // CHARGEBACK awaits the merchant's response, whatever the unsigned disputeStatus and defendable say.
    expect(await readStored(api, tenant as Tenant, dispute.pspReference)).toMatchObject({
      state: 'needs_response',
      reason: 'fraudulent',
      customer: 'forged-shopper',
      dueBy: new Date('2029-12-31T23:00:00Z'),
    });
  });
});

describe('PayPal: forged pushes do not spend the account’s calls', () => {
  let paypal: PaypalFake;
  let uid: string;
  beforeAll(async () => {
    paypal = await startPaypalFake();
    uid = await connect('paypal', paypalCredentials, paypal.server.url);
  });
  afterAll(() => paypal.close());

  const budgetKey = (subject: string) => `${api.config.QUEUE_PREFIX}:processor:rate:${subject}`;

  it('many pushes refused by the checks made without PayPal: no call to PayPal, no budget spent', async () => {
    const [id] = paypal.addDisputes(1) as [string];
    const push = paypal.webhook(id);
    const forgeries: Record<string, string | undefined>[] = [
      { 'paypal-transmission-sig': undefined },
      { 'paypal-transmission-id': undefined },
      { 'paypal-auth-algo': 'HS256' },
      { 'paypal-cert-url': 'https://paypal.com.evil.example/v1/notifications/certs/CERT-1' },
      { 'paypal-cert-url': 'http://api.paypal.com/v1/notifications/certs/CERT-1' },
      { 'paypal-transmission-time': new Date(Date.now() - 5 * day).toISOString() },
      { 'paypal-transmission-time': new Date(Date.now() + 3_600_000).toISOString() },
      { 'paypal-transmission-time': 'yesterday' },
    ];
    for (let round = 0; round < 5; round++) {
      for (const forged of forgeries) {
        const headers = Object.fromEntries(
          Object.entries({ ...push.headers, ...forged }).filter(([, value]) => value !== undefined),
        ) as Record<string, string>;
        const refused = await send('paypal', uid, { headers, body: push.body });
        expect(refused.status).toBe(400);
        expect(refused.body).toMatchObject({ error: { type: 'invalid_request', status: 400 } });
      }
    }
    expect(paypal.calls).toEqual([]);
    expect(await redis.exists(budgetKey(uid), budgetKey(`${uid}:push`))).toBe(0);
  });

  it('a push that only PayPal can tell from a genuine one is verified under a budget of its own', async () => {
    const [id] = paypal.addDisputes(1) as [string];
    const push = paypal.webhook(id);
    for (let round = 0; round < 3; round++) {
      const forged = {
        ...push.headers,
        'paypal-transmission-sig': Buffer.from(`forged-${round}`).toString('base64'),
      };
      const refused = await send('paypal', uid, { headers: forged, body: push.body });
      expect(refused.status).toBe(400);
      expect(refused.body).toMatchObject({ error: { type: 'invalid_request', status: 400 } });
    }
    expect(
      paypal.calls.filter((call) => call.path === '/v1/notifications/verify-webhook-signature'),
    ).toHaveLength(3);
    expect(await redis.exists(budgetKey(`${uid}:push`))).toBe(1);
    expect(await redis.exists(budgetKey(uid))).toBe(0);

    const jobs = await refreshJobs();
    const taken = await send('paypal', uid, push);
    expect(taken.status, taken.text).toBe(200);
    expect(await refreshJobs()).toBe(jobs + 1);
    expect(await redis.exists(budgetKey(uid))).toBe(0);
  });
});
