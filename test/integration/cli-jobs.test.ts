import { Worker } from 'bullmq';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { submissions } from '../../src/db/schema/index.js';
import { workerConnection } from '../../src/jobs/catalog.js';
import { startTestApi, type TestApi } from '../helpers/api.js';
import { cliOf, runCli } from '../helpers/cli.js';
import {
  expectError,
  getDispute,
  newTenant,
  readStored,
  submittableDispute,
  type Tenant,
} from '../helpers/disputes.js';

let api: TestApi;
let tenant: Tenant;
beforeAll(async () => {
  api = await startTestApi({ workers: ['submission'] });
  tenant = await newTenant(api);
});
afterAll(async () => {
  await api.close();
});

/** The operator CLI against this file's database and queues, as on-call would run it. */
const cli = (...args: string[]) => cliOf(api)(...args);

/** A refused submission, and the id of the `submit` job that failed with the processor's answer. */
async function refusedSubmission(): Promise<{ disputeId: string; jobId: string; submissionId: string }> {
  const { dispute } = await submittableDispute(api, tenant, { charge: `ch_mock_refuse_${Date.now()}` });
  expectError(
    await api.call('POST', `/v1/disputes/${dispute.id}/submit`, { key: tenant.key }),
    502,
    'processor_error',
  );
  const { uid } = await readStored(api, tenant, dispute.id);
  const [row] = await api.db.db.select().from(submissions).where(eq(submissions.disputeUid, uid));
  const submissionId = row?.id ?? '';
  return { disputeId: dispute.id, jobId: `submission-${submissionId}`, submissionId };
}

const refusal = 'mock 400 (permanent): The mock processor refused the evidence: charge is marked to refuse.';

describe('npm run cli -- jobs', () => {
  it('lists a refused submission among the failed jobs, and retrying it submits the dispute', async () => {
    const { dispute } = await submittableDispute(api, tenant, {
      charge: `ch_mock_refuse_once_${Date.now()}`,
    });
    expectError(
      await api.call('POST', `/v1/disputes/${dispute.id}/submit`, { key: tenant.key }),
      502,
      'processor_error',
    );
    const { uid } = await readStored(api, tenant, dispute.id);
    const [row] = await api.db.db.select().from(submissions).where(eq(submissions.disputeUid, uid));
    const jobId = `submission-${row?.id}`;

    const listed = await cli('jobs', 'failed', '--queue', 'submission', '--json');
    expect(listed.code, listed.stderr).toBe(0);
    expect(JSON.parse(listed.stdout)).toContainEqual({
      id: jobId,
      name: 'submit',
      attempts: 1,
      failed_at: expect.stringMatching(/^\d{4}-/),
      reason: 'mock 400 (permanent): The mock processor refused the evidence: charge is marked to refuse.',
    });

    const retried = await cli('jobs', 'retry', '--queue', 'submission', '--id', jobId, '--json');
    expect(retried.code, retried.stderr).toBe(0);
    expect(JSON.parse(retried.stdout)).toEqual({ retried: [jobId] });
    await expect
      .poll(async () => (await getDispute(api, tenant.key, dispute.id)).state, { timeout: 10_000 })
      .toBe('submitted');
  });

  it('refuses an unknown job, and a retry without --id or --all, with one line and exit 1', async () => {
    const unknown = await cli('jobs', 'retry', '--queue', 'submission', '--id', 'submission-sub_nope');
    expect([unknown.code, unknown.stderr.trim()]).toEqual([
      1,
      'error: no failed job submission-sub_nope in submission',
    ]);
    const neither = await cli('jobs', 'retry', '--queue', 'submission');
    expect([neither.code, neither.stderr.trim()]).toEqual([1, 'error: give either --id or --all']);
    const badQueue = await cli('jobs', 'failed', '--queue', 'submissions');
    expect(badQueue.code).toBe(1);
    expect(badQueue.stderr).toContain('Allowed choices are mirror, submission, deadline, webhook');
  });
});

