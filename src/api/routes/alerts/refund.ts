import { toAlertObject } from '../../../domain/alerts.js';
import { refundAlertByHand } from '../../../features/alerts/refund-by-hand.js';
import { defineEndpoint } from '../../endpoint.js';
import { alertIdParameter } from '../../inputs/params.js';

/** `POST /v1/alerts/:id/refund` (docs/api.md, "Refunds"): translated into one call of the feature. */
export const refundAlertEndpoint = defineEndpoint({
  method: 'post',
  path: '/alerts/:id/refund',
  params: { id: alertIdParameter },
  docs: {
    operationId: 'refundAlert',
    summary: "Refund an alert's charge in full through its processor, at most once",
    description:
      "Answers the alert as the processor left it: `refunded` with the refund id, or `refund_failed` with the processor's reason (both 200). When the processor does not answer, the refund is tried again in the background under the same idempotency key: 202 with the alert still `open`, and `alert.updated` follows.",
    success: {
      200: 'Refunded, or refused by the processor (`outcome` says which).',
      202: 'The processor did not answer, or another refund of the alert is under way: its outcome follows.',
    },
    returns: 'alert',
    errors: ['alert_not_found', 'invalid_request', 'processor_error'],
  },
  async handle({ caller, params, deps }) {
    const { alert, pending } = await refundAlertByHand(deps, caller, params.id);
    return { status: pending ? 202 : 200, body: toAlertObject(alert) };
  },
});
