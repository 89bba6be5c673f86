import { and, eq, ne, sql } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import { alerts, organisations } from '../../db/schema/index.js';
import { refundRefusal, refundsOnItsOwn } from '../../domain/alert-refund-rule.js';
import { describeError, type Logger } from '../../logger.js';
import type { AdapterRegistry } from '../../processors/registry.js';
import type { ProcessorAdapter, ProcessorConnection, ProcessorError } from '../../processors/types.js';
import type { SecretBox } from '../../secrets.js';
import {
  AccountUnusableError,
  accountOfDispute,
  bareConnection,
  connectionOf,
} from '../accounts/connections.js';
import { adapterFailure } from '../adapter-failure.js';
import { recordAlertEvents } from '../webhooks/events.js';
import { resolveByAlertRefund } from './link.js';

/**
 * The refund executor (docs/architecture.md, "Alert refunds exactly once"): refunds one alert's charge
 * through its processor at most once, whoever asks (the job, a second worker, a request) and whatever
 * dies on the way.
 * - The alert is claimed in a transaction with a lease (`refund_claimed_until`), as submissions are: a
 *   second worker finds it held and makes no call.
 * - The processor is called under a key derived from the alert (`alert_refund_<uid>`), the same for every
 *   try, so a try after a lost answer or a crash is answered with the same refund.
 * - `refund_claimed_until` not null on an open alert means a call may have been made: such an alert is
 *   finished (called again under the same key) whatever the rule says now, and never left behind.
 * - The outcome (refunded with the refund id, or refund_failed with the processor's reason) is recorded
 *   with its `alert.updated` event in one transaction.
 */

export type AlertRow = typeof alerts.$inferSelect;

export interface RefundDeps {
  db: Db;
  adapters: AdapterRegistry;
  /** Opens the answering account's credentials for the call. */
  secrets: SecretBox;
  logger: Logger;
  /** How long a claim holds without renewal (JOB_LOCK_SECONDS for the job); renewed at half while calling. */
  leaseMs: number;
}

/** Who asks: the organisation's rule (the job), or a person (`POST /v1/alerts/:id/refund`). */
export interface RefundRequest {
  by: 'rule' | 'hand';
  /** No retry follows: a transient failure is recorded as `refund_failed`. */
  final: boolean;
}

export type RefundResult =
  | { status: 'refunded' | 'refund_failed'; alert: AlertRow }
  /** A transient failure with tries left: the alert stays open and started, for the job to try again. */
  | { status: 'retry'; alert: AlertRow; error: ProcessorError }
  /** Another worker holds the claim. */
  | { status: 'in_flight'; alert: AlertRow }
  /**
   * Nothing to do: decided already, not refundable (domain/alert-refund-rule.ts, or no refund call at its
   * processor), or, for the rule, not covered. `message` says why.
   */
  | { status: 'skipped'; alert: AlertRow; message: string }
  /** No call could be made (no account connected, its credentials do not open): nothing was sent. */
  | { status: 'not_sent'; alert: AlertRow; error: Error }
  | { status: 'unknown' };

/** The processor's key for this alert's refund: the same for every try, by every worker. */
export const refundIdempotencyKey = (alertUid: string) => `alert_refund_${alertUid}`;

/** The lease of a refund made by hand, in a web process (the job's is JOB_LOCK_SECONDS). */
export const handRefundLeaseMs = 30_000;

/** A refund's outcome is recorded: nothing calls the processor for this alert again. */
const decided = (alert: { outcome: string }) =>
  alert.outcome === 'refunded' || alert.outcome === 'refund_failed';
const undecided = and(ne(alerts.outcome, 'refunded'), ne(alerts.outcome, 'refund_failed'));

const leaseEnd = (leaseMs: number) => sql`now() + ${`${leaseMs} milliseconds`}::interval`;

interface Claim {
  alert: AlertRow;
  /** A call may have been made before this claim (an earlier try's lease was set). */
  started: boolean;
  adapter: ProcessorAdapter;
}