describe('npm run cli -- jobs list|show|remove', () => {
  it('shows a failed job: its payload, state, attempts, times, failure reason and where it failed', async () => {
    const { jobId, submissionId } = await refusedSubmission();
    const shown = await cli('jobs', 'show', '--queue', 'submission', '--id', jobId, '--json');
    expect(shown, shown.stderr).toMatchObject({ code: 0, stderr: '' });
    const job = JSON.parse(shown.stdout);
    expect(job).toEqual({
      id: jobId,
      name: 'submit',
      state: 'failed',
      data: { submissionId },
      attempts: 1,
      max_attempts: 12,
      created: expect.stringMatching(/^\d{4}-.*Z$/),
      processed: expect.stringMatching(/^\d{4}-.*Z$/),
      finished: expect.stringMatching(/^\d{4}-.*Z$/),
      failed_reason: refusal,
      stacktrace: expect.any(Array),
    });
    expect(job.stacktrace.length).toBeGreaterThan(0);
    expect(job.stacktrace.length).toBeLessThanOrEqual(8);
    expect(job.stacktrace[0]).toContain(refusal);

    const human = await cli('jobs', 'show', '--queue', 'submission', '--id', jobId);
    expect(human.stdout.split('\n').slice(0, 4)).toEqual([
      `job ${jobId} (submit) in submission: failed`,
      `  data: {"submissionId":"${submissionId}"}`,
      '  attempts: 1 of 12',
      expect.stringMatching(/^ {2}created \S+Z, processed \S+Z, finished \S+Z$/),
    ]);
    expect(human.stdout).toContain(`  failed: ${refusal}`);

    const listed = await cli('jobs', 'list', '--queue', 'submission', '--state', 'failed', '--json');
    expect(JSON.parse(listed.stdout)).toContainEqual({
      id: jobId,
      name: 'submit',
      state: 'failed',
      attempts: 1,
      created: expect.stringMatching(/Z$/),
      finished: expect.stringMatching(/Z$/),
      reason: refusal,
    });
    const unknown = await cli('jobs', 'show', '--queue', 'submission', '--id', 'submission-sub_nope');
    expect([unknown.code, unknown.stderr.trim()]).toEqual([
      1,
      'error: no job submission-sub_nope in submission',
    ]);
  });

  it('lists delayed and waiting jobs, and removes one that is not running', async () => {
    // The deadline queue has no worker in this file: its jobs stay where they are put.
    const deadline = api.queues.byName.deadline;
    const later = await deadline.add(
      'sweepDeadlines',
      {},
      { jobId: `cli-delayed-${Date.now()}`, delay: 3600_000 },
    );
    const now = await deadline.add('sweepDeadlines', {}, { jobId: `cli-waiting-${Date.now()}` });
    const delayed = await cli('jobs', 'list', '--queue', 'deadline', '--state', 'delayed', '--json');
    expect(JSON.parse(delayed.stdout)).toEqual([
      expect.objectContaining({ id: later.id, name: 'sweepDeadlines', state: 'delayed', attempts: 0 }),
    ]);
    // The deadline sweep's scheduler may have a job waiting too: it is a list of the queue's jobs.
    const waiting = await cli('jobs', 'list', '--queue', 'deadline', '--state', 'waiting', '--limit', '5');
    const [header, ...lines] = waiting.stdout.trim().split('\n');
    expect(header).toMatch(/^id +name +state +attempts +created +reason$/);
    expect(lines).toContainEqual(
      expect.stringMatching(new RegExp(`^${now.id} +sweepDeadlines +waiting +0 +\\S+Z$`)),
    );

    const removed = await cli('jobs', 'remove', '--queue', 'deadline', '--id', later.id ?? '', '--json');
    expect(removed, removed.stderr).toMatchObject({ code: 0, stderr: '' });
    expect(JSON.parse(removed.stdout)).toEqual({ removed: later.id, state: 'delayed' });
    expect(await deadline.getJob(later.id ?? '')).toBeUndefined();
    const empty = await cli('jobs', 'list', '--queue', 'deadline', '--state', 'delayed');
    expect(empty.stdout.trim()).toBe('no delayed jobs in deadline');
    await now.remove();
  });

  it('refuses to remove a running job, with one line and exit 1', async () => {
    // A worker of this test's own holds a job on the mirror queue (no worker of the service runs it here).
    let release = () => {};
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    const worker = new Worker('mirror', () => held, {
      connection: workerConnection(api.queues.settings),
      prefix: api.queues.settings.prefix,
    });
    try {
      const job = await api.queues.byName.mirror.add(
        'pollAccount',
        {},
        { jobId: `cli-active-${Date.now()}` },
      );
      await expect.poll(() => job.getState(), { timeout: 10_000 }).toBe('active');
      const refused = await cli('jobs', 'remove', '--queue', 'mirror', '--id', job.id ?? '');
      expect([refused.code, refused.stderr.trim()]).toEqual([
        1,
        `error: job ${job.id} is active: a running job cannot be removed; let it finish or fail`,
      ]);
      expect(await job.getState()).toBe('active');
      const active = await cli('jobs', 'list', '--queue', 'mirror', '--state', 'active', '--json');
      expect(JSON.parse(active.stdout)).toEqual([expect.objectContaining({ id: job.id, state: 'active' })]);
    } finally {
      release();
      await worker.close();
    }
  });

  it('fails with one line, and does not hang, when Redis does not answer', async () => {
    const unreachable = await runCli(['jobs', 'list', '--queue', 'submission', '--state', 'failed'], {
      DATABASE_URL: api.db.url,
      // A port nothing listens on.
      REDIS_URL: 'redis://127.0.0.1:1',
      QUEUE_PREFIX: api.config.QUEUE_PREFIX,
    });
    expect([unreachable.code, unreachable.stderr.trim()]).toEqual([
      1,
      'error: no answer from Redis (REDIS_URL) within 3000 ms',
    ]);
  });
});
