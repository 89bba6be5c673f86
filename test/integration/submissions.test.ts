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
    expect(await eventsOf(dispute.id, 'dispute.submitted')).toHaveLength(1);
  });

  it('is finished once even when two runs of it overlap: one submission at the processor, one event', async () => {
    const { dispute } = await submittableDispute(api, tenant);
    const submission = await interruptedSubmission(dispute.id);
    const mock = new MockAdapter();
    const deps = { db: api.db.db, adapters: createAdapterRegistry({ mock }), logger };

    const results = await Promise.all([runSubmission(deps, submission), runSubmission(deps, submission)]);
    expect(results).toEqual([{ status: 'succeeded' }, { status: 'succeeded' }]);
    expect(mock.accepted.size).toBe(1);
    expect(await getDispute(api, tenant.key, dispute.id)).toMatchObject({
      state: 'submitted',
      submitted_count: 1,
    });
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
