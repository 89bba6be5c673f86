import { type JobsOptions, Queue, QueueEvents } from 'bullmq';
import { z } from 'zod';
import { type RetryPolicy, retryPolicies } from '../domain/retry-policy.js';
import { type QueueName, queueNames } from '../queue-names.js';
import { openRedis, type RedisClient, type RedisTarget } from '../redis-connection.js';
import { eachCopy, RedisWatch } from '../redis-watch.js';

/**
 * Every job this service runs, in one typed object: its queue, its payload schema, the id that makes a
 * duplicate enqueue a no-op, and its retry policy. Payloads are row ids only: Bull Board shows them, so
 * they never carry secrets or client data.
 *
 * Job ids derive from the row a job acts on, never from client-chosen ids (BullMQ forbids `:` in custom
 * ids and dispute ids may hold one). An id stops deduplicating once its job is removed, so every handler
 * first checks its row's status (docs/architecture.md, "Queues and guarantees").
 */

const rowId = (prefix: string) => z.string().regex(new RegExp(`^${prefix}_[0-9a-z]{20}$`));
const uid = z.uuid();

/** Kept for on-call: a day of completed jobs, a week of failed ones (capped so Redis stays small). */
const keep = {
  removeOnComplete: { age: 24 * 3600, count: 10_000 },
  removeOnFail: { age: 7 * 24 * 3600, count: 50_000 },
} satisfies JobsOptions;

interface JobDefinition<Queue extends QueueName, Payload extends z.ZodType> {
  queue: Queue;
  payload: Payload;
  /** A deterministic id (deduplicating enqueues), or undefined for jobs that may run many times. */
  jobId?: (payload: z.infer<Payload>) => string;
  /** When a failed run is tried again, and when it stops (src/domain/retry-policy.ts). */
  retry: RetryPolicy;
}

/**
 * A job with the BullMQ options its policy makes: the attempts bound BullMQ keeps, and a backoff type the
 * workers' strategy answers with the wait each failure was given (jobs/workers/define-worker.ts).
 */
const define = <Queue extends QueueName, Payload extends z.ZodType>(
  definition: JobDefinition<Queue, Payload>,
) => ({
  ...definition,
  options: {
    ...keep,
    attempts: definition.retry.attempts,
    backoff: { type: definition.retry.backoff, delay: definition.retry.baseMs },
  } satisfies JobsOptions,
});

export const jobCatalog = {
  /** Send one prepared submission to its processor: the only job that calls a processor's submit. */
  submit: define({
    queue: 'submission',
    payload: z.object({ submissionId: rowId('sub') }),
    jobId: ({ submissionId }) => `submission-${submissionId}`,
    retry: retryPolicies.submission,
  }),
  /**
   * Submit a queued dispute at its `submit_at`: delayed until then. The id carries the moment, so moving
   * the moment makes a new job, and re-adding the same moment (an edit, the sweep) is a no-op.
   */
  submitQueued: define({
    queue: 'submission',
    payload: z.object({ disputeUid: uid, submitAt: z.iso.datetime() }),
    jobId: ({ disputeUid, submitAt }) => `queued-${disputeUid}-${Date.parse(submitAt)}`,
    // Jittered, so jobs that failed together (a batch, a database blip) do not all return together.
    retry: retryPolicies.queuedSubmission,
  }),
  /**
   * Refund one alert's charge through its processor (features/alerts/refunds.ts): on the submission queue,
   * beside the other calls that change something at a processor. The id is the alert's, so kicks, the
   * sweep and a request's retry make one job; the executor's lease and key make one refund.
   */
  refundAlert: define({
    queue: 'submission',
    payload: z.object({ alertUid: uid }),
    jobId: ({ alertUid }) => `alert-refund-${alertUid}`,
    retry: retryPolicies.alertRefund,
  }),
  /** The alert refund sweep: alerts the rule covers, and refunds started and unfinished, get their job. */
  sweepAlertRefunds: define({
    queue: 'deadline',
    payload: z.object({}),
    retry: retryPolicies.sweep,
  }),
  /** The deadline sweep: due queued disputes, unfinished submissions and deliveries, due-soon and overdue. */
  sweepDeadlines: define({
    queue: 'deadline',
    payload: z.object({}),
    retry: retryPolicies.sweep,
  }),
  /** Delete the Idempotency-Keys kept past their 24 hours (docs/api.md, "Idempotent requests"). */
  sweepIdempotencyKeys: define({
    queue: 'deadline',
    payload: z.object({}),
    retry: retryPolicies.sweep,
  }),
  /**
   * Carry out one personal-data removal request once no submission of the person's data is in flight;
   * until then it fails and retries: about every 5 minutes, for some 3 hours. A request still waiting
   * after that stays waiting on its row (`completed_at` null), and the deadline sweep enqueues it again.
   */
  removePersonalData: define({
    queue: 'deadline',
    payload: z.object({ requestId: rowId('pdr') }),
    jobId: ({ requestId }) => `removal-${requestId}`,
    retry: retryPolicies.removal,
  }),
  /** Poll one connected account for disputes changed since its cursor. */
  pollAccount: define({
    queue: 'mirror',
    payload: z.object({ accountUid: uid }),
    retry: retryPolicies.poll,
  }),
  /**
   * Fetch one dispute a processor's push named (features/mirroring/push.ts). No deterministic id: a
   * refresh is harmless to repeat, and a push after an earlier refresh of the same dispute must run.
   */
  refreshDispute: define({
    queue: 'mirror',
    payload: z.object({ accountUid: uid, disputeId: z.string().min(1).max(255) }),
    retry: retryPolicies.refresh,
  }),
  /** Turn unrelayed outbox events into webhook deliveries. */
  relayEvents: define({
    queue: 'webhook',
    payload: z.object({}),
    retry: retryPolicies.relay,
  }),
  /** Deliver one event to one endpoint; retried for 3 days (the handler ends it then). */
  deliverWebhook: define({
    queue: 'webhook',
    payload: z.object({ deliveryId: rowId('wh') }),
    jobId: ({ deliveryId }) => `delivery-${deliveryId}`,
    retry: retryPolicies.delivery,
  }),
};

