import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Db } from '../../src/db/client.js';
import { connectedAccounts, disputes, events } from '../../src/db/schema/index.js';
import { mirrorDisputes, mirrorPage } from '../../src/features/mirroring/write.js';
import type { NormalizedDispute } from '../../src/processors/types.js';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';
import { mirroredAccount, news, storedDispute } from '../helpers/mirroring.js';

/**
 * News without a cursor (processor pushes, report imports: features/mirroring/write.ts) against
 * polled pages, and the client's charge of a read-only account, on real Postgres.
 */

let database: TestDatabase;
let db: Db;

beforeAll(async () => {
  database = await createTestDatabase();
  db = database.db;
});
afterAll(async () => {
  await database.drop();
});

const account = () => mirroredAccount(db);
const stored = (orgId: string, id: string) => storedDispute(db, orgId, id);

describe('unordered news (pushes, report imports)', () => {
  it('never reopens a decided dispute: a late notification is not the processor changing its mind', async () => {
    const row = await account();
    const open = news();
    await mirrorDisputes(db, row, [open]);
    const decided = { ...open, state: 'won' as const, closedAt: new Date('2026-11-20T00:00:00Z') };
    expect(await mirrorDisputes(db, row, [decided])).toMatchObject({ outcome: 'mirrored', closed: 1 });
    const recorded = await db.$count(events, eq(events.orgId, row.orgId));
    expect(await mirrorDisputes(db, row, [open])).toMatchObject({
      outcome: 'mirrored',
      updated: 0,
      unchanged: 1,
    });
    expect(await stored(row.orgId, open.id)).toMatchObject({ state: 'won' });
    expect(await db.$count(events, eq(events.orgId, row.orgId))).toBe(recorded);
  });

  it('moves a decided dispute to another decision (a second chargeback lost after a reversal)', async () => {
    const row = await account();
    const won = news({ state: 'won', closedAt: new Date('2026-11-10T00:00:00Z') });
    await mirrorDisputes(db, row, [won]);
    await mirrorDisputes(db, row, [{ ...won, state: 'lost', closedAt: new Date('2026-11-21T00:00:00Z') }]);
    expect(await stored(row.orgId, won.id)).toMatchObject({ state: 'lost' });
  });

  it('a poll, which has the processor’s order, may reopen one', async () => {
    const row = await account();
    const open = news();
    await mirrorDisputes(db, row, [{ ...open, state: 'won', closedAt: new Date() }]);
    const result = await mirrorPage(db, { ...row, cursor: null }, [open], 'c1');
    expect(result).toMatchObject({ outcome: 'mirrored', updated: 1 });
    expect(await stored(row.orgId, open.id)).toMatchObject({ state: 'needs_response' });
  });

  it('writes nothing for a paused account', async () => {
    const row = await account();
    await db.update(connectedAccounts).set({ status: 'disabled' }).where(eq(connectedAccounts.uid, row.uid));
    const paused = news();
    expect(await mirrorDisputes(db, row, [paused])).toEqual({ outcome: 'stale' });
    expect(await stored(row.orgId, paused.id)).toBeUndefined();
  });
});

describe("the client's charge (read-only accounts)", () => {
  it('stays when the processor reports none, by poll or by push, and counts as no change', async () => {
    const row = await account();
    const unknown = news({ charge: null });
    await mirrorDisputes(db, row, [unknown]);
    await db
      .update(disputes)
      .set({ charge: 'ch_from_client' })
      .where(and(eq(disputes.orgId, row.orgId), eq(disputes.id, unknown.id)));
    expect(await mirrorDisputes(db, row, [unknown])).toMatchObject({ updated: 0, unchanged: 1 });
    expect(await mirrorPage(db, { ...row, cursor: null }, [unknown], 'c1')).toMatchObject({ unchanged: 1 });
    expect(await stored(row.orgId, unknown.id)).toMatchObject({ charge: 'ch_from_client' });
    // The processor's own charge, once it tells one, is the processor's.
    await mirrorDisputes(db, row, [{ ...unknown, charge: 'ch_processor' }]);
    expect(await stored(row.orgId, unknown.id)).toMatchObject({ charge: 'ch_processor' });
  });
});

describe('partial news', () => {
  it('keeps what a push leaves out (a deadline and reason a report gave), and takes what it tells', async () => {
    const row = await account();
    const full = news({ reason: 'product_not_received' });
    await mirrorDisputes(db, row, [full]);
    const partial = news({
      id: full.id,
      reason: 'general',
      dueBy: null,
      disputedAt: null,
      state: 'under_review',
    });
    // A push that knows no reason reports `general`; that is news too, and it is taken as told.
    await mirrorDisputes(db, row, [partial]);
    expect(await stored(row.orgId, full.id)).toMatchObject({
      state: 'under_review',
      reason: 'general',
      dueBy: full.dueBy,
      disputedAt: full.disputedAt,
    });
  });

  it('does not move a dispute under review back to awaiting a response', async () => {
    const row = await account();
    const open = news();
    await mirrorDisputes(db, row, [{ ...open, state: 'under_review' }]);
    await mirrorDisputes(db, row, [open]);
    expect(await stored(row.orgId, open.id)).toMatchObject({ state: 'under_review' });
  });
});

