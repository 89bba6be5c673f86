import { and, asc, eq, inArray } from 'drizzle-orm';
import { drizzle } from 'drizzle-orm/postgres-js';
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Db } from '../../src/db/client.js';
import * as schema from '../../src/db/schema/index.js';
import { connectedAccounts, disputes, events } from '../../src/db/schema/index.js';
import { type DisputeState, processorOutcomeStates, serviceLocalStates } from '../../src/domain/states.js';
import { type AccountRow, connectAccount } from '../../src/features/accounts/connected-accounts.js';
import { type PollOptions, pollAccount } from '../../src/features/mirroring/poll.js';
import { mirrorPage } from '../../src/features/mirroring/write.js';
import { createOrganisation } from '../../src/features/organisations/organisations.js';
import { createQueueAccountScheduler } from '../../src/jobs/account-scheduler.js';
import { openQueues, type Queues } from '../../src/jobs/catalog.js';
import { MockAdapter } from '../../src/processors/mock/adapter.js';
import { MockDisputeWorld } from '../../src/processors/mock/world.js';
import { createAdapterRegistry } from '../../src/processors/registry.js';
import {
  type DisputePage,
  type ListDisputesRequest,
  type NormalizedDispute,
  ProcessorError,
} from '../../src/processors/types.js';
import { redisAt } from '../../src/redis-connection.js';
import { SecretBox } from '../../src/secrets.js';
import { noAlertRefunds } from '../helpers/alert-refunds.js';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';
import { redisUrl, testRedisPrefix } from '../helpers/services.js';

/**
 * Mirroring's writes (features/mirroring/write.ts) driven the way the mirror job drives it (features/mirroring/poll.ts),
 * against the mock processor's world, on real Postgres. The job around it is tested in mirror-job.test.ts.
 */

let database: TestDatabase;
let db: Db;
let queues: Queues;
/** Every statement the counting connection sent, in order. */
const statements: string[] = [];
let counting: { db: Db; sql: postgres.Sql };
const world = new MockDisputeWorld({ seed: 7, initialDisputes: 0, live: false });

/** The mock adapter, with a way to make its next listings fail as a processor outage would. */
class FlakyMock extends MockAdapter {
  failures: Error[] = [];
  override listDisputes(request: ListDisputesRequest): Promise<DisputePage> {
    const failure = this.failures.shift();
    return failure ? Promise.reject(failure) : super.listDisputes(request);
  }
}
const mock = new FlakyMock({ world });
const adapters = createAdapterRegistry({ mock });
const secrets = new SecretBox('mirror-test-secret-of-at-least-32-characters');

beforeAll(async () => {
  database = await createTestDatabase();
  db = database.db;
  queues = openQueues({ redis: redisAt(redisUrl), prefix: testRedisPrefix() });
  const sql = postgres(database.url, {
    max: 1,
    onnotice: () => {},
    debug: (_, query) => statements.push(query),
  });
  counting = { db: drizzle(sql, { schema, casing: 'snake_case' }), sql };
});
afterAll(async () => {
  await counting.sql.end();
  await queues.byName.mirror.obliterate({ force: true });
  await queues.close();
  await database.drop();
});

async function newOrg(): Promise<string> {
  return (await createOrganisation(db, { name: 'Mirror Test' })).org;
}

async function connect(org: string, id = 'default'): Promise<AccountRow> {
  return (
    await connectAccount(
      { db, adapters, scheduler: createQueueAccountScheduler(queues) },
      { org, mode: 'test', id, processor: 'mock' },
    )
  ).account;
}

/** The processor's side of the account: add and change its disputes. */
const processorOf = (account: AccountRow) => world.account(account);

function poll(account: AccountRow, options: PollOptions = {}, on: Db = db) {
  return pollAccount({ db: on, adapters, secrets, alertRefunds: noAlertRefunds }, account.uid, options);
}

async function accountRow(account: AccountRow) {
  const [row] = await db.select().from(connectedAccounts).where(eq(connectedAccounts.uid, account.uid));
  return row;
}

async function storedDisputes(org: string, ids?: string[]) {
  return db
    .select()
    .from(disputes)
    .where(and(eq(disputes.orgId, org), ids ? inArray(disputes.id, ids) : undefined))
    .orderBy(asc(disputes.id));
}

