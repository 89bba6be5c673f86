import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { disputes, events, organisations, submissions } from '../../src/db/schema/index.js';
import { sweepDeadlines } from '../../src/features/disputes/deadline-sweep.js';
import { startTestApi, type TestApi } from '../helpers/api.js';
import {
  acceptedSubmissions,
  expectError,
  getDispute,
  newTenant,
  readStored,
  submittableDispute,
  type Tenant,
  writeStored,
} from '../helpers/disputes.js';

/**
 * The submission queue end to end, with the submission worker running in this process: queued disputes
 * go out at `submit_at`, submit-now waits for its job, failures retry or fail for on-call to retry.
 */
let api: TestApi;
let tenant: Tenant;
beforeAll(async () => {
  api = await startTestApi({ workers: ['submission'] });
  tenant = await newTenant(api);
});
afterAll(async () => {
  await api.close();
});

const hour = 3_600_000;
/** The organisation's default queue lead is 24 hours: a dispute due this long from now goes out at once. */
const lead = 24 * hour;

/**
 * What a test does between queueing a dispute and its moment (reads, an edit, jobs looked at) must be done
 * before the moment comes, on a loaded CI machine too: a second took over 1.1 s there.
 */
const soon = 5000;

/** A submittable dispute whose queued submission is due `ms` from now. */
async function dueIn(ms: number, overrides: Record<string, unknown> = {}) {
  const { dispute } = await submittableDispute(api, tenant, overrides);
  await writeStored(api, tenant, dispute.id, { dueBy: new Date(Date.now() + lead + ms) });
  return dispute.id;
}

async function queue(id: string) {
  const response = await api.call('POST', `/v1/disputes/${id}/submit`, {
    key: tenant.key,
    json: { queue: true },
  });
  expect(response.status, response.text).toBe(200);
  return readStored(api, tenant, id);
}

const queuedJobId = (stored: { uid: string; submitAt: Date | null }) =>
  `queued-${stored.uid}-${stored.submitAt?.getTime()}`;

async function jobsOf(uid: string) {
  const jobs = await api.queues.byName.submission.getJobs(['delayed', 'waiting', 'prioritized', 'active']);
  return jobs.filter((job) => job.id?.startsWith(`queued-${uid}`));
}

async function eventCount(uid: string, type: string) {
  const rows = await api.db.db
    .select({ id: events.id })
    .from(events)
    .where(and(eq(events.disputeUid, uid), eq(events.type, type)));
  return rows.length;
}

function sweep(options: { lookaheadMs?: number; dueSoonMs?: number } = {}) {
  return sweepDeadlines({
    db: api.db.db,
    submitter: api.deps.submitter,
    removals: api.deps.removals,
    dueSoonMs: options.dueSoonMs ?? 48 * hour,
    lookaheadMs: options.lookaheadMs ?? 60_000,
    unattendedAfterMs: 0,
  });
}