describe('what the processor did not sign (Adyen additionalData)', () => {
  const unsigned = ['reason', 'kind', 'disputedAt', 'dueBy', 'closedAt', 'customer'] as const;

  it('fills what is unknown and never changes what is stored; the signed state is taken', async () => {
    const row = await account();
    const first = news({ dueBy: null, customer: null });
    await mirrorDisputes(db, row, [first]);
    const told = {
      ...first,
      state: 'under_review' as const,
      reason: 'general' as const,
      disputedAt: new Date('2026-01-01T00:00:00Z'),
      dueBy: new Date('2030-01-01T00:00:00Z'),
      customer: 'shopper-1',
    };
    await mirrorDisputes(db, row, [told], { unsigned });
    expect(await stored(row.orgId, first.id)).toMatchObject({
      state: 'under_review',
      reason: 'fraudulent',
      disputedAt: first.disputedAt,
      dueBy: told.dueBy,
      customer: 'shopper-1',
    });
    const replayed = { ...told, dueBy: new Date('2031-01-01T00:00:00Z'), customer: 'forged' };
    expect(await mirrorDisputes(db, row, [replayed], { unsigned })).toMatchObject({ unchanged: 1 });
    expect(await stored(row.orgId, first.id)).toMatchObject({ dueBy: told.dueBy, customer: 'shopper-1' });
    // Signed news (a report import) changes it as before.
    await mirrorDisputes(db, row, [replayed]);
    expect(await stored(row.orgId, first.id)).toMatchObject({ dueBy: replayed.dueBy, customer: 'forged' });
  });

  it('a later stage is taken, with its details, only from news that opens it', async () => {
    const row = await account();
    const inquiry = news({ kind: 'retrieval', state: 'warning_under_review', reason: 'retrieved' });
    await mirrorDisputes(db, row, [inquiry]);
    // A step within a stage (Adyen's INFORMATION_SUPPLIED) whose unsigned codes claim a chargeback.
    const step = {
      ...inquiry,
      kind: 'chargeback' as const,
      state: 'under_review' as const,
      disputedAt: null,
    };
    expect(await mirrorDisputes(db, row, [step], { unsigned })).toMatchObject({ updated: 0 });
    expect(await stored(row.orgId, inquiry.id)).toMatchObject({ kind: 'retrieval', reason: 'retrieved' });
    const chargeback = {
      ...inquiry,
      kind: 'chargeback' as const,
      state: 'needs_response' as const,
      reason: 'fraudulent' as const,
      disputedAt: new Date('2026-11-15T00:00:00Z'),
      dueBy: new Date('2030-01-01T00:00:00Z'),
    };
    await mirrorDisputes(db, row, [chargeback], { unsigned });
    expect(await stored(row.orgId, inquiry.id)).toMatchObject({
      kind: 'chargeback',
      state: 'needs_response',
      reason: 'fraudulent',
      disputedAt: chargeback.disputedAt,
      dueBy: chargeback.dueBy,
    });
  });
});

describe('escalation and fetched news', () => {
  it('a later stage on the same id reopens: a request for information answered, then a chargeback', async () => {
    const row = await account();
    const inquiry = news({ kind: 'retrieval', state: 'warning_under_review' });
    await mirrorDisputes(db, row, [inquiry]);
    await mirrorDisputes(db, row, [{ ...inquiry, kind: 'chargeback', state: 'needs_response' }]);
    expect(await stored(row.orgId, inquiry.id)).toMatchObject({
      kind: 'chargeback',
      state: 'needs_response',
    });
    // A late notification of the earlier stage does not take it back.
    await mirrorDisputes(db, row, [inquiry]);
    expect(await stored(row.orgId, inquiry.id)).toMatchObject({
      kind: 'chargeback',
      state: 'needs_response',
    });
  });

  it('what the processor answers when asked (a refresh after a push) is ordered news', async () => {
    const row = await account();
    const open = news();
    await mirrorDisputes(db, row, [{ ...open, state: 'under_review' }]);
    await mirrorDisputes(db, row, [{ ...open, dueBy: null }], { ordered: true });
    expect(await stored(row.orgId, open.id)).toMatchObject({ state: 'needs_response', dueBy: null });
  });
});

describe('a report import', () => {
  it('is one transaction: a row Postgres refuses on the second page leaves nothing of the first', async () => {
    const row = await account();
    const rows = Array.from({ length: 1001 }, (_, index) =>
      news({ id: `imp_${String(index).padStart(5, '0')}` }),
    );
    // The last by id, so on the second page of 1,000: an amount no bigint holds.
    rows[1000] = { ...(rows[1000] as NormalizedDispute), amount: 1e20 };
    await expect(mirrorDisputes(db, row, rows)).rejects.toThrow();
    expect(await db.$count(disputes, eq(disputes.orgId, row.orgId))).toBe(0);
    expect(await db.$count(events, eq(events.orgId, row.orgId))).toBe(0);
  });
});
