import { documentLimits } from '../../config.js';
import { Batcher } from '../../db/batcher.js';
import { decideRetry, isLastAttempt, retryPolicies } from '../../domain/retry-policy.js';
import { prepareQueuedDisputes, type QueuedOutcome } from '../../features/disputes/queued.js';
import type { SubmissionResult } from '../../features/submissions/port.js';
import { type JobAttempt, queuedAfterFailure } from '../../features/submissions/records.js';
import { SubmissionRunner } from '../../features/submissions/runner.js';
import { createQueueSubmitter } from '../submitter.js';
import { alertRefundHandlers } from './alert-refunds.js';
import { failedTry, type Handlers, PermanentJobError } from './define-worker.js';
import type { EngineDeps } from './deps.js';

/** The submission queue: the only place a processor's submit is called. */
export function submissionHandlers(deps: EngineDeps): Handlers<'submission'> {
  const submitter = createQueueSubmitter({
    db: deps.db,
    queues: deps.queues,
    logger: deps.logger,
    waitMs: 0,
  });
  const leaseMs = deps.config.JOB_LOCK_SECONDS * 1000;
  const limits = documentLimits(deps.config);
  const runner = new SubmissionRunner({ ...deps, leaseMs, documentLimits: limits });
  // Queued disputes falling due together are prepared together (db/batcher.ts).
  const queued = new Batcher<string, QueuedOutcome>((uids) =>
    prepareQueuedDisputes({ db: deps.db, adapters: deps.adapters, leaseMs, documentLimits: limits }, uids),
  );

  /**
   * A run's outcome as the job's: done, failed for good (with the processor's answer), or a failure the
   * submission policy retries (src/domain/retry-policy.ts), by the processor's Retry-After when it said.
   */
  async function settle(submissionId: string, result: SubmissionResult) {
    switch (result.status) {
      case 'succeeded':
        return result;
      case 'failed': {
        const slot = await queuedAfterFailure(deps.db, submissionId);
        if (slot) await submitter.schedule(slot);
        // On-call reads who refused and what it answered (ProcessorError.reason), not just the message.
        throw new PermanentJobError(result.reason ?? result.message);
      }
      case 'retry':
        throw result.error;
      case 'in_flight':
        // Another runner holds the attempt (a stalled run of this job, not yet timed out): try later.
        throw new Error(`submission ${submissionId} is held by another runner`);
    }
  }

  return {
    ...alertRefundHandlers(deps),
    async submit({ submissionId }, { attempt }) {
      return settle(submissionId, await runner.run(submissionId, jobAttempt(attempt)));
    },
    async submitQueued({ disputeUid }) {
      const outcome = await queued.call(disputeUid);
      if (outcome.status === 'skipped') return outcome;
      if (outcome.status === 'refused') throw new PermanentJobError(outcome.message);
      // The attempt is held already: this job makes its first try. A transient failure goes on as the
      // attempt's own `submit` job, after the wait the submission policy gives a first failure.
      const { submission } = outcome.claimed;
      const result = await runner.runClaimed(outcome.claimed, jobAttempt(1));
      if (result.status === 'retry') {
        const decision = decideRetry(retryPolicies.submission, failedTry(result.error), 1);
        await submitter.dispatch(submission.id, decision.decision === 'retry' ? decision.afterMs : 0);
        return { status: 'retrying', submissionId: submission.id };
      }
      if (result.status === 'failed') {
        // The failure is shown, and retried by on-call, on the attempt's own job (`submission-sub_…`),
        // whose retry reopens the submission; this job has done its part.
        await submitter.dispatch(submission.id);
        return { status: 'failed', submissionId: submission.id, reason: result.message };
      }
      return settle(submission.id, result);
    },
  };
}

/**
 * Try `attempt` of a submission as the runner records it: the tries of its job that failed before (one
 * less than the try, as rows recorded before this count was named stored it too).
 */
function jobAttempt(attempt: number): JobAttempt {
  return { failedTries: attempt - 1, final: isLastAttempt(retryPolicies.submission, attempt) };
}
