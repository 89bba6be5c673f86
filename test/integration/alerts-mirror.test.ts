import { and, asc, eq, sql } from 'drizzle-orm';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Db } from '../../src/db/client.js';
import { alerts, connectedAccounts, disputes, events } from '../../src/db/schema/index.js';
import { mirrorAlertPage } from '../../src/features/alerts/mirror.js';
import { pollAccount } from '../../src/features/mirroring/poll.js';
import { receivePush } from '../../src/features/mirroring/push.js';
import { createOrganisation } from '../../src/features/organisations/organisations.js';
import type { AlertPage, ListAlertsRequest, NormalizedAlert } from '../../src/processors/alert-types.js';
import { MockAdapter } from '../../src/processors/mock/adapter.js';
import { MockDisputeWorld } from '../../src/processors/mock/world.js';
import { createAdapterRegistry } from '../../src/processors/registry.js';
import { type NormalizedDispute, ProcessorError, type PushResult } from '../../src/processors/types.js';
import { SecretBox } from '../../src/secrets.js';
import { noAlertRefunds } from '../helpers/alert-refunds.js';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';

/**
 * Mirroring alerts (features/alerts/) as the mirror job and pushes drive it, against the mock processor,
 * on real Postgres: what is written, the events, the outcome rules, and the links to disputes both ways.
 */

/** The mock adapter, whose alert listing can fail as an outage would, and which pushes alerts. */
class AlertingMock extends MockAdapter {
  alertFailures: Error[] = [];
  override listAlerts(request: ListAlertsRequest): Promise<AlertPage> {
    const failure = this.alertFailures.shift();
    return failure ? Promise.reject(failure) : super.listAlerts(request);
  }
  /** A push whose body is the alerts, as JSON (the mock's own push: no signature to check). */
  async parsePush(request: { body: Buffer }): Promise<PushResult> {
    const alerts = (JSON.parse(request.body.toString()) as NormalizedAlert[]).map((alert) => ({
      ...alert,
      reportedAt: alert.reportedAt && new Date(alert.reportedAt),
    }));
    return { disputes: [], refresh: [], alerts };
  }
}

let database: TestDatabase;
let db: Db;
const world = new MockDisputeWorld({ seed: 20, initialDisputes: 0, live: false });
const mock = new AlertingMock({ world });
const adapters = createAdapterRegistry({ mock });
const secrets = new SecretBox('alerts-mirror-test-secret-of-32-characters');
const logger = pino({ level: 'silent' });

beforeAll(async () => {
  database = await createTestDatabase();
  db = database.db;
});
afterAll(async () => {
  await database.drop();
});

type Account = typeof connectedAccounts.$inferSelect;

async function newAccount(livemode = false, orgId?: string): Promise<Account> {
  const org = orgId ?? (await createOrganisation(db, { name: 'Alerts' })).org;
  const [row] = await db
    .insert(connectedAccounts)
    .values({ orgId: org, livemode, id: 'default', processor: 'mock' })
    .returning();
  if (!row) throw new Error('no account');
  return row;
}

const poll = (account: Account) =>
  pollAccount({ db, adapters, secrets, logger, alertRefunds: noAlertRefunds }, account.uid);
const alertsOf = (account: Account) => mock.alerts.account(account);
const disputesOf = (account: Account) => world.account(account);
const push = (account: Account, sent: NormalizedAlert[]) =>
  receivePush(
    { db, adapters, secrets, logger, refresher: { refresh: async () => {} }, alertRefunds: noAlertRefunds },
    { processor: 'mock', accountUid: account.uid, headers: {}, body: Buffer.from(JSON.stringify(sent)) },
  );

async function storedAlert(account: Account, id: string) {
  const [row] = await db
    .select()
    .from(alerts)
    .where(and(eq(alerts.orgId, account.orgId), eq(alerts.livemode, account.livemode), eq(alerts.id, id)));
  return row;
}

async function storedDispute(account: Account, id: string) {
  const [row] = await db
    .select()
    .from(disputes)
    .where(and(eq(disputes.orgId, account.orgId), eq(disputes.id, id)));
  return row;
}

async function eventsOf(account: Account) {
  const rows = await db
    .select({ type: events.type, data: events.data })
    .from(events)
    .where(and(eq(events.orgId, account.orgId), eq(events.livemode, account.livemode)))
    // Events of one transaction share their time and have random ids: the object's id orders them.
    .orderBy(asc(events.createdAt), sql`${events.data}->>'id'`, asc(events.type));
  return rows.map(({ type, data }) => ({ type, data }));
}

const dispute = (overrides: Partial<NormalizedDispute> = {}) => ({
  state: 'needs_response' as const,
  reason: 'fraudulent' as const,
  ...overrides,
});

