import type { Job, JobsOptions } from 'bullmq';
import { type RedisClient, redisSetting } from '../redis-connection.js';
import { type JobName, type JobPayload, jobCatalog, type Queues } from './catalog.js';

/**
 * Adds a job with its catalog options and deterministic id. Adding an id that exists is a no-op that
 * returns the existing job, so enqueueing twice (a retried request, the sweep) is harmless.
 */
export async function enqueue<Name extends JobName>(
  queues: Queues,
  name: Name,
  payload: JobPayload<Name>,
  options: JobsOptions = {},
): Promise<Job> {
  const job = jobOf(name, payload, options);
  return queueOf(queues, name).add(job.name, job.data, job.opts);
}

/** Like `enqueue` for many jobs of one name, in one round trip to Redis. */
export async function enqueueBulk<Name extends JobName>(
  queues: Queues,
  name: Name,
  payloads: JobPayload<Name>[],
): Promise<Job[]> {
  if (payloads.length === 0) return [];
  return queueOf(queues, name).addBulk(payloads.map((payload) => jobOf(name, payload, {})));
}

/**
 * The queue of a job. While Redis is away a producer fails at once, as its connection is set to: BullMQ
 * would otherwise hold the command, without limit, in a process that has not reached Redis yet. Away is
 * the process's view (all its connections); the producer's own connection answering again is enough to
 * enqueue, though others (a listener's) are still reconnecting.
 */
function queueOf(queues: Queues, name: JobName) {
  const queue = queues.byName[jobCatalog[name].queue];
  if (queues.watch.away && (queue.opts.connection as RedisClient).status !== 'ready') {
    throw new Error(`Redis is away (${redisSetting(queues.settings.redis)}): the job was not enqueued`);
  }
  return queue;
}

function jobOf<Name extends JobName>(name: Name, payload: JobPayload<Name>, options: JobsOptions) {
  const definition = jobCatalog[name];
  const data = definition.payload.parse(payload);
  const jobId = (definition.jobId as ((payload: unknown) => string) | undefined)?.(data);
  return {
    name,
    data,
    opts: { ...definition.options, ...(jobId === undefined ? {} : { jobId }), ...options },
  };
}

/** The deterministic id of this payload's job. */
function jobIdOf<Name extends JobName>(name: Name, payload: JobPayload<Name>): string {
  const jobId = (jobCatalog[name].jobId as ((payload: unknown) => string) | undefined)?.(payload);
  if (jobId === undefined) throw new Error(`job '${name}' has no deterministic id`);
  return jobId;
}

/** Removes the job with the deterministic id of this payload, if it exists and is not running. */
export async function removeJob<Name extends JobName>(
  queues: Queues,
  name: Name,
  payload: JobPayload<Name>,
): Promise<void> {
  await queueOf(queues, name).remove(jobIdOf(name, payload));
}

/** The job with the deterministic id of this payload, while the queue keeps it. */
export async function findJob<Name extends JobName>(
  queues: Queues,
  name: Name,
  payload: JobPayload<Name>,
): Promise<Job | undefined> {
  return queueOf(queues, name).getJob(jobIdOf(name, payload));
}

/**
 * Like `enqueue`, but a finished job (completed or failed, kept for on-call) under the same id does not
 * block it: that job is replaced. The sweeps use this, because the row they act on says the work is
 * still to do, whatever an earlier job under that id did.
 */
export async function ensureJob<Name extends JobName>(
  queues: Queues,
  name: Name,
  payload: JobPayload<Name>,
  options: JobsOptions = {},
): Promise<Job> {
  const job = await enqueue(queues, name, payload, options);
  const state = await job.getState();
  if (state !== 'completed' && state !== 'failed') return job;
  try {
    await job.remove();
  } catch {
    // Another sweep replaced it first and its job is running now: that one does the work.
    return job;
  }
  return enqueue(queues, name, payload, options);
}
