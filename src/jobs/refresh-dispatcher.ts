import type { RefreshDispatcher } from '../features/mirroring/push.js';
import type { Queues } from './catalog.js';
import { enqueueBulk } from './enqueue.js';

/**
 * The RefreshDispatcher over the mirror queue. A failure to enqueue propagates: the push is answered 5xx
 * and the processor sends it again (every processor that pushes retries), and polling is the safety net.
 */
export function createQueueRefreshDispatcher(deps: { queues: Queues }): RefreshDispatcher {
  return {
    async refresh(accountUid, disputeIds) {
      await enqueueBulk(
        deps.queues,
        'refreshDispute',
        [...new Set(disputeIds)].map((disputeId) => ({ accountUid, disputeId })),
      );
    },
  };
}
