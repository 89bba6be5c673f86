import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { disputes, events, organisations, submissions } from '../../src/db/schema/index.js';
import { SubmissionRunner } from '../../src/features/submissions/runner.js';
import { MockAdapter } from '../../src/processors/mock/adapter.js';
import {
  ProcessorError,
  type SubmitEvidenceRequest,
  type SubmitEvidenceResult,
} from '../../src/processors/types.js';
import { startTestApi, type TestApi } from '../helpers/api.js';
import { getDispute, newTenant, submittableDispute, type Tenant } from '../helpers/disputes.js';
import {
  firstAttempt,
  heldProcessor,
  interruptedSubmission as helperInterrupted,
  lastAttempt,
  runnerDeps,
  runSubmission,
} from '../helpers/submissions.js';

/**
 * The submission runner on its own (features/submissions/runner.ts), called as the submission job calls it:
 * with the job's attempt. The queue around it is tested in job-engine.test.ts. No workers run here.
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

const first = firstAttempt;
const last = lastAttempt;
const depsWith = (mock: MockAdapter) => runnerDeps(api, mock);
const interruptedSubmission = (id: string) => helperInterrupted(api, tenant, id);

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

async function submissionRow(id: string) {
  const [row] = await api.db.db.select().from(submissions).where(eq(submissions.id, id));
  return row;
}

describe('running a prepared submission', () => {
  it('submits once; running it again returns the recorded outcome without calling the processor', async () => {
    const { dispute } = await submittableDispute(api, tenant);
    const submission = await interruptedSubmission(dispute.id);
    expect((await getDispute(api, tenant.key, dispute.id)).state).toBe('compiling_evidence');
    const mock = new MockAdapter();

    expect(await runSubmission(depsWith(mock), submission, first)).toEqual({ status: 'succeeded' });
    expect(await runSubmission(depsWith(mock), submission, first)).toEqual({ status: 'succeeded' });
    expect(mock.calls).toBe(1);
    expect([...mock.accepted.keys()]).toEqual([submission]);
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
    const { mock, answer } = heldProcessor();

    const running = runSubmission(depsWith(mock), submission, first);
    await expect.poll(async () => (await submissionRow(submission))?.claimedUntil !== null).toBe(true);
    expect(await runSubmission(depsWith(mock), submission, first)).toEqual({ status: 'in_flight' });
    answer();
    expect(await running).toEqual({ status: 'succeeded' });
    expect(mock.calls).toBe(1);
  });

  it('renews its lease while the processor call lasts', async () => {
    const { dispute } = await submittableDispute(api, tenant);
    const submission = await interruptedSubmission(dispute.id);
    const { mock, calling, answer } = heldProcessor();
    const deps = { ...depsWith(mock), leaseMs: 2000 };
    const running = runSubmission(deps, submission, first);
    await calling;
    const firstEnd = (await submissionRow(submission))?.claimedUntil?.getTime() ?? Infinity;
    // Past the first lease's end, the call still under way: renewed, and nobody else may take the attempt.
    await expect
      .poll(
        async () =>
          Date.now() > firstEnd &&
          ((await submissionRow(submission))?.claimedUntil?.getTime() ?? 0) > firstEnd,
        { timeout: 10_000 },
      )
      .toBe(true);
    expect(await runSubmission(deps, submission, first)).toEqual({ status: 'in_flight' });
    answer();
    expect(await running).toEqual({ status: 'succeeded' });
  });

  it("sends each organisation's word on Visa compliance fees, read for submissions running together", async () => {
    const accepting = await newTenant(api);
    await api.db.db
      .update(organisations)
      .set({ visaComplianceFee: 'accept' })
      .where(eq(organisations.id, accepting.org));
    const ours = await submittableDispute(api, tenant);
    const theirs = await submittableDispute(api, accepting);
    const ids = [
      await interruptedSubmission(ours.dispute.id),
      await helperInterrupted(api, accepting, theirs.dispute.id),
      await interruptedSubmission((await submittableDispute(api, tenant)).dispute.id),
    ];
    const mock = new MockAdapter();
    // One runner, as in a worker: the three runs share their reads of the organisations.
    const runner = new SubmissionRunner(depsWith(mock));
    expect(await Promise.all(ids.map((id) => runner.run(id, first)))).toEqual(
      ids.map(() => ({ status: 'succeeded' })),
    );
    expect(ids.map((id) => mock.accepted.get(id)?.request.visaComplianceFee)).toEqual([
      'refuse',
      'accept',
      'refuse',
    ]);
    // Their documents were stored together: each submission points at the PDF its processor received.
    const stored = await api.db.sql<{ id: string; pdf: Buffer }[]>`
      select s.id, d.pdf from submissions s join documents d on d.id = s.document_id
      where s.id in ${api.db.sql(ids)}`;
    const sent = new Map(ids.map((id) => [id, mock.accepted.get(id)?.request.response.document.pdf]));
    expect(stored.map(({ id, pdf }) => sent.get(id)?.equals(pdf))).toEqual([true, true, true]);
  });
});

describe('a transient processor failure', () => {
  it('with attempts left: stays pending with its lease released, for the job to retry', async () => {
    const { dispute } = await submittableDispute(api, tenant, { charge: `ch_mock_flaky_${Date.now()}` });
    const submission = await interruptedSubmission(dispute.id);
    const mock = new MockAdapter();

    const result = await runSubmission(depsWith(mock), submission, first);
    expect(result).toMatchObject({
      status: 'retry',
      error: { retryable: true, status: 503, retryAfterSeconds: 1 },
    });
    expect(await submissionRow(submission)).toMatchObject({ status: 'pending', claimedUntil: null });
    expect((await getDispute(api, tenant.key, dispute.id)).state).toBe('compiling_evidence');

    expect(await runSubmission(depsWith(mock), submission, { failedTries: 1, final: false })).toEqual({
      status: 'succeeded',
    });
    expect(mock.calls).toBe(2);
    expect([...mock.accepted.keys()]).toEqual([submission]);
  });

  it('on the final attempt: recorded as the outcome, the dispute back in its state', async () => {
    const { dispute } = await submittableDispute(api, tenant, {
      charge: `ch_mock_unavailable_${Date.now()}`,
    });
    const submission = await interruptedSubmission(dispute.id);

    expect(await runSubmission(depsWith(new MockAdapter()), submission, last)).toEqual({
      status: 'failed',
      message: 'The mock processor is unavailable (503).',
      reason: 'mock 503 (transient): The mock processor is unavailable (503).',
    });
    expect(await submissionRow(submission)).toMatchObject({
      status: 'failed',
      failedAtJobAttempt: 11,
      failure: { message: 'The mock processor is unavailable (503).', retryable: true, status: 503 },
    });
    expect((await getDispute(api, tenant.key, dispute.id)).state).toBe('needs_response');
    expect(await eventsOf(dispute.id, 'dispute.submission_failed')).toHaveLength(1);
  });
});

describe('an adapter that throws something other than a ProcessorError', () => {
  class BrokenAdapter extends MockAdapter {
    override async submitEvidence(): Promise<SubmitEvidenceResult> {
      throw new TypeError("Cannot read properties of undefined (reading 'id')");
    }
  }

  it('fails the submission on the record at the last attempt; the dispute keeps its evidence', async () => {
    const { dispute } = await submittableDispute(api, tenant);
    const submission = await interruptedSubmission(dispute.id);
    const deps = depsWith(new BrokenAdapter());

    expect(await runSubmission(deps, submission, first)).toMatchObject({ status: 'retry' });
    expect(await runSubmission(deps, submission, last)).toEqual({
      status: 'failed',
      message: 'The call to the processor failed unexpectedly.',
      reason: 'mock (transient): The call to the processor failed unexpectedly.',
    });
    expect(await getDispute(api, tenant.key, dispute.id)).toEqual({
      ...dispute,
      updated: expect.any(String),
    });
    expect(await eventsOf(dispute.id, 'dispute.submission_failed')).toHaveLength(1);
  });
});

describe('a failed submission', () => {
  it('is reopened by a later attempt of its job (an operator retry) with the current evidence', async () => {
    const { dispute } = await submittableDispute(api, tenant, {
      charge: `ch_mock_refuse_once_${Date.now()}`,
    });
    const submission = await interruptedSubmission(dispute.id);
    const mock = new MockAdapter();
    expect(await runSubmission(depsWith(mock), submission, first)).toMatchObject({ status: 'failed' });

    // The same attempt run again (its worker died after recording) does not submit again.
    expect(await runSubmission(depsWith(mock), submission, first)).toMatchObject({ status: 'failed' });
    expect(mock.calls).toBe(1);

    await api.call('PUT', `/v1/disputes/${dispute.id}`, {
      key: tenant.key,
      json: { fields: { note: 'fixed' } },
    });
    expect(await runSubmission(depsWith(mock), submission, { failedTries: 1, final: false })).toEqual({
      status: 'succeeded',
    });
    const retried = (await submissionRow(submission))?.retriedAs;
    expect(retried).toMatch(/^sub_/);
    expect(mock.accepted.get(retried ?? '')?.request.evidence.fields).toEqual({
      order_id: 'A-1001',
      note: 'fixed',
    });
    // Later runs follow the link and report the new attempt's outcome.
    expect(await runSubmission(depsWith(mock), submission, { failedTries: 2, final: false })).toEqual({
      status: 'succeeded',
    });
    expect(mock.calls).toBe(2);
  });

  it('that failed unanswered (retries ran out) is sent again as the same attempt: one submission held', async () => {
    // The processor takes the evidence, and the answer is lost: a 503 as far as the runner can tell.
    class LostReply extends MockAdapter {
      lost = 0;
      override async submitEvidence(request: SubmitEvidenceRequest): Promise<SubmitEvidenceResult> {
        const result = await super.submitEvidence(request);
        if (this.lost++ > 0) return result;
        throw new ProcessorError('mock', 'No answer from the processor.', { retryable: true, status: 503 });
      }
    }
    const { dispute } = await submittableDispute(api, tenant);
    const submission = await interruptedSubmission(dispute.id);
    const mock = new LostReply();
    expect(await runSubmission(depsWith(mock), submission, last)).toMatchObject({ status: 'failed' });
    const failed = await submissionRow(submission);
    expect(failed).toMatchObject({ status: 'failed', failure: { retryable: true, status: 503 } });
    expect((await getDispute(api, tenant.key, dispute.id)).state).toBe('needs_response');

    // An operator's retry of its job (Bull Board, `jobs retry`, `dispute resubmit`).
    expect(await runSubmission(depsWith(mock), submission, { failedTries: 12, final: true })).toEqual({
      status: 'succeeded',
    });
    expect(await submissionRow(submission)).toMatchObject({
      status: 'succeeded',
      retriedAs: null,
      documentId: failed?.documentId,
      documentSha256: failed?.documentSha256,
    });
    expect(mock.calls).toBe(2);
    // Both calls carried the same key and document: the processor holds one submission.
    expect([...mock.accepted.keys()]).toEqual([submission]);
    expect(await getDispute(api, tenant.key, dispute.id)).toMatchObject({
      state: 'submitted',
      submitted_count: 1,
    });
  });

  it('is not reopened once the dispute has moved on', async () => {
    const { dispute } = await submittableDispute(api, tenant, { charge: `ch_mock_refuse_${Date.now()}` });
    const submission = await interruptedSubmission(dispute.id);
    const mock = new MockAdapter();
    await runSubmission(depsWith(mock), submission, first);
    await api.call('POST', `/v1/disputes/${dispute.id}/accept`, { key: tenant.key });

    await expect(runSubmission(depsWith(mock), submission, { failedTries: 1, final: false })).rejects.toThrow(
      /is now accepted/,
    );
    expect(mock.calls).toBe(1);
    expect((await getDispute(api, tenant.key, dispute.id)).state).toBe('accepted');
  });
});

describe('a dispute the processor moved on before the attempt was sent again', () => {
  async function movedTo(state: string) {
    const { dispute } = await submittableDispute(api, tenant);
    const submission = await interruptedSubmission(dispute.id);
    // The mirror reported a state while the attempt waited for its retry (its first call timed out).
    await api.db.db
      .update(disputes)
      .set({ state })
      .where(and(eq(disputes.orgId, tenant.org), eq(disputes.id, dispute.id)));
    return { dispute, submission };
  }

  it('under review (the processor took the first call): sent again with its key, recorded as submitted', async () => {
    const { dispute, submission } = await movedTo('under_review');
    const mock = new MockAdapter();

    expect(await runSubmission(depsWith(mock), submission, first)).toEqual({ status: 'succeeded' });
    expect([...mock.accepted.keys()]).toEqual([submission]);
    expect(await getDispute(api, tenant.key, dispute.id)).toMatchObject({
      state: 'under_review',
      submitted_count: 1,
      submitted_at: expect.any(String),
    });
    expect(await eventsOf(dispute.id, 'dispute.submitted')).toHaveLength(1);
  });

  it('decided (lost): not sent, the processor state kept, the attempt ended failed', async () => {
    const { dispute, submission } = await movedTo('lost');
    const mock = new MockAdapter();

    expect(await runSubmission(depsWith(mock), submission, first)).toEqual({
      status: 'failed',
      message: `Not sent: dispute '${dispute.id}' is lost, no longer compiling_evidence.`,
    });
    expect(mock.calls).toBe(0);
    expect((await getDispute(api, tenant.key, dispute.id)).state).toBe('lost');
    expect(await submissionRow(submission)).toMatchObject({ status: 'failed' });
    expect(await eventsOf(dispute.id, 'dispute.submission_failed')).toHaveLength(0);
  });
});

describe('an operator retry of a failed submission that could no longer be submitted', () => {
  it('is refused with the reason, and nothing is sent', async () => {
    const { dispute } = await submittableDispute(api, tenant, { charge: `ch_mock_refuse_${Date.now()}` });
    const submission = await interruptedSubmission(dispute.id);
    const mock = new MockAdapter();
    await runSubmission(depsWith(mock), submission, first);
    await api.db.db
      .update(disputes)
      .set({ dueBy: new Date(Date.now() - 1000) })
      .where(and(eq(disputes.orgId, tenant.org), eq(disputes.id, dispute.id)));

    await expect(runSubmission(depsWith(mock), submission, { failedTries: 1, final: false })).rejects.toThrow(
      /^Not retrying: The dispute was due by /,
    );
    expect(mock.calls).toBe(1);
  });
});

describe('a database failure while recording the outcome', () => {
  it('leaves the attempt pending, and the retry finishes it with the same idempotency key', async () => {
    const { dispute } = await submittableDispute(api, tenant);
    const submission = await interruptedSubmission(dispute.id);
    const mock = new MockAdapter();

    // The outbox cannot be written: the processor accepted, but recording it fails.
    await api.db.sql`alter table events rename to events_away`;
    try {
      await expect(runSubmission(depsWith(mock), submission, first)).rejects.toThrow();
    } finally {
      await api.db.sql`alter table events_away rename to events`;
    }
    expect(await submissionRow(submission)).toMatchObject({ status: 'pending', failure: null });
    expect((await getDispute(api, tenant.key, dispute.id)).state).toBe('compiling_evidence');

    // The job's retry comes once the dead run's lease has expired.
    await api.db.db
      .update(submissions)
      .set({ claimedUntil: new Date(Date.now() - 1000) })
      .where(eq(submissions.id, submission));
    expect(await runSubmission(depsWith(mock), submission, { failedTries: 1, final: false })).toEqual({
      status: 'succeeded',
    });
    expect(await getDispute(api, tenant.key, dispute.id)).toMatchObject({
      state: 'submitted',
      submitted_count: 1,
    });
    expect(mock.calls).toBe(2);
    expect(mock.accepted.size).toBe(1);
  });
});
