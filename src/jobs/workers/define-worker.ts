import { type Job, UnrecoverableError, Worker } from 'bullmq';
import { describeError, type Logger } from '../../logger.js';
import { ProcessorError } from '../../processors/types.js';
import { eachCopy, type RedisWatch } from '../../redis-watch.js';
import { retryDelay } from '../backoff.js';
import {
  type JobName,
  type JobPayload,
  type JobsOf,
  jobCatalog,
  type QueueSettings,
  workerConnection,
} from '../catalog.js';
import type { QueueName } from '../names.js';

/**
 * A failure that retrying the same job cannot fix (a processor's refusal, a row that no longer allows the
 * work). The job fails at once, with this message as its failure reason for on-call to read.
 */
export class PermanentJobError extends Error {
  override readonly name = 'PermanentJobError';
}

/** Anything that says of itself whether trying again may help (ProcessorError does). */
function isPermanent(error: unknown): boolean {
  if (error instanceof PermanentJobError) return true;
  return (
    typeof error === 'object' &&
    error !== null &&
    'retryable' in error &&
    (error as { retryable: unknown }).retryable === false
  );
}

export interface JobContext {
  job: Job;
  /** The lock token of this run: needed to move the job (to delayed, say) from inside the handler. */
  token: string | undefined;
  log: Logger;
}

export type Handlers<Queue extends QueueName> = {
  [Name in JobsOf<Queue>]: (payload: JobPayload<Name>, context: JobContext) => Promise<unknown>;
};

export interface WorkerOptions {
  settings: QueueSettings;
  /** The process's (src/redis-watch.ts): hears the worker's connections and its errors. */
  watch: RedisWatch;
  logger: Logger;
  concurrency: number;
  lockMs: number;
}

export interface StartedWorker {
  worker: Worker;
  /** Drops its connections, the copy BullMQ made for its blocking reads included (it closes neither). */
  disconnect(): void;
}

/**
 * A BullMQ worker for one queue: it re-parses every payload against the catalog, logs with the job's
 * identity, and turns permanent failures into UnrecoverableError so BullMQ does not retry them.
 */
export function startWorker<Queue extends QueueName>(
  queue: Queue,
  handlers: Handlers<Queue>,
  options: WorkerOptions,
): StartedWorker {
  const logger = options.logger.child({ queue });
  const connection = workerConnection(options.settings, options.watch);
  const connections = [connection];
  eachCopy(connection, (copy) => connections.push(copy));
  const worker = new Worker(
    queue,
    async (job, token) => {
      const name = job.name as JobName;
      const handler = (handlers as Record<string, Handlers<Queue>[JobsOf<Queue>]>)[name];
      const definition = jobCatalog[name];
      if (!handler || !definition || definition.queue !== queue) {
        throw new UnrecoverableError(`no handler for job '${job.name}' on queue '${queue}'`);
      }
      const parsed = definition.payload.safeParse(job.data);
      if (!parsed.success) throw new UnrecoverableError(`invalid payload for '${job.name}'`);
      const log = logger.child({ job: job.id, name: job.name, attempt: job.attemptsMade + 1 });
      try {
        return await (handler as (payload: unknown, context: JobContext) => Promise<unknown>)(parsed.data, {
          job,
          token,
          log,
        });
      } catch (error) {
        if (isPermanent(error)) {
          log.warn({ reason: describeError(error) }, 'job failed for good');
          throw new UnrecoverableError(
            error instanceof ProcessorError
              ? error.reason
              : error instanceof Error
                ? error.message
                : String(error),
          );
        }
        log.warn({ err: describeError(error) }, 'job failed, will retry if attempts remain');
        throw forTheBoard(error);
      }
    },
    {
      connection,
      prefix: options.settings.prefix,
      concurrency: options.concurrency,
      lockDuration: options.lockMs,
      stalledInterval: options.lockMs,
      settings: {
        backoffStrategy: (attemptsMade, type, error, job) =>
          retryDelay(type, attemptsMade, (job?.opts.backoff as { delay?: number })?.delay ?? 1000, error),
      },
    },
  );
  // Its failures are Redis's (the watch tells an outage once), not lines of their own per retry.
  options.watch.errors(worker);
  return {
    worker,
    disconnect: () => {
      for (const each of connections) each.disconnect();
    },
  };
}

/**
 * What BullMQ keeps of a failed attempt (its message and stack, shown in Bull Board and `jobs failed` for
 * days) must not carry data: a database error's message holds the statement's parameters, which may be
 * evidence or the person of a personal-data removal. It is kept as its Postgres code only; the full error
 * went to the log, described without parameters. Other errors pass unchanged (a processor's answer is
 * what on-call needs to read).
 */
export function forTheBoard(error: unknown): unknown {
  if (error instanceof ProcessorError) {
    // The board shows the message: make it the whole reason, keeping what the backoff reads.
    const { processor, retryable, status, retryAfterSeconds } = error;
    return new ProcessorError(processor, error.reason, {
      retryable,
      ...(status !== undefined && { status }),
      ...(retryAfterSeconds !== undefined && { retryAfterSeconds }),
    });
  }
  if (!(error instanceof Error) || !('params' in error && 'query' in error)) return error;
  const cause = (error as Error & { cause?: { code?: unknown } }).cause;
  const code = typeof cause?.code === 'string' ? ` (Postgres ${cause.code})` : '';
  return new Error(`a database statement failed${code}; the worker's log has the details`);
}
