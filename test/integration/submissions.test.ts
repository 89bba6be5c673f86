import { and, eq } from 'drizzle-orm';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { disputes, events, submissions } from '../../src/db/schema/index.js';
import { MockAdapter } from '../../src/processors/mock/adapter.js';
import { createAdapterRegistry } from '../../src/processors/registry.js';
import type { SubmitEvidenceResult } from '../../src/processors/types.js';
import { lockDispute } from '../../src/services/dispute-records.js';
import {
  prepareSubmission,
  resumePendingSubmissions,
  runSubmission,
} from '../../src/services/submissions.js';
import { startTestApi, type TestApi } from '../helpers/api.js';
import { getDispute, newTenant, submittableDispute, type Tenant } from '../helpers/disputes.js';

let api: TestApi;
let tenant: Tenant;
beforeAll(async () => {
  api = await startTestApi();
  tenant = await newTenant(api);
});
afterAll(async () => {
  await api.close();
});

const logger = pino({ level: 'silent' });

/** Records a submission attempt as a submit request does, then stops, as a killed process would. */
async function interruptedSubmission(id: string): Promise<string> {
  return api.db.db.transaction(async (tx) => {
    const { dispute } = await lockDispute(tx, { orgId: tenant.org, livemode: false }, id);
    return prepareSubmission(tx, dispute, 'mock');
  });
}

async function eventsOf(id: string, type: string) {
  const [row] = await api.db.db
    .select({ uid: disputes.uid })
    .from(disputes)
    .where(and(eq(disputes.orgId, tenant.org), eq(disputes.id, id)));
  return api.db.db
    .select()
    .from(events)
    .where(and(eq(events.disputeUid, row?.uid ?? ''), eq(events.type, type)));
}

describe('a submission interrupted between recording the attempt and its outcome', () => {
  it('leaves the dispute compiling_evidence until resumed, then is submitted once', async () => {
    const { dispute } = await submittableDispute(api, tenant);
    const submission = await interruptedSubmission(dispute.id);
    expect((await getDispute(api, tenant.key, dispute.id)).state).toBe('compiling_evidence');

    const mock = new MockAdapter();
    const deps = { db: api.db.db, adapters: createAdapterRegistry({ mock }), logger };
    expect(await resumePendingSubmissions(deps)).toBeGreaterThanOrEqual(1);
    expect(await resumePendingSubmissions(deps)).toBe(0);

    expect(await getDispute(api, tenant.key, dispute.id)).toMatchObject({
      state: 'submitted',
      submitted_count: 1,
    });
    expect([...mock.accepted.keys()]).toContain(submission);
    expect(mock.calls).toBe(1);
    expect(await getDispute(api, tenant.key, dispute.id)).toMatchObject({
      state: 'submitted',
      submitted_count: 1,
    });
    expect(await eventsOf(dispute.id, 'dispute.submitted')).toHaveLength(1);
  });

  it('is run by one runner at a time: an overlapping run answers in_flight and calls nobody', async () => {
    const { dispute } = await submittableDispute(api, tenant);
    const submission = await interruptedSubmission(dispute.id);
    // A processor that answers only when told to, so the second run surely comes while the first waits.
    let answer = () => {};
    const answered = new Promise<void>((resolve) => {
      answer = resolve;
    });
    class SlowAdapter extends MockAdapter {
      override async submitEvidence(...request: Parameters<MockAdapter['submitEvidence']>) {
        await answered;
        return super.submitEvidence(...request);
      }
    }
    const mock = new SlowAdapter();
    const deps = { db: api.db.db, adapters: createAdapterRegistry({ mock }), logger };

    const first = runSubmission(deps, submission);
    await expect
      .poll(async () => {
        const [row] = await api.db.db.select().from(submissions).where(eq(submissions.id, submission));
        return row?.claimedUntil !== null;
      })
      .toBe(true);
    expect(await runSubmission(deps, submission)).toEqual({ status: 'in_flight' });
    answer();
    expect(await first).toEqual({ status: 'succeeded' });
    expect(await runSubmission(deps, submission)).toEqual({ status: 'succeeded' });
    expect(mock.calls).toBe(1);
    expect(await eventsOf(dispute.id, 'dispute.submitted')).toHaveLength(1);
  });
});