describe('polling alerts', () => {
  it('creates alerts after the disputes, with alert.created, and moves the alert cursor', async () => {
    const account = await newAccount();
    const first = alertsOf(account).add({ amount: 1500, currency: 'usd' });
    const second = alertsOf(account).add({ actionable: false });

    const result = await poll(account);

    expect(result).toMatchObject({
      outcome: 'polled',
      alerts: { outcome: 'polled', more: false, pages: 1, created: 2, updated: 0, unchanged: 0 },
    });
    expect(await storedAlert(account, first.id)).toMatchObject({
      processor: 'mock',
      account: 'default',
      charge: first.charge,
      amount: 1500,
      currency: 'usd',
      fraudType: 'made_with_stolen_card',
      actionable: true,
      outcome: 'open',
      refund: null,
      dispute: null,
      version: 1,
    });
    // Nothing can be done about a warning the processor no longer offers for action.
    expect((await storedAlert(account, second.id))?.outcome).toBe('ignored');
    const recorded = await eventsOf(account);
    expect(recorded.map((event) => [event.type, event.data.id])).toEqual([
      ['alert.created', first.id],
      ['alert.created', second.id],
    ]);
    expect(recorded[0]?.data).toMatchObject({
      object: 'alert',
      id: first.id,
      outcome: 'open',
      url: `/v1/alerts/${first.id}`,
    });
    const [row] = await db.select().from(connectedAccounts).where(eq(connectedAccounts.uid, account.uid));
    expect(row?.alertCursor).toBe('2');
  });

  it('an identical re-poll writes nothing; a change updates the alert with alert.updated', async () => {
    const account = await newAccount();
    const alert = alertsOf(account).add();
    await poll(account);
    await db
      .update(connectedAccounts)
      .set({ alertCursor: null })
      .where(eq(connectedAccounts.uid, account.uid));

    expect(await poll(account)).toMatchObject({ alerts: { created: 0, updated: 0, unchanged: 1 } });
    expect((await storedAlert(account, alert.id))?.version).toBe(1);

    alertsOf(account).change(alert.id, { actionable: false });
    expect(await poll(account)).toMatchObject({ alerts: { created: 0, updated: 1 } });
    expect(await storedAlert(account, alert.id)).toMatchObject({
      actionable: false,
      outcome: 'ignored',
      version: 2,
    });
    expect((await eventsOf(account)).map((event) => [event.type, event.data.outcome])).toEqual([
      ['alert.created', 'open'],
      ['alert.updated', 'ignored'],
    ]);
  });

  it("never undoes this service's outcome: a refunded or failed alert stays so, one under refund stays open", async () => {
    const account = await newAccount();
    const refunded = alertsOf(account).add();
    const failed = alertsOf(account).add();
    const leased = alertsOf(account).add();
    await poll(account);
    const set = (id: string, values: Partial<typeof alerts.$inferInsert>) =>
      db
        .update(alerts)
        .set(values)
        .where(and(eq(alerts.orgId, account.orgId), eq(alerts.id, id)));
    await set(refunded.id, { outcome: 'refunded', refund: 're_1' });
    await set(failed.id, { outcome: 'refund_failed', refundFailure: 'charge_already_refunded' });
    await set(leased.id, { refundClaimedUntil: new Date(Date.now() + 60_000) });

    for (const { id } of [refunded, failed, leased]) alertsOf(account).change(id, { actionable: false });
    await poll(account);

    expect(await storedAlert(account, refunded.id)).toMatchObject({
      outcome: 'refunded',
      refund: 're_1',
      actionable: false,
    });
    expect(await storedAlert(account, failed.id)).toMatchObject({
      outcome: 'refund_failed',
      refundFailure: 'charge_already_refunded',
    });
    expect(await storedAlert(account, leased.id)).toMatchObject({ outcome: 'open', actionable: false });
  });

  it('a failing alert listing does not stop dispute mirroring; the next poll lists the alerts', async () => {
    const account = await newAccount();
    const arrived = disputesOf(account).add();
    const alert = alertsOf(account).add();
    mock.alertFailures.push(
      new ProcessorError('mock', 'alerts are down (503)', { retryable: true, status: 503 }),
    );

    const result = await poll(account);

    expect(result).toMatchObject({
      outcome: 'polled',
      created: 1,
      alerts: { outcome: 'failed', pages: 0, reason: 'mock 503 (transient): alerts are down (503)' },
    });
    expect(await storedDispute(account, arrived.id)).toBeDefined();
    expect(await storedAlert(account, alert.id)).toBeUndefined();
    expect(await poll(account)).toMatchObject({ alerts: { outcome: 'polled', created: 1 } });
  });

  it('drops a page listed from a cursor another run has moved since: nothing written', async () => {
    const account = await newAccount();
    alertsOf(account).add();
    await poll(account);
    const late = alertsOf(account).add();
    const result = await mirrorAlertPage(db, { ...account, alertCursor: null }, [late], '9');
    expect(result).toEqual({ outcome: 'stale' });
    expect(await storedAlert(account, late.id)).toBeUndefined();
  });
});

