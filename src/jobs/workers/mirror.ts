import { pollAccount } from '../../features/mirroring/poll.js';
import { refreshDispute } from '../../features/mirroring/push.js';
import { createQueueAlertRefunder } from '../alert-refunder.js';
import type { Handlers } from './define-worker.js';
import type { EngineDeps } from './deps.js';

/**
 * The mirror queue: each connected account's scheduler (src/jobs/schedules.ts) adds a `pollAccount` job
 * every poll interval. A failed run is retried by its policy (src/domain/retry-policy.ts) unless its error
 * is permanent; the cursor only moves with committed pages, so a retry lists again from where the last
 * good page ended.
 */
export function mirrorHandlers(deps: EngineDeps): Handlers<'mirror'> {
  const alertRefunds = createQueueAlertRefunder(deps);
  return {
    async pollAccount({ accountUid }, { log }) {
      const result = await pollAccount({ ...deps, alertRefunds }, accountUid);
      if (result.outcome === 'skipped') {
        log.debug({ reason: result.reason }, 'account not polled');
        return result;
      }
      const { foreign, ...counts } = result;
      if (foreign.length > 0) {
        log.warn(
          { ids: foreign.slice(0, 20), count: foreign.length },
          'listed disputes held by another account',
        );
      }
      log.debug(counts, 'account polled');
      // The job's return value, shown in Bull Board: counts only.
      return { ...counts, foreign: foreign.length };
    },
    async refreshDispute({ accountUid, disputeId }) {
      return refreshDispute(deps, accountUid, disputeId);
    },
  };
}
