import type { Db } from '../../db/client.js';
import { describeError, type Logger } from '../../logger.js';
import type { ProcessorAdapter, ProcessorConnection } from '../../processors/types.js';
import { ProcessorError } from '../../processors/types.js';
import { mirrorAlertPage } from './mirror.js';
import { type AlertRefunder, refundCoveredAlerts } from './refund-dispatch.js';
import type { AlertAccount } from './upsert.js';

/**
 * The alerts part of an account's poll (the mirror job, features/mirroring/poll.ts), after its disputes:
 * the alerts changed since the account's alert cursor, page by page, each page committed with its cursor
 * (mirror.ts). A failure here is reported, not thrown: the disputes of the run are written already, and an
 * outage of the processor's alert listing must not hold back dispute mirroring. The next run lists again
 * from the last committed page.
 */

export type AlertPollResult =
  /** The processor lists no alerts. */
  | { outcome: 'unsupported' }
  | { outcome: 'polled'; more: boolean; pages: number; created: number; updated: number; unchanged: number }
  /** Another run moved the alert cursor meanwhile. */
  | { outcome: 'stale'; pages: number }
  /** Listing or writing failed; what was committed before stays. `reason`: safe to show operators. */
  | { outcome: 'failed'; pages: number; reason: string };

export interface AlertPollDeps {
  db: Db;
  /** Where the alerts each page wrote go when the refund rule covers them (refund-dispatch.ts). */
  alertRefunds: AlertRefunder;
  logger?: Logger;
}

export async function pollAlerts(
  deps: AlertPollDeps,
  account: AlertAccount & { alertCursor: string | null },
  adapter: Pick<ProcessorAdapter, 'capabilities' | 'listAlerts'>,
  connection: ProcessorConnection,
  { pageSize = 100, maxPages = 50 }: { pageSize?: number; maxPages?: number } = {},
): Promise<AlertPollResult> {
  const listAlerts = adapter.listAlerts?.bind(adapter);
  if (!adapter.capabilities.alerts || !listAlerts) return { outcome: 'unsupported' };
  const totals = { pages: 0, created: 0, updated: 0, unchanged: 0 };
  let cursor = account.alertCursor;
  try {
    while (totals.pages < maxPages) {
      const listed = await listAlerts({ connection, cursor, limit: pageSize });
      // Nothing new and nowhere to move: no transaction at all, so a quiet account costs one call.
      if (listed.alerts.length === 0 && listed.nextCursor === cursor) {
        return { outcome: 'polled', more: false, ...totals };
      }
      const result = await mirrorAlertPage(
        deps.db,
        { ...account, alertCursor: cursor },
        listed.alerts,
        listed.nextCursor,
      );
      if (result.outcome === 'stale') return { outcome: 'stale', pages: totals.pages };
      totals.pages += 1;
      totals.created += result.created;
      totals.updated += result.updated;
      totals.unchanged += result.unchanged;
      await refundCoveredAlerts(deps, result.written);
      cursor = listed.nextCursor;
      if (!listed.hasMore) return { outcome: 'polled', more: false, ...totals };
    }
    return { outcome: 'polled', more: true, ...totals };
  } catch (error) {
    const reason = error instanceof ProcessorError ? error.reason : 'internal error while mirroring alerts';
    deps.logger?.warn({ err: describeError(error), accountUid: account.uid }, 'alerts not polled');
    return { outcome: 'failed', pages: totals.pages, reason };
  }
}
