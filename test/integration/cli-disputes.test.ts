import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApi, type TestApi } from '../helpers/api.js';
import { cliOf } from '../helpers/cli.js';
import {
  acceptedSubmissions,
  createTestDispute,
  expectError,
  getDispute,
  newTenant,
  submittableDispute,
  type Tenant,
} from '../helpers/disputes.js';

/**
 * `dispute show|resubmit`, run as on-call runs them: a separate process on the database and queues of a
 * running service, whose submission worker sends what a resubmit enqueues to the mock processor.
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

const cli = (...args: string[]) => cliOf(api)(...args);
const dispute = (command: string, id: string, ...more: string[]) =>
  cli('dispute', command, '--org', tenant.org, '--mode', 'test', '--id', id, ...more);

const refusal = 'mock 400 (permanent): The mock processor refused the evidence: charge is marked to refuse.';

describe('npm run cli -- dispute show', () => {
  it('prints the dispute exactly as GET /v1/disputes/:id answers it, with no submission attempts yet', async () => {
    const { dispute: created } = await submittableDispute(api, tenant);
    const shown = await dispute('show', created.id, '--json');
    expect(shown, shown.stderr).toMatchObject({ code: 0, stderr: '' });
    const response = await api.call('GET', `/v1/disputes/${created.id}`, { key: tenant.key });
    expect(JSON.parse(shown.stdout)).toEqual({ dispute: response.body, submissions: [] });

    const human = await dispute('show', created.id);
    expect(human.stdout.split('\n')).toEqual([
      `dispute ${created.id} (test): needs_response`,
      expect.stringContaining(
        `${created.reason}, ${created.amount} ${created.currency}, charge ${created.charge}`,
      ),
      expect.stringMatching(/^ {2}template tpl_\S+, missing fields: none, submitted 0 times$/),
      'no submission attempts',
      '',
    ]);
  });

  it('fails with one line for an unknown dispute, and for another mode', async () => {
    const { dispute: created } = await submittableDispute(api, tenant);
    const unknown = await dispute('show', 'dp_nope');
    expect(unknown.code).toBe(1);
    expect(unknown.stderr.trim().split('\n')).toEqual([expect.stringMatching(/^error: .*dp_nope/)]);
    const live = await cli('dispute', 'show', '--org', tenant.org, '--mode', 'live', '--id', created.id);
    expect(live.code).toBe(1);
    expect(live.stderr.trim().split('\n')).toHaveLength(1);
    const neither = await cli('dispute', 'show', '--org', tenant.org, '--mode', 'test');
    expect([neither.code, neither.stderr.trim()]).toEqual([1, 'error: give either --id or --submission']);
    const noSubmission = await cli(
      'dispute',
      'show',
      '--org',
      tenant.org,
      '--mode',
      'test',
      '--submission',
      'sub_nope',
    );
    expect([noSubmission.code, noSubmission.stderr.trim()]).toEqual([
      1,
      `error: no submission sub_nope in ${tenant.org} (test)`,
    ]);
  });
});

describe('npm run cli -- dispute resubmit', () => {
  it('submits a dispute whose submission the processor refused again; it ends submitted', async () => {
    const { dispute: created } = await submittableDispute(api, tenant, {
      charge: `ch_mock_refuse_once_${Date.now()}`,
    });
    expectError(
      await api.call('POST', `/v1/disputes/${created.id}/submit`, { key: tenant.key }),
      502,
      'processor_error',
    );

    const failed = JSON.parse((await dispute('show', created.id, '--json')).stdout);
    expect(failed.dispute.state).toBe('needs_response');
    expect(failed.submissions).toEqual([
      {
        id: expect.stringMatching(/^sub_/),
        status: 'failed',
        adapter: 'mock',
        created: expect.stringMatching(/Z$/),
        completed: expect.stringMatching(/Z$/),
        failure: refusal,
        failure_status: 400,
        retried_as: null,
        job: `submission-${failed.submissions[0].id}`,
      },
    ]);
    // From the failed job's payload to its dispute, as on-call goes.
    const bySubmission = await cli(
      'dispute',
      'show',
      '--org',
      tenant.org,
      '--mode',
      'test',
      '--submission',
      failed.submissions[0].id,
      '--json',
    );
    expect(JSON.parse(bySubmission.stdout)).toEqual(failed);
    const human = await dispute('show', created.id);
    expect(human.stdout).toContain('submission attempts, oldest first:');
    expect(human.stdout).toContain(`submission-${failed.submissions[0].id}  ${refusal}`);

    const resubmitted = await dispute('resubmit', created.id, '--json');
    expect(resubmitted, resubmitted.stderr).toMatchObject({ code: 0, stderr: '' });
    const after = JSON.parse(resubmitted.stdout);
    expect(after.dispute).toEqual(await getDispute(api, tenant.key, created.id));
    expect(after.dispute).toMatchObject({ state: 'submitted', submitted_count: 1 });
    // The failed attempt's own job ran again, as a retry in Bull Board does: the new attempt is linked
    // from the failed one and runs under its job.
    const job = `submission-${failed.submissions[0].id}`;
    expect(after.submissions).toMatchObject([
      { id: failed.submissions[0].id, status: 'failed', retried_as: after.submissions[1].id, job },
      { status: 'succeeded', failure: null, retried_as: null, job },
    ]);
    expect(acceptedSubmissions(api, created.id)).toHaveLength(1);

    // One way to submit again: the old failed job is done now, so a retry of it makes no third attempt.
    const retried = await cli('jobs', 'retry', '--queue', 'submission', '--id', job, '--json');
    expect(retried.code).toBe(1);
    expect(JSON.parse((await dispute('show', created.id, '--json')).stdout).submissions).toHaveLength(2);
    expect(acceptedSubmissions(api, created.id)).toHaveLength(1);
  });

  it('refuses a won dispute with one line and exit 1, and sends nothing', async () => {
    const won = await createTestDispute(api, tenant.key, { state: 'won' });
    const refused = await dispute('resubmit', won.id);
    expect([refused.code, refused.stdout, refused.stderr.trim()]).toEqual([
      1,
      '',
      `error: dispute '${won.id}' is won: it cannot be submitted again (dispute_closed)`,
    ]);
    expect((await getDispute(api, tenant.key, won.id)).state).toBe('won');
    expect(acceptedSubmissions(api, won.id)).toHaveLength(0);
  });

  it('refuses a dispute whose last submission did not fail, and one never submitted', async () => {
    const { dispute: created } = await submittableDispute(api, tenant);
    const never = await dispute('resubmit', created.id);
    expect([never.code, never.stderr.trim()]).toEqual([
      1,
      `error: dispute '${created.id}' has no submission to resubmit; submit it through the API`,
    ]);
    const submitted = await api.call('POST', `/v1/disputes/${created.id}/submit`, { key: tenant.key });
    expect(submitted.status, submitted.text).toBe(201);
    const again = await dispute('resubmit', created.id);
    expect([again.code, again.stderr.trim()]).toEqual([
      1,
      `error: dispute '${created.id}' is submitted: it cannot be submitted again (dispute_submitted)`,
    ]);
  });
});
