import { eq, sql } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import { connectedAccounts } from '../../db/schema/index.js';
import type { Logger } from '../../logger.js';
import type { AdapterRegistry } from '../../processors/registry.js';
import { ProcessorError } from '../../processors/types.js';
import type { SecretBox } from '../../secrets.js';
import { AccountUnusableError, connectionOf } from '../accounts/connections.js';
import { type AlertPollResult, pollAlerts } from '../alerts/poll.js';
import type { AlertRefunder } from '../alerts/refund-dispatch.js';
import { mirrorPage } from './write.js';

/**
 * One poll of a connected account (the mirror job's work): list the disputes changed since the account's
 * cursor, page by page, committing each page with its cursor (features/mirroring/write.ts), until the processor
 * has no more or this run has done its share of pages; the next scheduled run goes on from the cursor.
 */

export interface PollDeps {
  db: Db;
  adapters: AdapterRegistry;
  secrets: SecretBox;
  /** Refunds the polled alerts the organisation's rule covers (features/alerts/refund-dispatch.ts). */
  alertRefunds: AlertRefunder;
  logger?: Logger;
}

export interface PollOptions {
  /** Disputes asked for per page. Default 100 (the most most processors' list calls return). */
  pageSize?: number;
  /**
   * Pages per run. Default 50: a first poll of a large account is spread over several runs, so that one
   * account does not hold a mirror worker while the others wait.
   */
  maxPages?: number;
}

export interface PollTotals {
  pages: number;
  created: number;
  updated: number;
  closed: number;
  unchanged: number;
  /** Ids the processor listed that belong to another account's or a standalone dispute here. */
  foreign: string[];
}

export type PollResult =
  | { outcome: 'skipped'; reason: 'gone' | 'disabled' }
  /**
   * `more`: the run stopped at its page limit with changes still waiting. `alerts`: how the account's
   * alerts were polled after its disputes (features/alerts/poll.ts); their failure fails no dispute.
   */
  | ({ outcome: 'polled'; more: boolean; alerts: AlertPollResult } & PollTotals)
  /** Another run moved the cursor meanwhile; this one stopped without writing its page. */
  | ({ outcome: 'stale' } & PollTotals);

export async function pollAccount(
  deps: PollDeps,
  accountUid: string,
  options: PollOptions = {},
): Promise<PollResult> {
  const { pageSize = 100, maxPages = 50 } = options;
  const [account] = await deps.db
    .select()
    .from(connectedAccounts)
    .where(eq(connectedAccounts.uid, accountUid));
  if (!account) return { outcome: 'skipped', reason: 'gone' };
  if (account.status !== 'active') return { outcome: 'skipped', reason: 'disabled' };

  const totals: PollTotals = { pages: 0, created: 0, updated: 0, closed: 0, unchanged: 0, foreign: [] };
  let more = true;
  try {
    const adapter = usableAdapter(deps.adapters, account.processor);
    const connection = connectionOf(deps.secrets, account);
    let cursor = account.cursor;
    const list = (from: string | null) => adapter.listDisputes({ connection, cursor: from, limit: pageSize });
    let listing = list(cursor);
    while (totals.pages < maxPages) {
      const listed = await listing;
      // The next page is asked for while this one is written: the processor's latency hides behind
      // Postgres's. It is only used if this page commits; a failure in it surfaces when it is awaited.
      const prefetch = listed.hasMore && totals.pages + 1 < maxPages ? list(listed.nextCursor) : undefined;
      prefetch?.catch(() => {});
      const result = await mirrorPage(deps.db, { ...account, cursor }, listed.disputes, listed.nextCursor, {
        logger: deps.logger,
      });
      if (result.outcome === 'stale') return { outcome: 'stale', ...totals };
      totals.pages += 1;
      totals.created += result.created;
      totals.updated += result.updated;
      totals.closed += result.closed;
      totals.unchanged += result.unchanged;
      totals.foreign.push(...result.foreign);
      cursor = listed.nextCursor;
      if (!listed.hasMore) {
        more = false;
        break;
      }
      if (!prefetch) break;
      listing = prefetch;
    }
  } catch (error) {
    await recordFailure(deps.db, account.uid, error);
    throw error;
  }
  const alerts = await pollAlerts(
    deps,
    account,
    deps.adapters.forAccount(account),
    connectionOf(deps.secrets, account),
    options,
  );
  return { outcome: 'polled', more, alerts, ...totals };
}

function usableAdapter(adapters: AdapterRegistry, processor: string) {
  if (!adapters.canPoll(processor)) {
    throw new AccountUnusableError(`no adapter lists disputes of '${processor}' accounts`);
  }
  return adapters.forAccount({ processor });
}

/**
 * What operators see in `account list` until the next successful page clears it. Only what is safe to
 * show: a processor's answer or our own refusal; anything else (a database error, a bug) is in the log.
 */
function failureText(error: unknown): string {
  if (error instanceof ProcessorError) return error.reason;
  if (error instanceof AccountUnusableError) return error.message;
  return 'internal error while mirroring (see the worker log)';
}

async function recordFailure(db: Db, accountUid: string, error: unknown): Promise<void> {
  await db
    .update(connectedAccounts)
    .set({ lastError: failureText(error).slice(0, 1000), updatedAt: sql`now()` })
    .where(eq(connectedAccounts.uid, accountUid))
    // Recording is a courtesy: when it fails too (the database is away), the job's own failure stands.
    .catch(() => undefined);
}
