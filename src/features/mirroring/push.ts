import { and, eq } from 'drizzle-orm';
import { z } from 'zod';
import type { Db } from '../../db/client.js';
import { connectedAccounts } from '../../db/schema/index.js';
import { ApiError } from '../../domain/errors.js';
import type { Logger } from '../../logger.js';
import type { AdapterRegistry } from '../../processors/registry.js';
import { ProcessorError, PushRejectedError } from '../../processors/types.js';
import type { SecretBox } from '../../secrets.js';
import { AccountUnusableError, connectionOf } from '../accounts/connections.js';
import { mirrorAlerts } from '../alerts/mirror.js';
import { type AlertRefunder, refundCoveredAlerts } from '../alerts/refund-dispatch.js';
import { mirrorDisputes } from './write.js';

/**
 * Processor push (`POST /processor-hooks/:processor/:account`): a processor's own webhook, verified with
 * its own signature scheme by the account's adapter, so that a new or changed dispute shows here within
 * seconds instead of at the next poll (polling stays the safety net).
 * - Processors with a fetch call: the named disputes are fetched again by `refreshDispute` jobs (the push
 *   itself is only a hint; the fetch is the truth).
 * - Processors that only push (Adyen, Worldpay): the push describes the dispute in full, and it is written
 *   at once, in the request's transaction, with its events.
 * - Alerts a push describes (Stripe's early fraud warnings, Adyen's fraud notifications) are written at once
 *   too, as unordered news (features/alerts/mirror.ts).
 * A push that does not verify is refused with 400 and changes nothing; a failure on our side answers 5xx,
 * which processors retry.
 */

/** Hands disputes to fetch again to the mirror queue (jobs/refresh-dispatcher.ts). */
export interface RefreshDispatcher {
  refresh(accountUid: string, disputeIds: readonly string[]): Promise<void>;
}

export interface PushDeps {
  db: Db;
  adapters: AdapterRegistry;
  secrets: SecretBox;
  refresher: RefreshDispatcher;
  /** Refunds the pushed alerts the organisation's rule covers (features/alerts/refund-dispatch.ts). */
  alertRefunds: AlertRefunder;
  logger: Logger;
}

export interface PushReceived {
  processor: string;
  accountUid: string;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
}

/** What the processor gets back: its own expected reply, or a plain acknowledgement. */
export interface PushReply {
  contentType: string;
  body: string;
}

const unknownHook = () => new ApiError('not_found', 'No such processor hook.');

export async function receivePush(deps: PushDeps, push: PushReceived): Promise<PushReply> {
  if (!z.uuid().safeParse(push.accountUid).success || !deps.adapters.canConnect(push.processor)) {
    throw unknownHook();
  }
  const [account] = await deps.db
    .select()
    .from(connectedAccounts)
    .where(and(eq(connectedAccounts.uid, push.accountUid), eq(connectedAccounts.processor, push.processor)));
  const adapter = deps.adapters.forProcessor(push.processor);
  if (!account || !adapter.parsePush) throw unknownHook();
  const log = deps.logger.child({ processor: push.processor, accountUid: account.uid });
  let result: Awaited<ReturnType<NonNullable<typeof adapter.parsePush>>>;
  try {
    result = await adapter.parsePush({
      connection: connectionOf(deps.secrets, account),
      headers: push.headers,
      body: push.body,
    });
  } catch (error) {
    if (error instanceof PushRejectedError) {
      log.warn({ reason: error.message }, 'push refused');
      throw new ApiError('invalid_request', `The push was refused: ${error.message}`);
    }
    if (error instanceof AccountUnusableError) {
      // Retrying cannot help until an operator connects the account again: refused, and logged for them.
      log.error({ reason: error.message }, 'push for an account whose credentials cannot be opened');
      throw new ApiError('invalid_request', 'The push cannot be verified for this account.');
    }
    if (error instanceof ProcessorError && error.retryable) {
      // Verification needs the processor (PayPal), which is away: the processor sends the push again.
      log.warn({ reason: error.reason }, 'push could not be verified now');
      throw new ApiError('processor_error', 'The push could not be verified now; send it again later.');
    }
    if (error instanceof ProcessorError) {
      log.warn({ reason: error.reason }, 'push refused by its verification');
      throw new ApiError('invalid_request', 'The push could not be verified.');
    }
    throw error;
  }
  if (account.status !== 'active') {
    // Paused by an operator: verified, not taken. The processor sends it again later (every processor
    // that pushes retries for days), so nothing is lost while the pause lasts.
    log.info('push for a paused account refused for now');
    throw new ApiError('unavailable', 'This account is paused; send the push again later.');
  }
  if (result.disputes.length > 0) {
    const written = await mirrorDisputes(deps.db, account, result.disputes, {
      logger: log,
      unsigned: result.unsigned,
    });
    // Paused between the check above and the write: the processor sends the push again later.
    if (written.outcome === 'stale') {
      throw new ApiError('unavailable', 'This account is paused; send the push again later.');
    }
  }
  // Alerts after disputes, in a transaction of their own: a failure answers 5xx and the processor sends the
  // push again, which writes the disputes' part as a repeat (nothing) and the alerts' part then.
  const alerts = result.alerts ?? [];
  if (alerts.length > 0) {
    const written = await mirrorAlerts(deps.db, account, alerts);
    if (written.outcome === 'stale') {
      throw new ApiError('unavailable', 'This account is paused; send the push again later.');
    }
    await refundCoveredAlerts({ ...deps, logger: log }, written.written);
  }
  if (result.refresh.length > 0) await deps.refresher.refresh(account.uid, result.refresh);
  log.debug(
    { written: result.disputes.length, alerts: alerts.length, refresh: result.refresh.length },
    'push received',
  );
  return result.reply ?? { contentType: 'application/json', body: JSON.stringify({ received: true }) };
}

/**
 * The `refreshDispute` job: fetch one dispute the processor told us about, and write it like a polled one.
 * A dispute the processor no longer knows is left as it is.
 */
export async function refreshDispute(
  deps: Pick<PushDeps, 'db' | 'adapters' | 'secrets' | 'logger'>,
  accountUid: string,
  disputeId: string,
): Promise<{ outcome: 'refreshed' | 'unknown' | 'skipped' }> {
  const [account] = await deps.db
    .select()
    .from(connectedAccounts)
    .where(eq(connectedAccounts.uid, accountUid));
  if (account?.status !== 'active') return { outcome: 'skipped' };
  const adapter = deps.adapters.forProcessor(account.processor);
  if (!adapter.getDispute) {
    throw new AccountUnusableError(`${account.processor} disputes cannot be fetched one by one`);
  }
  // Unusable credentials are permanent (AccountUnusableError): the job fails at once for on-call.
  const dispute = await adapter.getDispute({
    connection: connectionOf(deps.secrets, account),
    id: disputeId,
  });
  if (!dispute) return { outcome: 'unknown' };
  // What the processor answers now is its current state, as a poll's: ordered news.
  const written = await mirrorDisputes(deps.db, account, [dispute], { logger: deps.logger, ordered: true });
  return { outcome: written.outcome === 'stale' ? 'skipped' : 'refreshed' };
}
