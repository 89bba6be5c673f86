import { createQueueSubmitter } from '../src/jobs/submitter.js';
import { sweepDeadlines } from '../src/services/deadlines.js';
import type { Handlers } from './define-worker.js';
import type { EngineDeps } from './deps.js';

/** A pending submission younger than this still belongs to the request that is enqueueing it. */
const unattendedAfterMs = 60_000;

export function deadlineHandlers(deps: EngineDeps): Handlers<'deadline'> {
  const { config } = deps;
  const submitter = createQueueSubmitter({
    db: deps.db,
    queues: deps.queues,
    logger: deps.logger,
    waitMs: 0,
  });
  return {
    async sweepDeadlines(_payload, { log }) {
      const report = await sweepDeadlines({
        db: deps.db,
        submitter,
        dueSoonMs: config.DUE_SOON_HOURS * 3_600_000,
        lookaheadMs: config.DEADLINE_SWEEP_SECONDS * 1000,
        unattendedAfterMs,
      });
      log.info(report, 'deadline sweep');
      return report;
    },
  };
}
