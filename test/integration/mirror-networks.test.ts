import { and, asc, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Db } from '../../src/db/client.js';
import { disputes, events } from '../../src/db/schema/index.js';
import { mirrorDisputes, mirrorPage } from '../../src/features/mirroring/write.js';
import type { NormalizedDispute } from '../../src/processors/types.js';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';
import { mirroredAccount, news, storedDispute } from '../helpers/mirroring.js';

/**
 * The card network, its code and the processor's status word as mirroring writes them
 * (features/mirroring/upsert.ts; docs/architecture.md, "Mirroring"), on real Postgres.
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

const account = (processor = 'braintree') => mirroredAccount(db, processor);
const stored = (orgId: string, id: string) => storedDispute(db, orgId, id);

/** A Visa 10.4 chargeback, open in Braintree's words. */
const card = (overrides: Partial<NormalizedDispute> = {}) =>
  news({ network: 'visa', networkReasonCode: '10.4', processorStatus: 'open', ...overrides });

async function eventsOf(orgId: string) {
  const rows = await db
    .select({ type: events.type, data: events.data })
    .from(events)
    .where(eq(events.orgId, orgId))
    .orderBy(asc(events.createdAt), asc(events.id));
  return rows.map(({ type, data }) => ({
    type,
    network: data.network,
    network_reason_code: data.network_reason_code,
    processor_status: data.processor_status,
  }));
}

describe('mirrored network facts', () => {
  it('are written with the dispute, and its dispute.created carries them', async () => {
    const row = await account();
    const dispute = card({ network: 'mastercard', networkReasonCode: '4837' });
    await mirrorPage(db, { ...row, cursor: null }, [dispute], 'c1');
    expect(await stored(row.orgId, dispute.id)).toMatchObject({
      network: 'mastercard',
      networkReasonCode: '4837',
      processorStatus: 'open',
    });
    expect(await eventsOf(row.orgId)).toEqual([
      {
        type: 'dispute.created',
        network: 'mastercard',
        network_reason_code: '4837',
        processor_status: 'open',
      },
    ]);
  });

  it('a change of the processor status alone is written and sent as dispute.updated; the same again is not', async () => {
    const row = await account();
    const dispute = card();
    await mirrorPage(db, { ...row, cursor: null }, [dispute], 'c1');
    const before = await stored(row.orgId, dispute.id);
    // Braintree's disputed and under_review are both under review here: only its own word moves.
    const reviewed = { ...dispute, state: 'under_review' as const, processorStatus: 'disputed' };
    await mirrorPage(db, { ...row, cursor: 'c1' }, [reviewed], 'c2');
    const result = await mirrorPage(
      db,
      { ...row, cursor: 'c2' },
      [{ ...reviewed, processorStatus: 'under_review' }],
      'c3',
    );

    expect(result).toMatchObject({ outcome: 'mirrored', updated: 1, unchanged: 0 });
    const after = await stored(row.orgId, dispute.id);
    expect(after).toMatchObject({ state: 'under_review', processorStatus: 'under_review' });
    expect(after?.version).toBe((before?.version ?? 0) + 2);
    expect((await eventsOf(row.orgId)).map((event) => [event.type, event.processor_status])).toEqual([
      ['dispute.created', 'open'],
      ['dispute.updated', 'disputed'],
      ['dispute.updated', 'under_review'],
    ]);

    const again = await mirrorPage(
      db,
      { ...row, cursor: 'c3' },
      [{ ...reviewed, processorStatus: 'under_review' }],
      'c4',
    );
    expect(again).toMatchObject({ updated: 0, unchanged: 1 });
    expect(await eventsOf(row.orgId)).toHaveLength(3);
  });

  it("follows the processor's word while the state stays this service's own", async () => {
    const row = await account();
    const dispute = card();
    await mirrorPage(db, { ...row, cursor: null }, [dispute], 'c1');
    await db
      .update(disputes)
      .set({ state: 'submitted' })
      .where(and(eq(disputes.orgId, row.orgId), eq(disputes.id, dispute.id)));
    // Still open at the processor (the finalize not seen yet), but it says so in other words.
    await mirrorPage(db, { ...row, cursor: 'c1' }, [{ ...dispute, processorStatus: 'OPEN_PENDING' }], 'c2');
    expect(await stored(row.orgId, dispute.id)).toMatchObject({
      state: 'submitted',
      processorStatus: 'OPEN_PENDING',
    });
  });

  it('a push that tells no network keeps the one a report gave, and takes its status', async () => {
    const row = await account('worldpay');
    const fromReport = card({ network: 'amex', networkReasonCode: 'C08', processorStatus: 'CHARGED_BACK' });
    await mirrorDisputes(db, row, [fromReport]);
    const event = { ...fromReport, state: 'under_review' as const, network: null, networkReasonCode: null };
    await mirrorDisputes(db, row, [{ ...event, processorStatus: 'INFORMATION_SUPPLIED' }]);
    expect(await stored(row.orgId, fromReport.id)).toMatchObject({
      state: 'under_review',
      network: 'amex',
      networkReasonCode: 'C08',
      processorStatus: 'INFORMATION_SUPPLIED',
    });
  });

  it('what a push tells without the signature (Adyen additionalData) only fills what is unknown', async () => {
    const row = await account('adyen');
    const unsigned = ['network', 'networkReasonCode'] as const;
    const first = card({
      network: null,
      networkReasonCode: null,
      processorStatus: 'NOTIFICATION_OF_CHARGEBACK',
    });
    await mirrorDisputes(db, row, [first], { unsigned });
    await mirrorDisputes(db, row, [{ ...first, network: 'visa', networkReasonCode: '13.1' }], { unsigned });
    // A replayed item with other unsigned values changes nothing it already knows.
    await mirrorDisputes(db, row, [{ ...first, network: 'jcb', networkReasonCode: '526' }], { unsigned });
    expect(await stored(row.orgId, first.id)).toMatchObject({ network: 'visa', networkReasonCode: '13.1' });
  });
});