describe('a queued dispute', () => {
  it('gets one delayed job at submit_at and is submitted then, not before', async () => {
    const id = await dueIn(soon);
    const stored = await queue(id);
    expect(stored.state).toBe('queued');
    const jobs = await jobsOf(stored.uid);
    expect(jobs.map((job) => job.id)).toEqual([queuedJobId(stored)]);
    expect(await jobs[0]?.getState()).toBe('delayed');

    await expect
      .poll(async () => (await getDispute(api, tenant.key, id)).state, { timeout: 20_000 })
      .toBe('submitted');
    const submitted = await readStored(api, tenant, id);
    expect(submitted.submittedAt?.getTime()).toBeGreaterThanOrEqual(stored.submitAt?.getTime() ?? Infinity);
    expect(acceptedSubmissions(api, id)).toHaveLength(1);
  });

  it('submits the evidence as edited while it waited, with still one job', async () => {
    const id = await dueIn(soon);
    const stored = await queue(id);
    const edit = await api.call('PUT', `/v1/disputes/${id}`, {
      key: tenant.key,
      json: { fields: { note: 'edited' } },
    });
    expect(edit.body).toMatchObject({ state: 'queued' });
    expect((await jobsOf(stored.uid)).map((job) => job.id)).toEqual([queuedJobId(stored)]);

    await expect
      .poll(async () => (await getDispute(api, tenant.key, id)).state, { timeout: 20_000 })
      .toBe('submitted');
    expect(acceptedSubmissions(api, id).map((recorded) => recorded.request.evidence.fields)).toEqual([
      { order_id: 'A-1001', note: 'edited' },
    ]);
  });

  it('loses its job when accepted, and nothing is sent', async () => {
    const id = await dueIn(hour);
    const stored = await queue(id);
    expect(await jobsOf(stored.uid)).toHaveLength(1);
    const accepted = await api.call('POST', `/v1/disputes/${id}/accept`, { key: tenant.key });
    expect(accepted.body).toMatchObject({ state: 'accepted' });
    expect(await jobsOf(stored.uid)).toHaveLength(0);
    expect(await api.queues.byName.submission.getJob(queuedJobId(stored))).toBeUndefined();
    expect(acceptedSubmissions(api, id)).toHaveLength(0);
  });

  it('loses its job when un-queued (queue=false)', async () => {
    const id = await dueIn(hour);
    const stored = await queue(id);
    await api.call('PUT', `/v1/disputes/${id}`, { key: tenant.key, json: { queue: false } });
    expect((await readStored(api, tenant, id)).state).toBe('needs_response');
    expect(await jobsOf(stored.uid)).toHaveLength(0);
  });

  it('moves its job when re-queued for another moment', async () => {
    const id = await dueIn(hour);
    const before = await queue(id);
    // The processor moved the deadline; queueing again plans from the new one.
    await writeStored(api, tenant, id, { dueBy: new Date(Date.now() + lead + 2 * hour) });
    const after = await queue(id);
    expect(after.submitAt?.getTime()).not.toBe(before.submitAt?.getTime());
    expect((await jobsOf(after.uid)).map((job) => job.id)).toEqual([queuedJobId(after)]);
  });

  it('loses its job when submitted now, and is submitted once', async () => {
    const id = await dueIn(hour);
    const stored = await queue(id);
    const response = await api.call('POST', `/v1/disputes/${id}/submit`, { key: tenant.key });
    expect(response.status).toBe(201);
    expect(response.body).toMatchObject({ state: 'submitted', submitted_count: 1 });
    expect(await jobsOf(stored.uid)).toHaveLength(0);
    expect(acceptedSubmissions(api, id)).toHaveLength(1);
  });

  it('gets its job back when a submit-now is refused and it returns to queued', async () => {
    const id = await dueIn(hour, { charge: `ch_mock_refuse_${Date.now()}` });
    const stored = await queue(id);
    expectError(
      await api.call('POST', `/v1/disputes/${id}/submit`, { key: tenant.key }),
      502,
      'processor_error',
    );
    expect((await readStored(api, tenant, id)).state).toBe('queued');
    await expect
      .poll(async () => (await jobsOf(stored.uid)).map((job) => job.id))
      .toEqual([queuedJobId(stored)]);
  });

  it('that can no longer be submitted when its moment comes returns to needs_response, failing its job', async () => {
    const id = await dueIn(soon);
    const stored = await queue(id);
    // A field the template requires disappears behind the API's back (the API refuses such an edit).
    await writeStored(api, tenant, id, { fields: {} });
    const job = await api.queues.byName.submission.getJob(queuedJobId(stored));
    await expect.poll(async () => job?.getState(), { timeout: 20_000 }).toBe('failed');
    expect((await api.queues.byName.submission.getJob(queuedJobId(stored)))?.failedReason).toMatch(
      /Missing required fields: order_id/,
    );
    expect((await getDispute(api, tenant.key, id)).state).toBe('needs_response');
    expect(await eventCount(stored.uid, 'dispute.submission_failed')).toBe(1);
  });
});

describe('a queued dispute refused by the processor', () => {
  it('returns to needs_response, its submission job fails with the answer, and that job retried submits', async () => {
    const id = await dueIn(500, { charge: `ch_mock_refuse_once_${Date.now()}` });
    const stored = await queue(id);
    await expect
      .poll(async () => (await getDispute(api, tenant.key, id)).state, { timeout: 10_000 })
      .toBe('needs_response');
    const [row] = await api.db.db.select().from(submissions).where(eq(submissions.disputeUid, stored.uid));
    const job = await api.queues.byName.submission.getJob(`submission-${row?.id}`);
    await expect.poll(async () => job?.getState(), { timeout: 10_000 }).toBe('failed');
    expect((await api.queues.byName.submission.getJob(`submission-${row?.id}`))?.failedReason).toBe(
      'mock 400 (permanent): The mock processor refused the evidence: charge is marked to refuse.',
    );
    expect(await eventCount(stored.uid, 'dispute.submission_failed')).toBe(1);

    await job?.retry();
    await expect
      .poll(async () => (await getDispute(api, tenant.key, id)).state, { timeout: 10_000 })
      .toBe('submitted');
    expect(acceptedSubmissions(api, id)).toHaveLength(1);
  });
});

