import type { Db } from '../db/client.js';
import type { QueuedDispute, Submitter } from '../features/submissions/port.js';
import { submitOutcome } from '../features/submissions/records.js';
import { describeError, type Logger } from '../logger.js';
import type { Queues } from './catalog.js';
import { enqueue, ensureJob, findJob, removeJob } from './enqueue.js';
import { finishedWithin } from './job-wait.js';

/** BullMQ priorities: lower runs first. A client waiting on a submit request goes ahead of the queue. */
const priority = { waiting: 1, background: 10 } as const;

/**
 * The Submitter over the submission queue. Postgres stays the truth throughout: a job that could not be
 * enqueued (Redis away) is found again by the deadline sweep, and a submit request reports what the
 * submission row says, not what the queue said.
 */
export function createQueueSubmitter(deps: {
  db: Db;
  queues: Queues;
  logger: Logger;
  /** SUBMIT_WAIT_MS: how long a submit request waits for the processor call. */
  waitMs: number;
}): Submitter {
  const { db, queues, logger } = deps;
  const tolerate = (what: string, work: () => Promise<unknown>) =>
    work().catch((error: unknown) => {
      // While Redis is away the process's watch has said so once (docs/operations.md, "Faults").
      if (queues.watch.away) logger.info(`${what} waits for Redis; the deadline sweep will catch up`);
      else logger.warn({ err: describeError(error) }, `${what} failed; the deadline sweep will catch up`);
    });

  return {
    async submit(submissionId) {
      await tolerate('enqueueing a submission', async () => {
        const job = await enqueue(queues, 'submit', { submissionId }, { priority: priority.waiting });
        // Ends when the job does or at the time limit, or fails with Redis: either way the row says where
        // things stand. (0 means do not wait.)
        if (deps.waitMs > 0)
          await finishedWithin(queues.events('submission'), job, deps.waitMs).catch(() => {});
      });
      return submitOutcome(db, submissionId);
    },
    /** Also how the sweep re-enqueues work whose job was lost: an earlier finished job does not block it. */
    async dispatch(submissionId, delayMs = 0) {
      await tolerate('enqueueing a submission', () =>
        ensureJob(queues, 'submit', { submissionId }, { priority: priority.background, delay: delayMs }),
      );
    },
    async schedule(dispute) {
      await tolerate('scheduling a queued dispute', () =>
        ensureJob(queues, 'submitQueued', queuedPayload(dispute), {
          delay: Math.max(0, dispute.submitAt.getTime() - Date.now()),
          priority: priority.background,
        }),
      );
    },
    async retryFailed(submissionId) {
      const job = await findJob(queues, 'submit', { submissionId });
      if (!job) return false;
      const state = await job.getState();
      if (state !== 'failed') {
        throw new Error(
          `the job of submission ${submissionId} is ${state}, not failed: it is being retried already`,
        );
      }
      await job.retry('failed');
      if (deps.waitMs > 0) {
        await finishedWithin(queues.events('submission'), job, deps.waitMs).catch(() => {});
      }
      return true;
    },
    async unschedule(dispute) {
      // A job that cannot be removed (already running) finds the dispute no longer queued and stops.
      await tolerate('removing a queued dispute job', () =>
        removeJob(queues, 'submitQueued', queuedPayload(dispute)),
      );
    },
  };
}

const queuedPayload = (dispute: QueuedDispute) => ({
  disputeUid: dispute.uid,
  submitAt: dispute.submitAt.toISOString(),
});
