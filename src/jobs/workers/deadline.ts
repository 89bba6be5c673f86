import { sweepDeadlines } from '../../features/disputes/deadline-sweep.js';
import { sweepIdempotencyKeys } from '../../features/idempotency/keys.js';
import { carryOutRemoval } from '../../features/personal-data/removal.js';
import { createQueueRemovalDispatcher } from '../removal-dispatcher.js';
import { createQueueSubmitter } from '../submitter.js';
import { alertRefundSweepHandlers } from './alert-refunds.js';
import { type Handlers, PermanentJobError } from './define-worker.js';
import type { EngineDeps } from './deps.js';

/**
 * A pending submission or a waiting removal younger than this still belongs to the request that is
 * enqueueing it.
 */
const unattendedAfterMs = 60_000;

export function deadlineHandlers(deps: EngineDeps): Handlers<'deadline'> {
  const { config } = deps;
  const submitter = createQueueSubmitter({
    db: deps.db,
    queues: deps.queues,
    logger: deps.logger,
    waitMs: 0,
  });
  const removals = createQueueRemovalDispatcher(deps);
  return {
    ...alertRefundSweepHandlers(deps),
    async sweepDeadlines(_payload, { log }) {
      const report = await sweepDeadlines({
        db: deps.db,
        submitter,
        removals,
        dueSoonMs: config.DUE_SOON_HOURS * 3_600_000,
        lookaheadMs: config.DEADLINE_SWEEP_SECONDS * 1000,
        unattendedAfterMs,
      });
      log.info(report, 'deadline sweep');
      return report;
    },
    async sweepIdempotencyKeys(_payload, { log }) {
      const deleted = await sweepIdempotencyKeys(deps.db);
      log.info({ deleted }, 'idempotency keys swept');
      return { deleted };
    },
    async removePersonalData({ requestId }, { log }) {
      const outcome = await carryOutRemoval(deps, requestId);
      switch (outcome.status) {
        case 'waiting':
          // Retried with backoff; nothing was changed.
          throw new Error(`waiting for submission ${outcome.submissionId} to finish`);
        case 'unknown':
          throw new PermanentJobError(`no personal data removal request ${requestId}`);
        case 'failed':
          throw new PermanentJobError(outcome.reason);
        case 'removed':
          log.info({ summary: outcome.summary }, 'personal data removed');
          return outcome;
        case 'done_before':
          return outcome;
      }
    },
  };
}