async function eventsOf(org: string) {
  const rows = await db
    .select({ type: events.type, data: events.data, disputeUid: events.disputeUid })
    .from(events)
    .where(eq(events.orgId, org));
  return rows.map((row) => ({ type: row.type, id: row.data.id as string, state: row.data.state }));
}

/** The statements of each transaction, begin and commit excluded. */
function transactions(sent: string[]): string[][] {
  const found: string[][] = [];
  let current: string[] | undefined;
  for (const query of sent) {
    if (/^begin/i.test(query)) current = [];
    else if (/^commit/i.test(query) && current) {
      found.push(current);
      current = undefined;
    } else current?.push(query);
  }
  return found;
}

/** Sets columns directly, as the API or the submission worker would have. */
async function setStored(org: string, id: string, values: Partial<typeof disputes.$inferInsert>) {
  await db
    .update(disputes)
    .set(values)
    .where(and(eq(disputes.orgId, org), eq(disputes.id, id)));
}

describe('a first poll', () => {
  it('mirrors every dispute of the account once, page by page, each with one dispute.created', async () => {
    const org = await newOrg();
    const account = await connect(org);
    const listed = Array.from({ length: 250 }, () => processorOf(account).add());

    const result = await poll(account);

    expect(result).toMatchObject({ outcome: 'polled', more: false, pages: 3, created: 250, updated: 0 });
    const stored = await storedDisputes(org);
    expect(stored.map((row) => row.id)).toEqual(listed.map((dispute) => dispute.id).sort());
    const first = stored.find((row) => row.id === listed[0]?.id);
    expect(first).toMatchObject({
      ...listed[0],
      livemode: false,
      source: 'mock',
      processor: null,
      account: 'default',
      template: null,
      fields: {},
      version: 1,
    });
    const recorded = await eventsOf(org);
    expect(recorded).toHaveLength(250);
    expect(new Set(recorded.map((event) => event.type))).toEqual(new Set(['dispute.created']));
    expect(new Set(recorded.map((event) => event.id)).size).toBe(250);
    expect(await accountRow(account)).toMatchObject({
      cursor: `${processorOf(account).head}.0`,
      lastError: null,
      lastPolledAt: expect.any(Date),
    });
  });

  it('writes each page with one INSERT into disputes, and a page of 100 costs as many statements as a page of 10', async () => {
    const org = await newOrg();
    const small = await connect(org, 'small');
    const large = await connect(org, 'large');
    for (let i = 0; i < 10; i++) processorOf(small).add();
    for (let i = 0; i < 200; i++) processorOf(large).add();

    statements.length = 0;
    await poll(small, { pageSize: 10 }, counting.db);
    await poll(large, { pageSize: 100 }, counting.db);

    const inserts = statements.filter((query) => /^\s*insert into "disputes"/i.test(query));
    expect(inserts).toHaveLength(3);
    // Each page is one transaction of the same few statements, whatever its size.
    const pages = transactions(statements);
    expect(pages).toHaveLength(3);
    expect(new Set(pages.map((page) => page.length)).size).toBe(1);
    expect(pages[0]?.length).toBeLessThanOrEqual(8);
    expect(await storedDisputes(org)).toHaveLength(210);
  });
});

