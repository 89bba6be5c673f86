import type { Worker } from 'bullmq';
import { describeError } from '../../logger.js';
import type { QueueName } from '../../queue-names.js';
import { syncSchedules } from '../schedules.js';
import { deadlineHandlers } from './deadline.js';
import { type Handlers, startWorker } from './define-worker.js';
import type { EngineDeps } from './deps.js';
import { mirrorHandlers } from './mirror.js';
import { submissionHandlers } from './submission.js';
import { listenForEvents, webhookHandlers } from './webhook.js';

const handlersOf: { [Queue in QueueName]: (deps: EngineDeps) => Handlers<Queue> } = {
  submission: submissionHandlers,
  deadline: deadlineHandlers,
  mirror: mirrorHandlers,
  webhook: webhookHandlers,
};

export interface RunningWorkers {
  workers: Worker[];
  /**
   * Stops taking jobs and gives in-flight ones `graceMs` to finish; past it, abandons them (their Redis
   * connections dropped, so their locks lapse for another worker to take them) and resolves at once.
   */
  close(graceMs: number): Promise<void>;
}

/** How often a worker process makes Redis's schedulers agree with Postgres (a flushed Redis loses them). */
const scheduleCheckMs = 60_000;

/** The outbox relay also runs on a schedule, catching events whose change notification was missed. */
const relaySweepMs = 30_000;

/**
 * Runs the workers for `names`. The process that runs them also keeps the schedulers: it syncs them at
 * start and every minute after.
 */
export async function startWorkers(deps: EngineDeps, names: readonly QueueName[]): Promise<RunningWorkers> {
  const { config, logger } = deps;
  const scheduleSettings = {
    deadlineSweepMs: config.DEADLINE_SWEEP_SECONDS * 1000,
    relaySweepMs,
  };
  const sync = async () => {
    try {
      await syncSchedules(deps.db, deps.queues, scheduleSettings);
    } catch (error) {
      // Redis away: its watch has said so once, and the sync runs again when Redis is back.
      if (!deps.queues.watch.away)
        logger.error({ err: describeError(error) }, 'syncing job schedulers failed');
    }
  };
  // A start without Redis goes on: the workers wait for it, and the schedulers follow once it is back.
  if (names.length > 0) {
    await deps.queues.watch.unlessAway(syncSchedules(deps.db, deps.queues, scheduleSettings));
  }
  // A Redis that was away may have come back empty (a restart without its files): its schedulers too.
  const stopResync = names.length === 0 ? undefined : deps.queues.watch.onBack(() => void sync());
  const concurrency: Record<QueueName, number> = {
    submission: config.SUBMISSION_CONCURRENCY,
    webhook: config.WEBHOOK_CONCURRENCY,
    mirror: config.MIRROR_CONCURRENCY,
    // One sweep at a time is enough; a second would only contend for the same rows.
    deadline: 1,
  };
  const started = names.map((queue) =>
    startWorker(queue, handlersOf[queue](deps) as Handlers<typeof queue>, {
      settings: deps.queues.settings,
      watch: deps.queues.watch,
      logger,
      concurrency: concurrency[queue],
      lockMs: config.JOB_LOCK_SECONDS * 1000,
    }),
  );
  const workers = started.map(({ worker }) => worker);
  const resync = names.length === 0 ? undefined : setInterval(() => void sync(), scheduleCheckMs);
  resync?.unref();
  // Where the webhook worker runs, a commit with events wakes the relay at once (its schedule is the net).
  const listener = names.includes('webhook') ? await listenForEvents(deps) : undefined;
  if (names.length > 0) logger.info({ workers: names }, 'workers running');

  return {
    workers,
    async close(graceMs) {
      if (resync) clearInterval(resync);
      stopResync?.();
      await listener?.close();
      // close() waits for active jobs, however long they take: BullMQ's close(true) after it only waits
      // on the same promise. So past the grace period the jobs are abandoned instead: their connections
      // are dropped below, their locks lapse, and another worker's stall check takes them up again
      // (at-least-once, with the row guards making the retry harmless).
      const closing = (async () => {
        const all = Promise.all(workers.map((worker) => worker.close()));
        const timedOut = await Promise.race([
          all.then(() => false),
          new Promise<boolean>((resolve) => setTimeout(() => resolve(true), graceMs).unref()),
        ]);
        if (timedOut) {
          logger.warn({ graceMs }, 'in-flight jobs did not finish within the grace period; abandoning them');
        }
      })();
      // Without Redis BullMQ's close waits for it, and jobs in flight cannot finish anyway: their
      // connections are dropped too (the locks expire and another worker retries the jobs, as above).
      await deps.queues.watch.unlessAway(closing);
      for (const { disconnect } of started) disconnect();
    },
  };
}
