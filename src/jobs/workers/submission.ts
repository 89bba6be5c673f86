import type { Job } from 'bullmq';
import { Batcher } from '../../db/batcher.js';
import { prepareQueuedDisputes, type QueuedOutcome } from '../../features/disputes/queued.js';
import type { SubmissionResult } from '../../features/submissions/port.js';
import { type JobAttempt, queuedAfterFailure } from '../../features/submissions/records.js';
import { SubmissionRunner } from '../../features/submissions/runner.js';
import { retryDelay } from '../backoff.js';
import { backoffTypes, processorBackoffMs } from '../catalog.js';
import { createQueueSubmitter } from '../submitter.js';
import { type Handlers, PermanentJobError } from './define-worker.js';
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
  const runner = new SubmissionRunner({ ...deps, leaseMs });
  // Queued disputes falling due together are prepared together (db/batcher.ts).
  const queued = new Batcher<string, QueuedOutcome>((uids) =>
    prepareQueuedDisputes({ db: deps.db, adapters: deps.adapters, leaseMs }, uids),
  );

  /** A job's outcome: done, failed for good (with the processor's answer), or failed to be retried. */
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
    async submit({ submissionId }, { job }) {
      return settle(submissionId, await runner.run(submissionId, attemptOf(job)));
    },
    async submitQueued({ disputeUid }) {
      const outcome = await queued.call(disputeUid);
      if (outcome.status === 'skipped') return outcome;
      if (outcome.status === 'refused') throw new PermanentJobError(outcome.message);
      // The attempt is held already: call the processor within this job. A transient failure goes on
      // as the attempt's own `submit` job, after the backoff (or the Retry-After) it calls for.
      const { submission } = outcome.claimed;
      const result = await runner.runClaimed(outcome.claimed, { attemptsMade: 0, final: false });
      if (result.status === 'retry') {
        const delay = retryDelay(backoffTypes.processor, 1, processorBackoffMs, result.error);
        await submitter.dispatch(submission.id, delay);
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

function attemptOf(job: Job): JobAttempt {
  return { attemptsMade: job.attemptsMade, final: job.attemptsMade + 1 >= (job.opts.attempts ?? 1) };
}