describe('later polls', () => {
  it('an identical re-poll writes nothing and reports nothing', async () => {
    const org = await newOrg();
    const account = await connect(org);
    for (let i = 0; i < 30; i++) processorOf(account).add();
    await poll(account);
    const before = await storedDisputes(org);
    const eventsBefore = (await eventsOf(org)).length;

    // From the start again: the processor lists every dispute exactly as before.
    await db.update(connectedAccounts).set({ cursor: null }).where(eq(connectedAccounts.uid, account.uid));
    const result = await poll(account);

    expect(result).toMatchObject({ outcome: 'polled', created: 0, updated: 0, unchanged: 30 });
    expect(await storedDisputes(org)).toEqual(before);
    expect(await eventsOf(org)).toHaveLength(eventsBefore);
  });

  it('a change is one dispute.updated; a close is dispute.updated and dispute.closed; each exactly once', async () => {
    const org = await newOrg();
    const account = await connect(org);
    const [a, b, c] = [processorOf(account).add(), processorOf(account).add(), processorOf(account).add()];
    await poll(account);

    processorOf(account).change(a.id, { amount: 12_345, reversalAmount: 12_345 });
    processorOf(account).change(b.id, { state: 'under_review' });
    expect(await poll(account)).toMatchObject({ created: 0, updated: 2, closed: 0 });
    processorOf(account).change(b.id, { state: 'won', closedAt: new Date('2030-01-01T00:00:00Z') });
    processorOf(account).change(c.id, { state: 'lost', closedAt: new Date('2030-01-01T00:00:00Z') });
    expect(await poll(account)).toMatchObject({ created: 0, updated: 2, closed: 2 });
    // A closed dispute that changes again is updated, not closed a second time.
    processorOf(account).change(c.id, { fee: 2000 });
    expect(await poll(account)).toMatchObject({ updated: 1, closed: 0 });
    expect(await poll(account)).toMatchObject({ pages: 1, created: 0, updated: 0, closed: 0 });

    const later = (await eventsOf(org)).filter((event) => event.type !== 'dispute.created');
    expect(later).toEqual(
      expect.arrayContaining([
        { type: 'dispute.updated', id: a.id, state: 'needs_response' },
        { type: 'dispute.updated', id: b.id, state: 'under_review' },
        { type: 'dispute.updated', id: b.id, state: 'won' },
        { type: 'dispute.closed', id: b.id, state: 'won' },
        { type: 'dispute.updated', id: c.id, state: 'lost' },
        { type: 'dispute.closed', id: c.id, state: 'lost' },
        { type: 'dispute.updated', id: c.id, state: 'lost' },
      ]),
    );
    expect(later).toHaveLength(7);
    const [stored] = await storedDisputes(org, [a.id]);
    expect(stored).toMatchObject({ amount: 12_345, version: 2 });
  });

  it('a dispute that arrives already closed is created, not closed', async () => {
    const org = await newOrg();
    const account = await connect(org);
    const lost = processorOf(account).add({ state: 'lost', closedAt: new Date() });
    await poll(account);
    expect(await eventsOf(org)).toEqual([{ type: 'dispute.created', id: lost.id, state: 'lost' }]);
  });

  it("never writes the client's columns, on insert or update", async () => {
    const org = await newOrg();
    const account = await connect(org);
    const dispute = processorOf(account).add();
    await poll(account);
    const clientData = {
      template: 'tpl_missing_is_fine',
      fields: { order_id: 'A-1' },
      products: [{ name: 'Widget', quantity: 1, amount: 500 }],
      correspondence: [{ to: 'a@example.com', from: 'b@example.com', subject: 'Hi', body: 'Thanks' }],
      pastPayments: [{ id: 'ch_1', amount: 100, currency: 'usd', charged_at: 1_600_000_000 }],
      referenceUrl: 'https://crm.example.com/1',
      accountId: 'acct_123',
    };
    await setStored(org, dispute.id, clientData);

    // Whatever an adapter's object carries besides the processor's columns is never written either.
    const sneaky = {
      ...dispute,
      amount: 999,
      template: null,
      fields: {},
      referenceUrl: null,
    } as NormalizedDispute;
    processorOf(account).change(dispute.id, sneaky);
    await poll(account);

    const [stored] = await storedDisputes(org, [dispute.id]);
    expect(stored).toMatchObject({ ...clientData, amount: 999 });
  });
});

