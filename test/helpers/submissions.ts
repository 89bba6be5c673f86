import { pino } from 'pino';
import { documentLimits } from '../../src/config.js';
import { lockDispute } from '../../src/features/disputes/records.js';
import { prepareSubmission } from '../../src/features/submissions/prepare.js';
import type { JobAttempt } from '../../src/features/submissions/records.js';
import { type SubmissionDeps, SubmissionRunner } from '../../src/features/submissions/runner.js';
import { MockAdapter } from '../../src/processors/mock/adapter.js';
import { createAdapterRegistry } from '../../src/processors/registry.js';
import type { TestApi } from './api.js';
import type { Tenant } from './disputes.js';

/** The submission runner driven as the submission job drives it, without queues or workers. */

/** A runner of its own per call: each run stands for a separate job, as a worker would run it. */
export const runSubmission = (deps: SubmissionDeps, id: string, attempt: JobAttempt) =>
  new SubmissionRunner(deps).run(id, attempt);
export const firstAttempt: JobAttempt = { failedTries: 0, final: false };
export const lastAttempt: JobAttempt = { failedTries: 11, final: true };

/** The runner's dependencies over the test service's database, with `mock` as the processor. */
export function runnerDeps(api: TestApi, mock: MockAdapter): SubmissionDeps {
  return {
    db: api.db.db,
    adapters: createAdapterRegistry({ mock }),
    secrets: api.engine.secrets,
    logger: pino({ level: 'silent' }),
    leaseMs: 60_000,
    documentLimits: documentLimits(api.engine.config),
  };
}

/** Records a submission attempt as a submit request does, then stops, as a killed process would. */
export async function interruptedSubmission(api: TestApi, tenant: Tenant, id: string): Promise<string> {
  return api.db.db.transaction(async (tx) => {
    const { dispute } = await lockDispute(tx, { orgId: tenant.org, livemode: false }, id);
    return (await prepareSubmission(tx, dispute, 'mock')).submissionId;
  });
}

/** A mock processor whose submit answers only when the test says: `calling` once it is called. */
export function heldProcessor() {
  let called = () => {};
  const calling = new Promise<void>((resolve) => {
    called = resolve;
  });
  let answer = () => {};
  const answered = new Promise<void>((resolve) => {
    answer = resolve;
  });
  class HeldAdapter extends MockAdapter {
    override async submitEvidence(...request: Parameters<MockAdapter['submitEvidence']>) {
      called();
      await answered;
      return super.submitEvidence(...request);
    }
  }
  return { mock: new HeldAdapter(), calling, answer };
}
