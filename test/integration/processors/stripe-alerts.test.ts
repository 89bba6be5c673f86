import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { NormalizedAlert } from '../../../src/processors/alert-types.js';
import { StripeAdapter } from '../../../src/processors/stripe/adapter.js';
import { type ProcessorConnection, ProcessorError } from '../../../src/processors/types.js';
import type { FakeRequest } from '../../fakes/harness.js';
import {
  stripeFakeCredentials as credentials,
  type StripeFake,
  startStripeFake,
  stripeFakeKeys,
} from '../../fakes/stripe.js';
import { contractAccount } from '../../helpers/adapter-contract.js';

/** Stripe's early fraud warnings as alerts, and refunds, against the fake Stripe (stripe-radar.ts). */

const day = 86_400;

describe('stripe alerts and refunds against the fake Stripe', () => {
  let fake: StripeFake;
  const adapter = new StripeAdapter();
  const connection = (options: { readOnly?: boolean } = {}): ProcessorConnection => ({
    account: { ...contractAccount, livemode: false },
    credentials: JSON.stringify(
      options.readOnly ? { secret_key: stripeFakeKeys.restrictedKey } : credentials,
    ),
    baseUrl: fake.server.url,
    readOnly: options.readOnly ?? false,
  });

  beforeAll(async () => {
    fake = await startStripeFake();
  });
  afterAll(() => fake.close());

  async function requestsDuring(run: () => Promise<unknown>): Promise<FakeRequest[]> {
    const before = fake.received.length;
    await run();
    return fake.received.slice(before);
  }

  /** Pages from `cursor` until the adapter says no more: every page, and the latest of each alert. */
  async function poll(cursor: string | null, options: { limit?: number; on?: ProcessorConnection } = {}) {
    const pages: { alerts: NormalizedAlert[]; nextCursor: string | null }[] = [];
    let at = cursor;
    for (;;) {
      const page = await adapter.listAlerts({
        connection: options.on ?? connection(),
        cursor: at,
        limit: options.limit ?? 100,
      });
      pages.push(page);
      at = page.nextCursor;
      if (!page.hasMore) break;
      if (pages.length > 200) throw new Error('the listing never ends');
    }
    const latest = new Map(pages.flatMap((page) => page.alerts).map((alert) => [alert.id, alert]));
    return { pages, cursor: at, latest };
  }

  async function failure(run: () => Promise<unknown>): Promise<ProcessorError> {
    const error = await run().then(
      () => new Error('expected a failure'),
      (thrown: unknown) => thrown,
    );
    expect(error).toBeInstanceOf(ProcessorError);
    return error as ProcessorError;
  }

  it('says it lists alerts and refunds', () => {
    expect(adapter.capabilities.alerts).toBe(true);
    expect(adapter.capabilities.refund).toBe(true);
  });

  describe('listing early fraud warnings', () => {
    it('reads each warning with its charge amount and currency, 120 days back, the charges expanded', async () => {
      const [id] = fake.radar.addWarnings(1, {
        amount: 4200,
        currency: 'EUR',
        fraudType: 'made_with_stolen_card',
      }) as [string];
      const charge = fake.radar.chargeOf(id);
      let polled: Awaited<ReturnType<typeof poll>> | undefined;
      const sent = await requestsDuring(async () => {
        polled = await poll(null);
      });
      const alert = polled?.latest.get(id);
      expect(alert).toEqual({
        id,
        charge: charge.id,
        amount: 4200,
        currency: 'eur',
        fraudType: 'made_with_stolen_card',
        actionable: true,
        reportedAt: new Date((fake.radar.warning(id).created as number) * 1000),
      });
      const list = sent.find((request) => request.path === '/v1/radar/early_fraud_warnings');
      expect(list?.query.getAll('expand[]')).toEqual(['data.charge']);
      const from = Number(list?.query.get('created[gte]'));
      expect(Math.abs(from - (fake.now() - 120 * day))).toBeLessThan(5);
      // The anchor: the newest warning event, asked for by type.
      const events = sent.filter((request) => request.path === '/v1/events');
      expect(events[0]?.query.getAll('types[]')).toEqual([
        'radar.early_fraud_warning.created',
        'radar.early_fraud_warning.updated',
      ]);
    });

    it('leaves out warnings older than 120 days', async () => {
      const [old] = fake.radar.addWarnings(1, { created: fake.now() - 121 * day }) as [string];
      const [recent] = fake.radar.addWarnings(1, { created: fake.now() - 119 * day }) as [string];
      const { latest } = await poll(null);
      expect(latest.has(old)).toBe(false);
      expect(latest.has(recent)).toBe(true);
    });

    it('pages the backfill one limit at a time, then lists only what changed, and nothing when nothing did', async () => {
      fake.radar.addWarnings(7);
      const first = await poll(null, { limit: 3 });
      expect(first.pages.every((page) => page.alerts.length <= 3)).toBe(true);
      const every = fake.radar.addWarnings(0);
      expect(every).toEqual([]);
      const again = await poll(first.cursor);
      expect(again.latest.size).toBe(0);

      const [added] = fake.radar.addWarnings(1) as [string];
      const [disputed] = [...first.latest.keys()] as [string];
      fake.radar.disputeCharge(disputed);
      const changed = await poll(again.cursor);
      expect([...changed.latest.keys()].sort()).toEqual([added, disputed].sort());
      expect(changed.latest.get(disputed)?.actionable).toBe(false);
      expect(changed.latest.get(added)?.actionable).toBe(true);
      expect((await poll(changed.cursor)).latest.size).toBe(0);
    });

    it('loses no warning created while the backfill runs, and resuming from any committed cursor misses none', async () => {
      fake.radar.addWarnings(5);
      const cursors: (string | null)[] = [null];
      let at: string | null = null;
      let made: string[] = [];
      for (let pages = 0; ; pages++) {
        const page = await adapter.listAlerts({ connection: connection(), cursor: at, limit: 2 });
        if (pages === 0) made = fake.radar.addWarnings(2);
        at = page.nextCursor;
        cursors.push(at);
        if (!page.hasMore) break;
      }
      for (const cursor of cursors) {
        const { latest } = await poll(cursor, { limit: 2 });
        if (cursor === null) for (const id of made) expect(latest.has(id)).toBe(true);
      }
      const resumed = await poll(cursors[1] ?? null, { limit: 2 });
      for (const id of made) expect(resumed.latest.has(id)).toBe(true);
    });

    it('a cursor it cannot read: lists every warning again', async () => {
      const [id] = fake.radar.addWarnings(1) as [string];
      const { latest } = await poll('not a cursor');
      expect(latest.has(id)).toBe(true);
    });

    it('on a read-only account lists without expanding charges: no amount, not actionable', async () => {
      const [id] = fake.radar.addWarnings(1) as [string];
      let latest: Map<string, NormalizedAlert> | undefined;
      const sent = await requestsDuring(async () => {
        ({ latest } = await poll(null, { on: connection({ readOnly: true }) }));
      });
      expect(latest?.get(id)).toMatchObject({ amount: null, currency: null, actionable: false });
      expect(sent.every((request) => request.query.getAll('expand[]').length === 0)).toBe(true);
    });
  });

  describe('pushes', () => {
    it('gives the warning of a radar.early_fraud_warning event as it is now, with its amount', async () => {
      const [id] = fake.radar.addWarnings(1, { amount: 1234 }) as [string];
      const created = fake.radar.signedEvent(id);
      expect(await adapter.parsePush({ connection: connection(), ...created })).toEqual({
        refresh: [],
        disputes: [],
        alerts: [expect.objectContaining({ id, amount: 1234, currency: 'usd', actionable: true })],
      });
      // The created event delivered after the charge was refunded: the alert is not actionable again.
      await adapter.refundCharge({
        connection: connection(),
        charge: fake.radar.chargeOf(id).id,
        amount: 1234,
        currency: 'usd',
        idempotencyKey: `alert-${id}`,
      });
      const late = await adapter.parsePush({ connection: connection(), ...created });
      expect(late.alerts).toEqual([expect.objectContaining({ id, actionable: false })]);
      const updated = await adapter.parsePush({ connection: connection(), ...fake.radar.signedEvent(id) });
      expect(updated.alerts).toEqual([expect.objectContaining({ id, actionable: false })]);
    });

    it('a warning Stripe does not know gives no alert', async () => {
      const body = Buffer.from(
        JSON.stringify({
          id: 'evt_unknown',
          object: 'event',
          type: 'radar.early_fraud_warning.created',
          data: { object: { id: 'issfr_unknown', object: 'radar.early_fraud_warning' } },
        }),
      );
      expect(await adapter.parsePush({ connection: connection(), ...fake.sign(body) })).toEqual({
        refresh: [],
        disputes: [],
        alerts: [],
      });
    });

    it('Stripe away while the warning is fetched: a transient error, so Stripe sends the push again', async () => {
      const [id] = fake.radar.addWarnings(1) as [string];
      fake.server.inject({ kind: 'unavailable', times: 3 });
      const error = await failure(() =>
        adapter.parsePush({ connection: connection(), ...fake.radar.signedEvent(id) }),
      );
      expect(error.retryable).toBe(true);
    });
  });

  describe('refunds', () => {
    const refund = (charge: string, key: string, on = connection()) =>
      adapter.refundCharge({ connection: on, charge, amount: null, currency: null, idempotencyKey: key });

    it('refunds the charge as fraudulent under the key; the same key gives the same refund back', async () => {
      const [id] = fake.radar.addWarnings(1, { amount: 2500 }) as [string];
      const charge = fake.radar.chargeOf(id).id;
      let first: { refund: string } | undefined;
      const sent = await requestsDuring(async () => {
        first = await refund(charge, 'alert-key-1');
      });
      expect(sent.map((request) => `${request.method} ${request.path}`)).toEqual(['POST /v1/refunds']);
      expect(sent[0]?.headers['idempotency-key']).toBe('alert-key-1');
      expect(Object.fromEntries(new URLSearchParams(sent[0]?.body.toString('utf8')))).toEqual({
        charge,
        reason: 'fraudulent',
      });
      expect(first?.refund).toMatch(/^re_/);
      expect(await refund(charge, 'alert-key-1')).toEqual(first);
      expect(fake.radar.refundsOf(charge)).toEqual([
        expect.objectContaining({ id: first?.refund, amount: 2500, reason: 'fraudulent' }),
      ]);
      expect(fake.radar.warning(id).actionable).toBe(false);
    });

    it('a charge already refunded under another key: permanent, with Stripe code and message', async () => {
      const [id] = fake.radar.addWarnings(1) as [string];
      const charge = fake.radar.chargeOf(id).id;
      await refund(charge, 'alert-key-2');
      const error = await failure(() => refund(charge, 'alert-key-2-other'));
      expect(error.retryable).toBe(false);
      expect(error.status).toBe(400);
      expect(error.code).toBe('charge_already_refunded');
      expect(error.message).toBe(
        `Stripe refused the refund: charge_already_refunded: Charge ${charge} has already been refunded.`,
      );
      expect(fake.radar.refundsOf(charge)).toHaveLength(1);
    });

    it('a disputed charge: permanent, with Stripe charge_disputed', async () => {
      const [id] = fake.radar.addWarnings(1) as [string];
      fake.radar.disputeCharge(id);
      const error = await failure(() => refund(fake.radar.chargeOf(id).id, 'alert-key-3'));
      expect(error.retryable).toBe(false);
      expect(error.code).toBe('charge_disputed');
      expect(error.message).toMatch(/^Stripe refused the refund: charge_disputed: /);
    });

    it('an unknown charge: permanent, resource_missing', async () => {
      const error = await failure(() => refund('ch_nonesuch', 'alert-key-4'));
      expect(error).toMatchObject({ retryable: false, status: 400, code: 'resource_missing' });
    });

    it('a lost answer is sent again at once under the key: one refund, its id answered', async () => {
      const [id] = fake.radar.addWarnings(1) as [string];
      const charge = fake.radar.chargeOf(id).id;
      fake.radar.loseRefundReplies(1);
      const answered = await refund(charge, 'alert-key-5');
      expect(fake.server.lostAnswers.at(-1)?.path).toBe('/v1/refunds');
      expect(fake.radar.refundsOf(charge)).toEqual([expect.objectContaining({ id: answered.refund })]);
    });

    it('answers lost on every try: transient; the job retry under the key gets the one refund', async () => {
      const [id] = fake.radar.addWarnings(1) as [string];
      const charge = fake.radar.chargeOf(id).id;
      fake.radar.loseRefundReplies(3);
      const error = await failure(() => refund(charge, 'alert-key-6'));
      expect(error.retryable).toBe(true);
      const made = fake.radar.refundsOf(charge);
      expect(made).toHaveLength(1);
      expect(await refund(charge, 'alert-key-6')).toEqual({ refund: made[0]?.id });
      expect(fake.radar.refundsOf(charge)).toHaveLength(1);
    });

    it('Stripe unavailable: transient, nothing refunded', async () => {
      const [id] = fake.radar.addWarnings(1) as [string];
      const charge = fake.radar.chargeOf(id).id;
      fake.server.inject({ kind: 'unavailable', times: 3 });
      const error = await failure(() => refund(charge, 'alert-key-7'));
      expect(error).toMatchObject({ retryable: true, status: 503 });
      expect(fake.radar.refundsOf(charge)).toEqual([]);
    });

    it('a read-only account: refused without calling Stripe', async () => {
      const [id] = fake.radar.addWarnings(1) as [string];
      const sent = await requestsDuring(async () => {
        const error = await failure(() =>
          refund(fake.radar.chargeOf(id).id, 'alert-key-8', connection({ readOnly: true })),
        );
        expect(error.retryable).toBe(false);
        expect(error.message).toMatch(/read-only/);
      });
      expect(sent).toEqual([]);
    });
  });
});