describe("this service's own states", () => {
  const heldStates = serviceLocalStates as DisputeState[];
  const incoming: DisputeState[] = [
    'needs_response',
    'warning_needs_response',
    'response_disabled',
    ...processorOutcomeStates,
  ];

  it.each(heldStates)(
    'a %s dispute stays so when the processor reports no outcome, and moves to one it reports',
    async (held) => {
      const org = await newOrg();
      const account = await connect(org);
      const byReported = new Map(incoming.map((reported) => [reported, processorOf(account).add()]));
      await poll(account);
      for (const dispute of byReported.values()) await setStored(org, dispute.id, { state: held });

      for (const [reported, dispute] of byReported) {
        processorOf(account).change(dispute.id, { state: reported, fee: 1750 });
      }
      await poll(account);

      const stored = await storedDisputes(org);
      for (const [reported, dispute] of byReported) {
        const expected = processorOutcomeStates.includes(reported) ? reported : held;
        expect([reported, stored.find((row) => row.id === dispute.id)?.state]).toEqual([reported, expected]);
      }
    },
  );

  it('a held dispute whose processor only repeats its open state is not written and reports nothing', async () => {
    const org = await newOrg();
    const account = await connect(org);
    const dispute = processorOf(account).add();
    await poll(account);
    await setStored(org, dispute.id, { state: 'submitted' });
    const [before] = await storedDisputes(org, [dispute.id]);

    await db.update(connectedAccounts).set({ cursor: null }).where(eq(connectedAccounts.uid, account.uid));
    await poll(account);

    const [after] = await storedDisputes(org, [dispute.id]);
    expect(after).toEqual(before);
    expect((await eventsOf(org)).map((event) => event.type)).toEqual(['dispute.created']);
  });

  it('a queued dispute whose deadline the processor moves is planned again from the new deadline', async () => {
    const org = await newOrg();
    const account = await connect(org);
    const dispute = processorOf(account).add();
    await poll(account);
    const planned = new Date(Date.now() + 3 * 86_400_000);
    await setStored(org, dispute.id, { state: 'queued', submitAt: planned });
    const dueBy = new Date(Date.now() + 30 * 3_600_000);
    processorOf(account).change(dispute.id, { dueBy });
    await poll(account);

    const [stored] = await storedDisputes(org, [dispute.id]);
    // The organisation's queue lead is 24 hours.
    expect(stored?.state).toBe('queued');
    expect(stored?.submitAt?.getTime()).toBe(dueBy.getTime() - 24 * 3_600_000);
  });

  it('a dispute the API queues while a page is being written stays queued (the page waits for the lock)', async () => {
    const org = await newOrg();
    const account = await connect(org);
    const dispute = processorOf(account).add();
    await poll(account);
    processorOf(account).change(dispute.id, { amount: 4242 });

    let release: () => void = () => {};
    let locked: () => void = () => {};
    const isLocked = new Promise<void>((resolve) => {
      locked = resolve;
    });
    // The API's transaction: lock the dispute, queue it, commit only after the poll has started.
    const api = database.sql.begin(async (sql) => {
      await sql`select 1 from disputes where org_id = ${org} and id = ${dispute.id} for update`;
      await sql`update disputes set state = 'queued' where org_id = ${org} and id = ${dispute.id}`;
      locked();
      await new Promise<void>((resolve) => {
        release = resolve;
      });
    });
    await isLocked;
    const polling = poll(account);
    await new Promise((resolve) => setTimeout(resolve, 200));
    release();
    await api;
    await polling;

    const [stored] = await storedDisputes(org, [dispute.id]);
    expect(stored).toMatchObject({ state: 'queued', amount: 4242 });
    const updated = (await eventsOf(org)).filter((event) => event.type === 'dispute.updated');
    expect(updated).toEqual([{ type: 'dispute.updated', id: dispute.id, state: 'queued' }]);
  });
});

