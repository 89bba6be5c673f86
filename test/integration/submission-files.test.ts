import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { templates } from '../../src/db/schema/index.js';
import { recordFile } from '../../src/features/files/records.js';
import { postgresFileStorage } from '../../src/features/files/storage.js';
import { MockAdapter } from '../../src/processors/mock/adapter.js';
import { startTestApi, type TestApi } from '../helpers/api.js';
import { newTenant, submittableDispute, type Tenant, writeStored } from '../helpers/disputes.js';
import { samplePng } from '../helpers/evidence-files.js';
import { firstAttempt, interruptedSubmission, runnerDeps, runSubmission } from '../helpers/submissions.js';

/** The files a submission sends, across its attempts (features/submissions/runner.ts). */
let api: TestApi;
let tenant: Tenant;
beforeAll(async () => {
  api = await startTestApi({ workers: [] });
  tenant = await newTenant(api);
});
afterAll(async () => {
  await api.close();
});

describe('the files of a submission', () => {
  it('retried: sends the files its stored document lists, whatever the template names by then', async () => {
    const { dispute } = await submittableDispute(api, tenant, { charge: `ch_mock_flaky_${Date.now()}` });
    const keep = (name: string) =>
      api.db.db.transaction((tx) =>
        recordFile(
          tx,
          postgresFileStorage(api.db.db),
          { orgId: tenant.org, livemode: false },
          { purpose: 'dispute_evidence', filename: name, type: 'png', pages: null, bytes: samplePng(name) },
        ),
      );
    const [receipt, other] = [await keep('receipt.png'), await keep('other.png')];
    const template = `tmpl_files_${Date.now()}`;
    const fields = (key: string) => [{ key, type: 'file' as const, required: false, description: null }];
    await api.db.db.insert(templates).values({
      id: template,
      orgId: tenant.org,
      livemode: false,
      fields: fields('receipt'),
    });
    await writeStored(api, tenant, dispute.id, {
      template,
      fields: { receipt: receipt.id, proof: other.id },
    });
    const submission = await interruptedSubmission(api, tenant, dispute.id);
    const mock = new MockAdapter();
    expect(await runSubmission(runnerDeps(api, mock), submission, firstAttempt)).toMatchObject({
      status: 'retry',
    });
    // Edited between the attempts: the template now names the other file.
    await api.db.db
      .update(templates)
      .set({ fields: fields('proof') })
      .where(eq(templates.id, template));

    expect(await runSubmission(runnerDeps(api, mock), submission, { failedTries: 1, final: false })).toEqual({
      status: 'succeeded',
    });
    const sent = mock.accepted.get(submission)?.request.files.map((file) => file.id);
    expect(sent).toEqual([receipt.id]);
  });
});
