import type { EventEmitter } from 'node:events';
import type { Job, QueueEvents } from 'bullmq';

/**
 * Resolves once `job` has finished (completed, or failed for good) or `ms` have passed, whichever comes
 * first. BullMQ's own `job.waitUntilFinished` also adds a `closing` listener to the job's Queue for each
 * wait: every submit request waits on the one shared submission Queue, so past ten at once Node warned
 * of a leak (MaxListenersExceededWarning). This wait listens only to its own job's events.
 */
export async function finishedWithin(events: QueueEvents, job: Job, ms: number): Promise<void> {
  // BullMQ emits each job's events under `<event>:<job id>` too; its typings list only the plain names.
  const emitter: EventEmitter = events;
  const completed = `completed:${job.id}`;
  const failed = `failed:${job.id}`;
  let finish = () => {};
  const finished = new Promise<void>((resolve) => {
    finish = resolve;
  });
  emitter.on(completed, finish);
  emitter.on(failed, finish);
  const timer = setTimeout(finish, ms);
  try {
    // Listening first, then looking: a job that finished before the listeners were added is seen here.
    // The time limit covers these steps too: a listener that cannot connect does not hold the wait.
    const looked = (async () => {
      await events.waitUntilReady();
      const state = await job.getState();
      if (state === 'completed' || state === 'failed') finish();
    })();
    looked.catch(() => {});
    await Promise.race([finished, looked.then(() => finished)]);
  } finally {
    clearTimeout(timer);
    emitter.off(completed, finish);
    emitter.off(failed, finish);
  }
}