describe('the cursor', () => {
  it('moves only with a committed page: a page that fails part-way leaves rows and cursor as they were', async () => {
    const org = await newOrg();
    const account = await connect(org);
    processorOf(account).add();
    await poll(account);
    const { cursor } = (await accountRow(account)) ?? {};

    const good = processorOf(account).add();
    // Beyond bigint: the page's one INSERT fails after the page's rows were locked and read.
    const bad = processorOf(account).add({ amount: 2 ** 64 });
    await expect(poll(account)).rejects.toThrow();

    expect(await storedDisputes(org, [good.id, bad.id])).toEqual([]);
    expect(await accountRow(account)).toMatchObject({
      cursor,
      lastError: 'internal error while mirroring (see the worker log)',
    });
    expect(await eventsOf(org)).toHaveLength(1);

    processorOf(account).change(bad.id, { amount: 100 });
    expect(await poll(account)).toMatchObject({ created: 2 });
    expect(await accountRow(account)).toMatchObject({ lastError: null });
  });

  it("records a processor's failure on the account and rethrows it with its retryable flag", async () => {
    const org = await newOrg();
    const account = await connect(org);
    processorOf(account).add();
    mock.failures.push(
      new ProcessorError('mock', 'The mock processor is unavailable.', { retryable: true, status: 503 }),
    );

    await expect(poll(account)).rejects.toMatchObject({ retryable: true });
    expect(await accountRow(account)).toMatchObject({
      cursor: null,
      lastError: 'mock 503 (transient): The mock processor is unavailable.',
    });
    await poll(account);
    expect(await accountRow(account)).toMatchObject({ lastError: null, cursor: expect.any(String) });
  });

  it('a page listed from a cursor another run has moved since is dropped, not written twice', async () => {
    const org = await newOrg();
    const account = await connect(org);
    const dispute = processorOf(account).add();
    const page = await mock.listDisputes({
      connection: { account, credentials: null, baseUrl: null, readOnly: false },
      cursor: null,
      limit: 100,
    });
    await poll(account);

    const result = await mirrorPage(db, { ...account, cursor: null }, page.disputes, page.nextCursor);
    expect(result).toEqual({ outcome: 'stale' });
    expect((await eventsOf(org)).map((event) => event.id)).toEqual([dispute.id]);
  });

  it('a disabled or disconnected account is not polled', async () => {
    const org = await newOrg();
    const account = await connect(org);
    processorOf(account).add();
    await db
      .update(connectedAccounts)
      .set({ status: 'disabled' })
      .where(eq(connectedAccounts.uid, account.uid));
    expect(await poll(account)).toEqual({ outcome: 'skipped', reason: 'disabled' });
    await db.delete(connectedAccounts).where(eq(connectedAccounts.uid, account.uid));
    expect(await poll(account)).toEqual({ outcome: 'skipped', reason: 'gone' });
    expect(await storedDisputes(org)).toEqual([]);
  });

  it('stops after its share of pages; the next run goes on from the cursor', async () => {
    const org = await newOrg();
    const account = await connect(org);
    for (let i = 0; i < 25; i++) processorOf(account).add();
    expect(await poll(account, { pageSize: 10, maxPages: 2 })).toMatchObject({ more: true, created: 20 });
    expect(await poll(account, { pageSize: 10, maxPages: 2 })).toMatchObject({ more: false, created: 5 });
  });
});

describe('tenants', () => {
  it("an account's disputes land in its own organisation and mode only, even where ids coincide", async () => {
    const [orgA, orgB] = [await newOrg(), await newOrg()];
    const [a, b] = [await connect(orgA), await connect(orgB)];
    const shared = processorOf(a).add();
    processorOf(b).add({ ...shared, amount: 1 });
    await poll(a);
    await poll(b);

    const [inA] = await storedDisputes(orgA, [shared.id]);
    const [inB] = await storedDisputes(orgB, [shared.id]);
    expect([inA?.amount, inA?.livemode, inB?.amount, inB?.livemode]).toEqual([
      shared.amount,
      false,
      1,
      false,
    ]);
    expect(await eventsOf(orgA)).toHaveLength(1);
    expect(await eventsOf(orgB)).toHaveLength(1);
  });

  it('leaves alone a dispute with the same id held by another account or created through the API', async () => {
    const org = await newOrg();
    const [first, second] = [await connect(org, 'first'), await connect(org, 'second')];
    const held = processorOf(first).add();
    await poll(first);
    await db.insert(disputes).values({
      orgId: org,
      livemode: false,
      id: 'dp_standalone',
      state: 'needs_response',
      reason: 'general',
      source: 'api',
      amount: 10,
    });
    processorOf(second).add({ ...held, amount: 1 });
    processorOf(second).add({ id: 'dp_standalone', amount: 2 });

    const result = await poll(second);
    expect(result).toMatchObject({ outcome: 'polled', created: 0, updated: 0 });
    expect(result.outcome === 'polled' && [...result.foreign].sort()).toEqual(
      [held.id, 'dp_standalone'].sort(),
    );
    const stored = await storedDisputes(org);
    expect(stored.map((row) => [row.id, row.account, row.amount])).toEqual([
      [held.id, 'first', held.amount],
      ['dp_standalone', null, 10],
    ]);
  });
});