describe('an adapter that throws something other than a ProcessorError', () => {
  class BrokenAdapter extends MockAdapter {
    override async submitEvidence(): Promise<SubmitEvidenceResult> {
      throw new TypeError("Cannot read properties of undefined (reading 'id')");
    }
  }

  it('fails the submission on the record and returns the dispute to its state, with its evidence', async () => {
    const { dispute } = await submittableDispute(api, tenant);
    const submission = await interruptedSubmission(dispute.id);
    const deps = { db: api.db.db, adapters: createAdapterRegistry({ mock: new BrokenAdapter() }), logger };

    expect(await runSubmission(deps, submission)).toEqual({
      status: 'failed',
      message: 'The call to the processor failed unexpectedly.',
    });
    expect(await getDispute(api, tenant.key, dispute.id)).toEqual({
      ...dispute,
      updated: expect.any(String),
    });
    const [row] = await api.db.db.select().from(submissions).where(eq(submissions.id, submission));
    expect(row).toMatchObject({
      status: 'failed',
      failure: { message: 'The call to the processor failed unexpectedly.', retryable: true },
    });
    expect(await eventsOf(dispute.id, 'dispute.submission_failed')).toHaveLength(1);
  });
});

describe('a runner that stopped while holding an attempt', () => {
  it('keeps it from recovery until its lease expires, then recovery finishes it once', async () => {
    const { dispute } = await submittableDispute(api, tenant);
    const submission = await interruptedSubmission(dispute.id);
    const mock = new MockAdapter();
    const deps = { db: api.db.db, adapters: createAdapterRegistry({ mock }), logger };
    // Held by a live runner: recovery leaves it alone.
    const lease = new Date(Date.now() + 60_000);
    await api.db.db.update(submissions).set({ claimedUntil: lease }).where(eq(submissions.id, submission));
    await resumePendingSubmissions(deps);
    expect(mock.calls).toBe(0);
    expect((await getDispute(api, tenant.key, dispute.id)).state).toBe('compiling_evidence');

    // Its runner died: the lease runs out, and the next recovery submits it.
    await api.db.db
      .update(submissions)
      .set({ claimedUntil: new Date(Date.now() - 1000) })
      .where(eq(submissions.id, submission));
    await resumePendingSubmissions(deps);
    expect(mock.calls).toBe(1);
    expect((await getDispute(api, tenant.key, dispute.id)).state).toBe('submitted');
  });
});

describe('a database failure while recording the outcome', () => {
  it('leaves the attempt pending, not failed, and recovery finishes it with the same idempotency key', async () => {
    const { dispute } = await submittableDispute(api, tenant);
    const submission = await interruptedSubmission(dispute.id);
    const mock = new MockAdapter();
    const deps = { db: api.db.db, adapters: createAdapterRegistry({ mock }), logger };

    // The outbox cannot be written: the processor accepted, but recording it fails.
    await api.db.sql`alter table events rename to events_away`;
    try {
      await expect(runSubmission(deps, submission)).rejects.toThrow();
    } finally {
      await api.db.sql`alter table events_away rename to events`;
    }
    const [pending] = await api.db.db.select().from(submissions).where(eq(submissions.id, submission));
    expect(pending).toMatchObject({ status: 'pending', failure: null });
    expect((await getDispute(api, tenant.key, dispute.id)).state).toBe('compiling_evidence');

    await api.db.db
      .update(submissions)
      .set({ claimedUntil: new Date(Date.now() - 1000) })
      .where(eq(submissions.id, submission));
    await resumePendingSubmissions(deps);
    expect(await getDispute(api, tenant.key, dispute.id)).toMatchObject({
      state: 'submitted',
      submitted_count: 1,
    });
    expect(mock.calls).toBe(2);
    expect(mock.accepted.size).toBe(1);
  });
});
