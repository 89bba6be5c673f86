import { Counter, Gauge, type Registry } from 'prom-client';
import type { Queues } from '../jobs/catalog.js';
import { queueNames } from '../queue-names.js';
import type { Collector } from './collectors.js';

/** The states BullMQ counts a queue's jobs in (`getJobCounts`), each reported even at 0. */
export const jobStates = [
  'waiting',
  'active',
  'delayed',
  'prioritized',
  'waiting-children',
  'completed',
  'failed',
] as const;

/**
 * How many jobs each queue holds in each state, read from Redis at scrape time, so it is the same
 * whichever process is scraped. `completed` and `failed` are the jobs kept for on-call (a day and a week,
 * jobs/catalog.ts), not totals: those are rebuttal_job_outcomes_total.
 */
export function queueDepths(registry: Registry, queues: Queues): Collector {
  const jobs = new Gauge({
    name: 'rebuttal_queue_jobs',
    help: 'Jobs in each queue by state, as BullMQ counts them at scrape time.',
    labelNames: ['queue', 'state'],
    registers: [registry],
  });
  return {
    name: 'queues',
    async read() {
      const counts = await Promise.all(
        queueNames.map(async (queue) => ({
          queue,
          counts: await queues.byName[queue].getJobCounts(...jobStates),
        })),
      );
      return () => {
        for (const { queue, counts: byState } of counts) {
          for (const state of jobStates) jobs.set({ queue, state }, byState[state] ?? 0);
        }
      };
    },
    clear: () => jobs.reset(),
  };
}

/**
 * Counts jobs finishing, per queue: `completed`, or `failed` for good (a retried attempt is not a failure
 * here; BullMQ emits `failed` only when no attempt remains or the failure is unrecoverable).
 *
 * Why events: the workers run in other processes (the Procfile's `worker`; the `web` process runs none),
 * so counting in a worker would show only that worker's share, and only when it is the one scraped.
 * BullMQ publishes every job's completion and failure on the queue's event stream in Redis, whichever
 * process ran it, and QueueEvents here reads that stream: each web process counts every outcome of the
 * whole service since it started (a restart resets its counter, which `rate()` and `increase()` allow
 * for). The other shared states fall short: getJobCounts' `completed` and `failed` fall as old jobs are
 * removed (jobs/catalog.ts keeps a day and a week), so they are no counts; BullMQ's own metrics
 * (`queue.getMetrics`) count only when every worker is started with its `metrics` option. Every web
 * process reports the same totals: aggregate them with `max`, not `sum`.
 */
export function countJobOutcomes(registry: Registry, queues: Queues): void {
  const outcomes = new Counter({
    name: 'rebuttal_job_outcomes_total',
    help: 'Jobs finished in each queue, completed or failed for good, by any worker process, counted since this process started.',
    labelNames: ['queue', 'outcome'],
    registers: [registry],
  });
  for (const queue of queueNames) {
    // Opened here for every queue (the web process had only the submission one); closed with the queues.
    // Their errors go to the queues' Redis watch (src/redis-watch.ts), which tells an outage once.
    // QueueEvents reconnects by itself and reads on from the last event it saw, so outcomes meanwhile
    // are counted late, not lost (while the stream, capped by BullMQ at about 10,000 events a queue,
    // still holds them).
    const events = queues.events(queue);
    events.on('completed', () => outcomes.inc({ queue, outcome: 'completed' }));
    events.on('failed', () => outcomes.inc({ queue, outcome: 'failed' }));
    for (const outcome of ['completed', 'failed']) outcomes.inc({ queue, outcome }, 0);
  }
}