describe('submit now through the queue', () => {
  it('retries a transient processor failure (honouring Retry-After) and answers 201', async () => {
    const { dispute } = await submittableDispute(api, tenant, { charge: `ch_mock_flaky_${Date.now()}` });
    const calls = api.mock.calls;
    const response = await api.call('POST', `/v1/disputes/${dispute.id}/submit`, { key: tenant.key });
    expect(response.status, response.text).toBe(201);
    expect(response.body).toMatchObject({ state: 'submitted', submitted_count: 1 });
    expect(api.mock.calls - calls).toBe(2);
    expect(acceptedSubmissions(api, dispute.id)).toHaveLength(1);
  });

  it('fails the job at once on a refusal (reason shown), and a retry of that job submits', async () => {
    const { dispute } = await submittableDispute(api, tenant, {
      charge: `ch_mock_refuse_once_${Date.now()}`,
    });
    const response = await api.call('POST', `/v1/disputes/${dispute.id}/submit`, { key: tenant.key });
    expectError(response, 502, 'processor_error');
    const stored = await readStored(api, tenant, dispute.id);
    expect(stored.state).toBe('needs_response');
    const [row] = await api.db.db.select().from(submissions).where(eq(submissions.disputeUid, stored.uid));
    const job = await api.queues.byName.submission.getJob(`submission-${row?.id}`);
    expect(await job?.getState()).toBe('failed');
    expect(job?.attemptsMade).toBe(1);
    expect(job?.failedReason).toBe(
      'mock 400 (permanent): The mock processor refused the evidence: charge is marked to refuse.',
    );

    await job?.retry();
    await expect
      .poll(async () => (await getDispute(api, tenant.key, dispute.id)).state, { timeout: 10_000 })
      .toBe('submitted');
    expect(acceptedSubmissions(api, dispute.id)).toHaveLength(1);
    expect(await eventCount(stored.uid, 'dispute.submission_failed')).toBe(1);
    expect(await eventCount(stored.uid, 'dispute.submitted')).toBe(1);
  });
});

describe('the deadline sweep', () => {
  it('enqueues a submission left pending without a job, which the worker then finishes', async () => {
    const { dispute } = await submittableDispute(api, tenant);
    const stored = await readStored(api, tenant, dispute.id);
    // What a web process killed between its commit and its enqueue leaves behind.
    await api.db.db.insert(submissions).values({
      id: 'sub_00000000000sweeptest',
      orgId: stored.orgId,
      livemode: false,
      disputeUid: stored.uid,
      adapter: 'mock',
      previousState: 'needs_response',
      evidence: {
        template: stored.template,
        fields: stored.fields,
        products: [],
        correspondence: [],
        pastPayments: [],
        referenceUrl: null,
      },
    });
    await writeStored(api, tenant, dispute.id, { state: 'compiling_evidence' });
    expect((await sweep()).resumed).toBeGreaterThanOrEqual(1);
    await expect
      .poll(async () => (await getDispute(api, tenant.key, dispute.id)).state, { timeout: 10_000 })
      .toBe('submitted');
    expect([...api.mock.accepted.keys()]).toContain('sub_00000000000sweeptest');
  });

  it('sends dispute.due_soon once within DUE_SOON_HOURS, and dispute.overdue once past due_by', async () => {
    const { dispute: soon } = await submittableDispute(api, tenant);
    const { dispute: late } = await submittableDispute(api, tenant);
    const { dispute: far } = await submittableDispute(api, tenant);
    const { dispute: answered } = await submittableDispute(api, tenant);
    await writeStored(api, tenant, soon.id, { dueBy: new Date(Date.now() + 10 * hour) });
    await writeStored(api, tenant, late.id, { dueBy: new Date(Date.now() - hour) });
    await writeStored(api, tenant, far.id, { dueBy: new Date(Date.now() + 100 * hour) });
    await writeStored(api, tenant, answered.id, { dueBy: new Date(Date.now() - hour), state: 'submitted' });

    await sweep();
    await sweep();
    const uid = async (id: string) => (await readStored(api, tenant, id)).uid;
    expect(await eventCount(await uid(soon.id), 'dispute.due_soon')).toBe(1);
    expect(await eventCount(await uid(soon.id), 'dispute.overdue')).toBe(0);
    expect(await eventCount(await uid(late.id), 'dispute.overdue')).toBe(1);
    expect(await eventCount(await uid(late.id), 'dispute.due_soon')).toBe(0);
    expect(await eventCount(await uid(far.id), 'dispute.due_soon')).toBe(0);
    expect(await eventCount(await uid(answered.id), 'dispute.overdue')).toBe(0);
  });

  it('sends dispute.overdue for a queued dispute whose submission never happened', async () => {
    const id = await dueIn(hour);
    const stored = await queue(id);
    await api.db.db
      .update(disputes)
      .set({ dueBy: new Date(Date.now() - 1000), submitAt: new Date(Date.now() + hour) })
      .where(eq(disputes.uid, stored.uid));
    await sweep({ lookaheadMs: 0 });
    expect(await eventCount(stored.uid, 'dispute.overdue')).toBe(1);
  });

  it('plans from the organisation queue lead', async () => {
    await api.db.db
      .update(organisations)
      .set({ queueLeadMinutes: 60 })
      .where(eq(organisations.id, tenant.org));
    expect((await readStored(api, tenant, (await submittableDispute(api, tenant)).dispute.id)).state).toBe(
      'needs_response',
    );
    await api.db.db
      .update(organisations)
      .set({ queueLeadMinutes: 1440 })
      .where(eq(organisations.id, tenant.org));
  });
});
