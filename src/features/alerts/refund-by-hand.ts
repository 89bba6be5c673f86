import { and, eq } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import { alerts } from '../../db/schema/index.js';
import { ApiError, notFound } from '../../domain/errors.js';
import type { Logger } from '../../logger.js';
import type { AdapterRegistry } from '../../processors/registry.js';
import type { SecretBox } from '../../secrets.js';
import { ownedBy, type Tenant } from '../tenancy.js';
import type { AlertRefunder } from './refund-dispatch.js';
import { type AlertRow, handRefundLeaseMs, refundAlert } from './refunds.js';

/**
 * `POST /v1/alerts/:id/refund` (docs/api.md, "Refunds"): one alert refunded at once, through the same
 * executor as the job, so a refund by hand and the rule's never make two.
 */

export interface HandRefundDeps {
  db: Db;
  adapters: AdapterRegistry;
  secrets: SecretBox;
  logger: Logger;
  alertRefunds: AlertRefunder;
}

/** The alert as it stands after the call, and whether its outcome is still to come (`pending`). */
export interface HandRefund {
  alert: AlertRow;
  pending: boolean;
}

/** The first wait before the job tries a refund by hand again, without the processor's Retry-After. */
const retryAfterMs = 2000;

export async function refundAlertByHand(
  deps: HandRefundDeps,
  tenant: Tenant,
  id: string,
): Promise<HandRefund> {
  const [found] = await deps.db
    .select({ uid: alerts.uid })
    .from(alerts)
    .where(and(ownedBy(alerts, tenant), eq(alerts.id, id)));
  if (!found) throw notFound.alert(id);
  const result = await refundAlert({ ...deps, leaseMs: handRefundLeaseMs }, found.uid, {
    by: 'hand',
    final: false,
  });
  switch (result.status) {
    case 'unknown':
      throw notFound.alert(id);
    case 'skipped':
      throw new ApiError('invalid_request', result.message);
    case 'not_sent':
      throw new ApiError('processor_error', `Not sent: ${result.error.message}.`);
    case 'retry': {
      // The processor did not answer (or its answer was lost): the job tries again under the same key.
      const seconds = result.error.retryAfterSeconds;
      await deps.alertRefunds.refund([found.uid], seconds ? seconds * 1000 : retryAfterMs);
      return { alert: result.alert, pending: true };
    }
    case 'in_flight':
      return { alert: result.alert, pending: true };
    case 'refunded':
    case 'refund_failed':
      return { alert: result.alert, pending: false };
  }
}
