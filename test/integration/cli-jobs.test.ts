import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { submissions } from '../../src/db/schema/index.js';
import { startTestApi, type TestApi } from '../helpers/api.js';
import { runCli } from '../helpers/cli.js';
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
const cli = (...args: string[]) =>
  runCli(args, {
    DATABASE_URL: api.db.url,
    REDIS_URL: api.config.REDIS_URL,
    QUEUE_PREFIX: api.config.QUEUE_PREFIX,
  });

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