export async function refundAlert(
  deps: RefundDeps,
  alertUid: string,
  request: RefundRequest,
): Promise<RefundResult> {
  const claim = await claimAlert(deps, alertUid, request);
  if (!('adapter' in claim)) return claim;
  const { alert, adapter } = claim;
  const log = deps.logger.child({ alert: alert.uid, processor: alert.processor });
  let connection: ProcessorConnection;
  try {
    connection = await connectionFor(deps, alert);
  } catch (error) {
    await release(deps.db, claim);
    if (!(error instanceof AccountUnusableError)) throw error;
    return { status: 'not_sent', alert, error };
  }
  const lease = renewLease(deps, alert.uid, log);
  let answer: { refund: string } | { error: ProcessorError };
  try {
    answer = await callProcessor(adapter, connection, alert, log);
  } finally {
    lease.stop();
  }
  if ('error' in answer && credentialsRefused(answer.error)) {
    // The processor refused our credentials, not the refund: nothing was refunded, and a fixed key must
    // be able to try again (a refund_failed alert is never tried again).
    await release(deps.db, claim);
    return { status: 'not_sent', alert, error: answer.error };
  }
  if ('error' in answer && answer.error.retryable && !request.final) {
    // Started stays marked (an expired lease), so the retry, or the sweep, finishes it under the same key.
    const [row] = await deps.db
      .update(alerts)
      .set({ refundClaimedUntil: sql`now()` })
      .where(and(eq(alerts.uid, alert.uid), undecided))
      .returning();
    log.info({ reason: answer.error.message }, 'alert refund will be retried');
    return { status: 'retry', alert: row ?? alert, error: answer.error };
  }
  return recordOutcome(deps.db, alert, answer, log);
}

/**
 * Takes the alert's lease when it may be refunded now and nobody holds it. The rule is read in the same
 * transaction as the claim, under the row's lock, so a claim never acts on a stale alert.
 */
async function claimAlert(
  deps: RefundDeps,
  alertUid: string,
  request: RefundRequest,
): Promise<Claim | RefundResult> {
  return deps.db.transaction(async (tx) => {
    const [found] = await tx
      .select({
        alert: alerts,
        thresholds: organisations.alertRefundUpTo,
        held: sql<boolean>`coalesce(${alerts.refundClaimedUntil} > now(), false)`,
      })
      .from(alerts)
      .innerJoin(organisations, eq(organisations.id, alerts.orgId))
      .where(eq(alerts.uid, alertUid))
      .for('update', { of: alerts });
    if (!found) return { status: 'unknown' } as const;
    const { alert, thresholds, held } = found;
    const started = alert.refundClaimedUntil !== null && alert.charge !== null && !decided(alert);
    const refusal = refundRefusal(alert);
    if (refusal !== null && !started) return { status: 'skipped', alert, message: refusal } as const;
    if (request.by === 'rule' && !started && !refundsOnItsOwn(alert, thresholds)) {
      return { status: 'skipped', alert, message: 'The refund rule does not cover this alert.' } as const;
    }
    if (held) return { status: 'in_flight', alert } as const;
    const adapter = refundingAdapter(deps.adapters, alert.processor);
    if (!adapter) {
      const message = `${alert.processor} offers no refund through its API: refund the charge in its dashboard.`;
      return { status: 'skipped', alert, message } as const;
    }
    const [claimed] = await tx
      .update(alerts)
      .set({ refundClaimedUntil: leaseEnd(deps.leaseMs) })
      .where(eq(alerts.uid, alertUid))
      .returning();
    return { alert: claimed ?? alert, started, adapter };
  });
}

/** The adapter that refunds this processor's charges, or null when its processor offers no refund call. */
export function refundingAdapter(adapters: AdapterRegistry, processor: string): ProcessorAdapter | null {
  if (!adapters.canConnect(processor)) return null;
  const adapter = adapters.forProcessor(processor);
  return adapter.capabilities.refund && adapter.refundCharge ? adapter : null;
}

/**
 * The connected account the alert came from, opened for the call (the mock processor needs none). No
 * account, or credentials that no longer open, is an operator's to fix: nothing is sent.
 */
