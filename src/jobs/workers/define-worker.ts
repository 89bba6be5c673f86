import { UnrecoverableError, Worker } from 'bullmq';
import { Failure, isPermanent } from '../../domain/failure.js';
import { decideRetry, type FailedTry, type RetryPolicy } from '../../domain/retry-policy.js';
import { describeError, type Logger } from '../../logger.js';
import { ProcessorError } from '../../processors/types.js';
import type { QueueName } from '../../queue-names.js';
import { eachCopy, type RedisWatch } from '../../redis-watch.js';
import {
  type JobName,
  type JobPayload,
  type JobsOf,
  jobCatalog,
  type QueueSettings,
  workerConnection,
} from '../catalog.js';

/**
 * A failure that retrying the same job cannot fix (a processor's refusal, a row that no longer allows the
 * work). The job fails at once, with this message as its failure reason for on-call to read.
 */
export class PermanentJobError extends Failure {
  override readonly name = 'PermanentJobError';
  readonly permanent = true;
}

/**
 * A retry decided on (src/domain/retry-policy.ts): the job is tried again after `afterMs`, with this
 * message as its failure reason meanwhile. A handler throws it when it decided itself, because it had to
 * record the wait (a webhook delivery's `next_attempt_at`); the wrapper below throws it for the rest.
 */
export class RetryLater extends Failure {
  override readonly name = 'RetryLater';
  readonly permanent = false;

  constructor(
    message: string,
    readonly afterMs: number,
  ) {
    super(message);
  }
}

export interface JobContext {
  /** Which try this run is, 1 for the first: BullMQ's `attemptsMade` as the retry policy counts. */
  attempt: number;
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
 * identity, and carries out the job's retry policy on each failure: UnrecoverableError for one that ends
 * the job, so BullMQ does not retry it, or RetryLater with the wait the policy gave.
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
      const attempt = job.attemptsMade + 1;
      const log = logger.child({ job: job.id, name: job.name, attempt });
      try {
        return await (handler as (payload: unknown, context: JobContext) => Promise<unknown>)(parsed.data, {
          attempt,
          token,
          log,
        });
      } catch (error) {
        const decided = decide(error, definition.retry, attempt);
        if (decided instanceof RetryLater) {
          log.warn({ err: describeError(error), retryInMs: decided.afterMs }, 'job failed, will retry');
        } else {
          log.warn({ reason: describeError(error) }, 'job failed for good');
        }
        throw decided;
      }
    },
    {
      connection,
      prefix: options.settings.prefix,
      concurrency: options.concurrency,
      lockDuration: options.lockMs,
      stalledInterval: options.lockMs,
      settings: {
        // Every failure reaching BullMQ was decided above; anything else is not retried blindly.
        backoffStrategy: (_attemptsMade, _type, error) => (error instanceof RetryLater ? error.afterMs : -1),
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
 * A handler's failure as BullMQ is to carry it out: a retry after the wait decided (the handler's own, or
 * the job's policy's), or UnrecoverableError, which BullMQ never retries. Either way the message is the
 * failure reason the board shows.
 */
function decide(error: unknown, policy: RetryPolicy, attempt: number): RetryLater | UnrecoverableError {
  if (error instanceof RetryLater) return error;
  const decision = decideRetry(policy, failedTry(error), attempt);
  return decision.decision === 'retry'
    ? new RetryLater(decision.reason, decision.afterMs)
    : new UnrecoverableError(decision.reason);
}

/**
 * A thrown error as the retry policy reads it: whether it is permanent, the reason the board shows, and
 * the wait it asks for (HTTP Retry-After, which ProcessorError carries), when it says.
 */
export function failedTry(error: unknown): FailedTry {
  const shown = forTheBoard(error);
  const seconds = (error as { retryAfterSeconds?: unknown } | null)?.retryAfterSeconds;
  return {
    status: 'failed',
    permanent: isPermanent(error),
    reason: shown instanceof Error ? shown.message : String(shown),
    retryAfterSeconds: typeof seconds === 'number' ? seconds : undefined,
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
  // The board shows the message: make it a processor's whole reason, who answered and what.
  if (error instanceof ProcessorError) return new Error(error.reason);
  if (!(error instanceof Error) || !('params' in error && 'query' in error)) return error;
  const cause = (error as Error & { cause?: { code?: unknown } }).cause;
  const code = typeof cause?.code === 'string' ? ` (Postgres ${cause.code})` : '';
  return new Error(`a database statement failed${code}; the worker's log has the details`);
}
