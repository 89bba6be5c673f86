import type { DeliveryDispatcher } from '../features/webhooks/relay.js';
import type { Queues } from './catalog.js';
import { enqueueBulk, ensureJob } from './enqueue.js';

/** The outbox relay's DeliveryDispatcher over the webhook queue, one `deliverWebhook` job per delivery. */
export function createQueueDeliveryDispatcher(queues: Queues): DeliveryDispatcher {
  return {
    async dispatch(deliveryIds) {
      await enqueueBulk(
        queues,
        'deliverWebhook',
        deliveryIds.map((deliveryId) => ({ deliveryId })),
      );
    },
    async restart(deliveryId) {
      // A job still waiting out a retry is promoted, a finished one replaced; one that has left the
      // delayed set meanwhile runs anyway.
      const job = await ensureJob(queues, 'deliverWebhook', { deliveryId });
      if ((await job.getState()) === 'delayed') await job.promote().catch(() => {});
    },
    async ensure(deliveryId) {
      await ensureJob(queues, 'deliverWebhook', { deliveryId });
    },
  };
}
