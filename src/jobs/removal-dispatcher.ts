import type { RemovalDispatcher } from '../features/personal-data/removal.js';
import { describeError, type Logger } from '../logger.js';
import type { Queues } from './catalog.js';
import { ensureJob } from './enqueue.js';

/**
 * The RemovalDispatcher over the deadline queue. Postgres stays the truth: a removal whose job could not
 * be enqueued (Redis away) waits on its row, and the deadline sweep enqueues it. A finished job under the
 * same id (kept for on-call) does not block a new one: the row says the removal is still to do.
 */
export function createQueueRemovalDispatcher(deps: { queues: Queues; logger: Logger }): RemovalDispatcher {
  return {
    async dispatch(requestId) {
      try {
        await ensureJob(deps.queues, 'removePersonalData', { requestId });
      } catch (error) {
        deps.logger.warn(
          { err: describeError(error), request: requestId },
          'enqueueing a personal data removal failed; the deadline sweep will catch up',
        );
      }
    },
  };
}
