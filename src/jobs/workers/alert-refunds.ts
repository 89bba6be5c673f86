import { isLastAttempt, retryPolicies } from '../../domain/retry-policy.js';
import { sweepAlertRefunds } from '../../features/alerts/refund-dispatch.js';
import { refundAlert } from '../../features/alerts/refunds.js';
import { createQueueAlertRefunder } from '../alert-refunder.js';
import { type JobContext, PermanentJobError } from './define-worker.js';
import type { EngineDeps } from './deps.js';

/**
 * The alert refund jobs (docs/operations.md, "Alert refunds"): `refundAlert` on the submission queue,
 * `sweepAlertRefunds` on the deadline queue. They translate the executor's result into the job's: done,
 * retried by the policy (a transient processor failure, another worker holding the alert), or failed.
 */

export function alertRefundHandlers(deps: EngineDeps) {
  const refundDeps = { ...deps, leaseMs: deps.config.JOB_LOCK_SECONDS * 1000 };
  return {
    async refundAlert({ alertUid }: { alertUid: string }, { attempt, log }: JobContext) {
      const final = isLastAttempt(retryPolicies.alertRefund, attempt);
      const result = await refundAlert(refundDeps, alertUid, { by: 'rule', final });
      switch (result.status) {
        case 'unknown':
          throw new PermanentJobError(`no alert ${alertUid}`);
        case 'retry':
          // Retried by the policy, by the processor's Retry-After when it said; same key every time.
          throw result.error;
        case 'in_flight':
          throw new Error(`alert ${alertUid} is held by another worker`);
        case 'not_sent':
          throw new PermanentJobError(result.error.message);
        case 'skipped':
          log.debug({ reason: result.message }, 'alert not refunded');
          return { status: result.status, reason: result.message };
        case 'refunded':
        case 'refund_failed':
          return { status: result.status, refund: result.alert.refund, reason: result.alert.refundFailure };
      }
    },
  };
}

export function alertRefundSweepHandlers(deps: EngineDeps) {
  const refunder = createQueueAlertRefunder(deps);
  return {
    async sweepAlertRefunds(_payload: Record<string, never>, { log }: JobContext) {
      const report = await sweepAlertRefunds({ db: deps.db, adapters: deps.adapters, refunder });
      log.info(report, 'alert refund sweep');
      return report;
    },
  };
}