async function connectionFor(deps: RefundDeps, alert: AlertRow): Promise<ProcessorConnection> {
  const account = await accountOfDispute(deps.db, { ...alert, source: alert.processor });
  if (account) return connectionOf(deps.secrets, account);
  if (alert.processor === 'mock') return bareConnection(alert);
  throw new AccountUnusableError(
    `no ${alert.processor} account '${alert.account}' is connected to refund alert '${alert.id}'`,
  );
}

/** 401 or 403: the account's key is revoked or lacks the refund permission. */
const credentialsRefused = (error: ProcessorError) => error.status === 401 || error.status === 403;

/** A claim given back without a call: an earlier try's mark stays, so a started refund is still finished. */
async function release(db: Db, claim: Claim): Promise<void> {
  await db
    .update(alerts)
    .set({ refundClaimedUntil: claim.started ? sql`now()` : null })
    .where(and(eq(alerts.uid, claim.alert.uid), undecided));
}

/** Anything the adapter throws ends as an answer: an alert is never left claimed by a call that broke. */
async function callProcessor(
  adapter: ProcessorAdapter,
  connection: ProcessorConnection,
  alert: AlertRow,
  log: Logger,
): Promise<{ refund: string } | { error: ProcessorError }> {
  try {
    // biome-ignore lint/style/noNonNullAssertion: refundingAdapter chose an adapter with refundCharge.
    return await adapter.refundCharge!({
      connection,
      // biome-ignore lint/style/noNonNullAssertion: only an alert with a charge is claimed.
      charge: alert.charge!,
      amount: alert.amount,
      currency: alert.currency,
      idempotencyKey: refundIdempotencyKey(alert.uid),
    });
  } catch (thrown) {
    return { error: adapterFailure(adapter.name, thrown, log) };
  }
}

/** The processor's answer on the alert, with its event, in one transaction. */
async function recordOutcome(
  db: Db,
  alert: AlertRow,
  answer: { refund: string } | { error: ProcessorError },
  log: Logger,
): Promise<RefundResult> {
  const change =
    'refund' in answer
      ? { outcome: 'refunded' as const, refund: answer.refund, refundFailure: null }
      : { outcome: 'refund_failed' as const, refundFailure: failureOf(answer.error) };
  const recorded = await db.transaction(async (tx) => {
    // A refund the processor made is the truth even if mirroring marked the alert meanwhile (disputed).
    const [row] = await tx
      .update(alerts)
      .set({ ...change, refundClaimedUntil: null, updatedAt: sql`now()` })
      .where(and(eq(alerts.uid, alert.uid), undecided))
      .returning();
    if (row) await recordAlertEvents(tx, [{ type: 'alert.updated', alert: row }]);
    return row;
  });
  if (!recorded) {
    const [row] = await db.select().from(alerts).where(eq(alerts.uid, alert.uid));
    const current = row ?? alert;
    return { status: current.outcome === 'refunded' ? 'refunded' : 'refund_failed', alert: current };
  }
  await resolveByAlertRefund(db, recorded);
  if ('refund' in answer) log.info({ refund: answer.refund }, 'alert refunded');
  else log.warn({ reason: answer.error.reason }, 'alert refund failed');
  return { status: change.outcome, alert: recorded };
}

/**
 * The processor's reason as the alert shows it (`refund_failure`): its own words for a refusal; for an
 * outage that outlasted the retries, that it never answered.
 */
function failureOf(error: ProcessorError): string {
  // Stripe's message names its code already (processors/stripe/client.ts); others may not.
  const code = error.code && !error.message.includes(error.code) ? ` (${error.code})` : '';
  if (!error.retryable) return `${error.message}${code}`;
  return `The processor did not answer after every try: ${error.message}`;
}

/** Extends the lease at half its length while the processor call lasts. */
function renewLease(deps: RefundDeps, alertUid: string, log: Logger): { stop(): void } {
  const timer = setInterval(() => {
    deps.db
      .update(alerts)
      .set({ refundClaimedUntil: leaseEnd(deps.leaseMs) })
      .where(and(eq(alerts.uid, alertUid), undecided))
      .catch((error: unknown) => log.warn({ err: describeError(error) }, 'renewing the refund lease failed'));
  }, deps.leaseMs / 2);
  return { stop: () => clearInterval(timer) };
}