export type JobName = keyof typeof jobCatalog;
export type JobPayload<Name extends JobName> = z.infer<(typeof jobCatalog)[Name]['payload']>;
export type JobsOf<Queue extends QueueName> = {
  [Name in JobName]: (typeof jobCatalog)[Name]['queue'] extends Queue ? Name : never;
}[JobName];

export interface QueueSettings {
  /** Where Redis is (src/redis-connection.ts `redisTargetOf`). */
  redis: RedisTarget;
  /** The key prefix of every queue (QUEUE_PREFIX; on a cluster it carries a {hash tag}). */
  prefix: string;
}

/** Producers fail fast when Redis is away, so a request is not held up; the sweeps catch up later. */
function producerConnection(settings: QueueSettings, watch = new RedisWatch()): RedisClient {
  return watch.client(openRedis(settings.redis, 'producer'));
}

/** Workers and event listeners block on Redis and must keep retrying through an outage (BullMQ's rule). */
export function workerConnection(settings: QueueSettings, watch = new RedisWatch()): RedisClient {
  return watch.client(openRedis(settings.redis, 'blocking'));
}

export interface Queues {
  readonly settings: QueueSettings;
  readonly byName: Record<QueueName, Queue>;
  /** Hears every connection of these queues (src/redis-watch.ts); workers on them report to it too. */
  readonly watch: RedisWatch;
  /** Lazily opened: only the web process waits on submissions. */
  events(queue: QueueName): QueueEvents;
  /** Closes the queues and listeners, then every connection opened for them. */
  close(): Promise<void>;
  /** Drops every connection at once, for a short-lived process whose close cannot wait on Redis. */
  disconnect(): void;
}

/**
 * The queues of one process. Their connections' failures, and their own, go to `watch`: the process's,
 * which tells an outage in two lines; by default a silent one (a CLI command says what failed itself).
 */
export function openQueues(settings: QueueSettings, watch = new RedisWatch()): Queues {
  // Every connection opened here, closed here: BullMQ duplicates a listener's connection for its
  // blocking reads and leaves the one it was given open. The copies are kept too, for a close without
  // Redis, where BullMQ's own close would wait for them to connect.
  const connections: RedisClient[] = [];
  const connect = (open: (settings: QueueSettings, watch: RedisWatch) => RedisClient) => {
    const connection = open(settings, watch);
    connections.push(connection);
    eachCopy(connection, (copy) => connections.push(copy));
    return connection;
  };
  const connection = connect(producerConnection);
  const byName = Object.fromEntries(
    queueNames.map((name) => [name, watch.errors(new Queue(name, { connection, prefix: settings.prefix }))]),
  ) as Record<QueueName, Queue>;
  const listeners = new Map<QueueName, QueueEvents>();
  const disconnect = () => {
    for (const each of connections) each.disconnect();
  };
  return {
    settings,
    byName,
    watch,
    events(queue) {
      let listener = listeners.get(queue);
      if (!listener) {
        listener = watch.errors(
          new QueueEvents(queue, { connection: connect(workerConnection), prefix: settings.prefix }),
        );
        listeners.set(queue, listener);
      }
      return listener;
    },
    async close() {
      const closing = (async () => {
        await Promise.all([...listeners.values()].map((listener) => listener.close()));
        await Promise.all(Object.values(byName).map((queue) => queue.close()));
      })();
      // Without Redis, BullMQ's close waits for connections that may never come: they are dropped.
      await watch.unlessAway(closing);
      disconnect();
    },
    disconnect,
  };
}