describe('pushed alerts', () => {
  it('are written at once with their events; a late push does not make an alert actionable again', async () => {
    const account = await newAccount();
    const alert = alertsOf(account).add({ amount: 900 });
    await push(account, [alert]);
    expect(await storedAlert(account, alert.id)).toMatchObject({
      amount: 900,
      outcome: 'open',
      actionable: true,
    });

    await push(account, [{ ...alert, actionable: false }]);
    await push(account, [alert]);

    expect(await storedAlert(account, alert.id)).toMatchObject({ actionable: false, outcome: 'ignored' });
    expect((await eventsOf(account)).map((event) => event.type)).toEqual(['alert.created', 'alert.updated']);
  });
});

describe('linking alerts and disputes', () => {
  it('links a dispute that arrives after its alert, both ways: the alert is disputed, the dispute names it', async () => {
    const account = await newAccount();
    const alert = alertsOf(account).add();
    await poll(account);
    const later = disputesOf(account).add(dispute({ charge: alert.charge }));

    await poll(account);

    expect(await storedAlert(account, alert.id)).toMatchObject({ dispute: later.id, outcome: 'disputed' });
    expect(await storedDispute(account, later.id)).toMatchObject({ alert: alert.id, resolution: null });
    const recorded = await eventsOf(account);
    expect(recorded.map((event) => [event.type, event.data.id]).sort()).toEqual([
      ['alert.created', alert.id],
      ['alert.updated', alert.id],
      ['dispute.created', later.id],
    ]);
    const ofType = (type: string) => recorded.find((event) => event.type === type)?.data;
    expect(ofType('dispute.created')).toMatchObject({ alert: alert.id, resolution: null });
    expect(ofType('alert.updated')).toMatchObject({ dispute: later.id, outcome: 'disputed' });
  });

  it('links an alert that arrives after its dispute: the dispute gets dispute.updated', async () => {
    const account = await newAccount();
    const first = disputesOf(account).add(dispute({ charge: 'ch_dispute_first' }));
    await poll(account);
    const alert = alertsOf(account).add({ charge: 'ch_dispute_first' });

    await poll(account);

    expect(await storedAlert(account, alert.id)).toMatchObject({ dispute: first.id, outcome: 'disputed' });
    expect(await storedDispute(account, first.id)).toMatchObject({ alert: alert.id, version: 2 });
    const recorded = await eventsOf(account);
    expect(recorded.map((event) => [event.type, event.data.id]).sort()).toEqual([
      ['alert.created', alert.id],
      ['dispute.created', first.id],
      ['dispute.updated', first.id],
    ]);
    const ofType = (type: string) => recorded.find((event) => event.type === type)?.data;
    // The alert's only event already carries the link.
    expect(ofType('alert.created')).toMatchObject({ dispute: first.id, outcome: 'disputed' });
    expect(ofType('dispute.updated')).toMatchObject({ alert: alert.id });
  });

  it('a dispute for an alert refunded here is resolved by alert_refund, unless the processor told one', async () => {
    const account = await newAccount();
    const refunded = alertsOf(account).add();
    const prevented = alertsOf(account).add();
    await poll(account);
    await db
      .update(alerts)
      .set({ outcome: 'refunded', refund: 're_mock_1' })
      .where(eq(alerts.orgId, account.orgId));
    const late = disputesOf(account).add(dispute({ charge: refunded.charge }));
    const rdr = disputesOf(account).add(
      dispute({ charge: prevented.charge, state: 'warning_closed', resolution: 'rdr' }),
    );

    await poll(account);

    expect(await storedDispute(account, late.id)).toMatchObject({
      alert: refunded.id,
      resolution: 'alert_refund',
    });
    expect(await storedDispute(account, rdr.id)).toMatchObject({ alert: prevented.id, resolution: 'rdr' });
    // Refunded stays refunded; the link is made all the same.
    expect(await storedAlert(account, refunded.id)).toMatchObject({ outcome: 'refunded', dispute: late.id });
  });

  it('never links across organisations or modes: an alert for another tenant’s charge stays unlinked', async () => {
    const ours = await newAccount();
    const theirs = await newAccount();
    const ourLive = await newAccount(true, ours.orgId);
    const theirDispute = disputesOf(theirs).add(dispute({ charge: 'ch_shared' }));
    const liveDispute = disputesOf(ourLive).add(dispute({ charge: 'ch_shared' }));
    await poll(theirs);
    await poll(ourLive);

    const alert = alertsOf(ours).add({ charge: 'ch_shared' });
    await poll(ours);

    expect(await storedAlert(ours, alert.id)).toMatchObject({ dispute: null, outcome: 'open' });
    expect(await storedDispute(theirs, theirDispute.id)).toMatchObject({ alert: null, version: 1 });
    expect(await storedDispute(ourLive, liveDispute.id)).toMatchObject({ alert: null, version: 1 });
    expect((await eventsOf(theirs)).map((event) => event.type)).toEqual(['dispute.created']);
  });
});
