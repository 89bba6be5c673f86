import type { AlertRefunder } from '../features/alerts/refund-dispatch.js';
import { describeError, type Logger } from '../logger.js';
import type { Queues } from './catalog.js';
import { ensureJob } from './enqueue.js';

/**
 * The AlertRefunder over the submission queue. Postgres stays the truth: an alert whose job could not be
 * enqueued (Redis away, a process stopped after its commit) is found by the alert refund sweep. A finished
 * job under the same id (kept for on-call) does not block a new one: the row says whether a refund is due.
 */
export function createQueueAlertRefunder(deps: { queues: Queues; logger: Logger }): AlertRefunder {
  return {
    async refund(alertUids, delayMs = 0) {
      for (const alertUid of alertUids) {
        try {
          await ensureJob(deps.queues, 'refundAlert', { alertUid }, { delay: delayMs });
        } catch (error) {
          deps.logger.warn(
            { err: describeError(error), alert: alertUid },
            'enqueueing an alert refund failed; the alert refund sweep will catch up',
          );
        }
      }
    },
  };
}
