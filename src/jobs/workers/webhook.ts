import { webhookDeliverer } from '../../features/webhooks/deliver.js';
import { eventsChannel } from '../../features/webhooks/events.js';
import { eventsWaiting, relayEvents } from '../../features/webhooks/relay.js';
import { createWebhookSender } from '../../features/webhooks/send.js';
import { describeError } from '../../logger.js';
import { createQueueDeliveryDispatcher } from '../delivery-dispatcher.js';
import { enqueue } from '../enqueue.js';
import { type Handlers, PermanentJobError, RetryLater } from './define-worker.js';
import type { EngineDeps } from './deps.js';

/**
 * The webhook queue: the outbox relay and the deliveries. A delivery that gives up (3 days of failures,
 * its own or its endpoint's) fails its job for on-call to see, after its row says `failed`; one whose
 * endpoint was disabled before its turn completes quietly, as `failed` on its row.
 */
export function webhookHandlers(deps: EngineDeps): Handlers<'webhook'> {
  const sender = createWebhookSender({ allowPrivate: deps.config.WEBHOOK_ALLOW_PRIVATE });
  const deliver = webhookDeliverer({ db: deps.db, secrets: deps.secrets, links: deps.links, sender });
  return {
    async relayEvents(_payload, { log }) {
      const report = await relayEvents({
        db: deps.db,
        deliveries: createQueueDeliveryDispatcher(deps.queues),
      });
      if (report.recovered > 0) log.warn(report, 'relay recovered deliveries that had lost their jobs');
      // The others' events went on; these organisations' wait, tried again at every run, until it is fixed.
      for (const failure of report.failed) {
        log.error(failure, "relay could not relay an organisation's events; they wait, the others went on");
      }
      return report;
    },
    async deliverWebhook({ deliveryId }, { attempt }) {
      // The delivery decided its retry (src/domain/retry-policy.ts) and recorded it as `next_attempt_at`.
      const outcome = await deliver(deliveryId, attempt);
      switch (outcome.status) {
        case 'retry':
          throw new RetryLater(outcome.reason, outcome.afterMs);
        case 'failed':
          throw new PermanentJobError(outcome.reason);
        default:
          return outcome;
      }
    },
  };
}

/** While one relay job waits, wakes add nothing; while one runs, one more is kept to run after it. */
const relayDeduplication = { id: 'relay', keepLastIfActive: true };

/**
 * LISTEN for the notification every event-writing commit sends, and answer each with a `relayEvents`
 * job, so events leave within milliseconds instead of at the relay's next scheduled run. The job is
 * deduplicated (one running may have read its batch before the newest commit). Also wakes the relay whenever the
 * listening connection is (re)established and events wait, for commits made while nobody listened; where
 * notifications cannot be heard (a pooler: src/db/pooler.ts) that is every few seconds, and the check
 * keeps those polls from adding a job each while nothing happens.
 */
export async function listenForEvents(
  deps: Pick<EngineDeps, 'db' | 'queues' | 'logger' | 'listen'>,
): Promise<{ close(): Promise<void> }> {
  let inFlight = false;
  let again = false;
  const wake = async (): Promise<void> => {
    if (inFlight) {
      again = true;
      return;
    }
    inFlight = true;
    try {
      do {
        again = false;
        await enqueue(deps.queues, 'relayEvents', {}, { deduplication: relayDeduplication });
      } while (again);
    } catch (error) {
      // The relay's schedule catches up; a notification is only a shortcut. While Redis is away, the
      // process's watch has said so once.
      if (!deps.queues.watch.away) {
        deps.logger.warn({ err: describeError(error) }, 'could not wake the outbox relay');
      }
    } finally {
      inFlight = false;
    }
  };
  let checking = false;
  const catchUp = async (): Promise<void> => {
    // One check at a time: polls do not pile up behind a Postgres that does not answer.
    if (checking) return;
    checking = true;
    try {
      // Not known (Postgres away): the relay runs and finds out, as it did before the check.
      if (await eventsWaiting(deps.db).catch(() => true)) await wake();
    } finally {
      checking = false;
    }
  };
  // After an outage or a failover, the relay job holding the deduplication may be one whose end Redis lost:
  // it looks active until its lock lapses (JOB_LOCK_SECONDS), and every wake meanwhile would add nothing.
  const stopRestarts = deps.queues.watch.onBack(() => {
    void deps.queues.byName.webhook.removeDeduplicationKey(relayDeduplication.id).then(catchUp, () => {});
  });
  const unlisten = await deps.listen(
    eventsChannel,
    () => void wake(),
    () => void catchUp(),
  );
  return {
    async close() {
      stopRestarts();
      await unlisten();
    },
  };
}
