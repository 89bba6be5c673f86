import { and, asc, gt, isNull, lte, type SQL, sql } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import { stateIn } from '../../db/schema/columns.js';
import { disputes, organisations } from '../../db/schema/index.js';
import { dueSoonStates, overdueStates } from '../../domain/states.js';
import { type RemovalDispatcher, waitingRemovals } from '../personal-data/removal.js';
import type { Submitter } from '../submissions/port.js';
import { unattendedSubmissions } from '../submissions/records.js';
import type { EventType } from '../webhooks/events.js';
import { recordDisputeEvent } from '../webhooks/events.js';
import { loadTemplate } from './records.js';

/**
 * The deadline sweep: what must not wait on Redis having kept its jobs. Every query here reads a partial
 * index holding only the rows it may act on, so a sweep costs what is due, not what is stored.
 */

export interface SweepDeps {
  db: Db;
  submitter: Submitter;
  removals: RemovalDispatcher;
  /** DUE_SOON_HOURS, in milliseconds: the window of organisations that set none (`org settings`). */
  dueSoonMs: number;
  /**
   * How far ahead queued disputes get their job ensured: one sweep interval, so a dispute whose job was
   * lost (a flushed Redis) still goes out on time rather than at the sweep after its moment.
   */
  lookaheadMs: number;
  /**
   * Pending submissions and waiting removal requests younger than this are their request's own business
   * (it enqueues them).
   */
  unattendedAfterMs: number;
}

export interface SweepReport {
  queued: number;
  resumed: number;
  /** Personal-data removals still waiting, whose jobs were made sure of. */
  removals: number;
  dueSoon: number;
  overdue: number;
}

const fromNow = (ms: number) => sql`now() + ${`${ms} milliseconds`}::interval`;

/** The rows each part of the sweep acts on, each matching one partial index of schema/disputes.ts. */
export const sweepConditions = {
  queued: (lookaheadMs: number) =>
    and(stateIn(disputes.state, ['queued']), lte(disputes.submitAt, fromNow(lookaheadMs))) as SQL,
  /**
   * Each organisation's window (`due_soon_hours`, else `defaultMs`, the DUE_SOON_HOURS setting). The
   * per-organisation bound is a lookup by primary key for each row within the widest window of any
   * organisation; that widest window, a plain bound on `due_by`, is what keeps this a range scan of the
   * partial index (read once per sweep from the organisations table, which is small).
   */
  dueSoon: (defaultMs: number) =>
    and(
      stateIn(disputes.state, dueSoonStates),
      isNull(disputes.dueSoonNotifiedAt),
      lte(
        disputes.dueBy,
        sql`now() + greatest((select max(${organisations.dueSoonHours}) from ${organisations}) * interval '1 hour',
          ${`${defaultMs} milliseconds`}::interval)`,
      ),
      lte(
        disputes.dueBy,
        sql`now() + coalesce((select o.due_soon_hours from ${organisations} o where o.id = ${disputes.orgId})
          * interval '1 hour', ${`${defaultMs} milliseconds`}::interval)`,
      ),
      gt(disputes.dueBy, sql`now()`),
    ) as SQL,
  overdue: () =>
    and(
      stateIn(disputes.state, overdueStates),
      isNull(disputes.overdueNotifiedAt),
      lte(disputes.dueBy, sql`now()`),
    ) as SQL,
};

/** Rows per transaction when marking events, so one sweep never holds a long lock on a crowd of rows. */
const batch = 500;

export async function sweepDeadlines(deps: SweepDeps): Promise<SweepReport> {
  const { db, submitter } = deps;
  const queued = await db
    .select({ uid: disputes.uid, submitAt: disputes.submitAt })
    .from(disputes)
    .where(sweepConditions.queued(deps.lookaheadMs))
    .orderBy(asc(disputes.submitAt));
  for (const dispute of queued) {
    if (dispute.submitAt) await submitter.schedule({ uid: dispute.uid, submitAt: dispute.submitAt });
  }
  let resumed = 0;
  for await (const submissionId of unattendedSubmissions(db, deps.unattendedAfterMs)) {
    await submitter.dispatch(submissionId);
    resumed += 1;
  }
  // Few: removal requests are rare, and each waits at most as long as a submission of its person's data.
  const removals = await waitingRemovals(db, deps.unattendedAfterMs);
  for (const requestId of removals) await deps.removals.dispatch(requestId);

  const dueSoon = await notifyOnce(
    db,
    'dispute.due_soon',
    'dueSoonNotifiedAt',
    sweepConditions.dueSoon(deps.dueSoonMs),
  );
  const overdue = await notifyOnce(db, 'dispute.overdue', 'overdueNotifiedAt', sweepConditions.overdue());
  return { queued: queued.length, resumed, removals: removals.length, dueSoon, overdue };
}

/**
 * Marks matching disputes as notified and records their event, in the same transaction, a batch at a
 * time: each dispute gets the event exactly once, however many sweeps run at once.
 */
async function notifyOnce(
  db: Db,
  type: EventType,
  marker: 'dueSoonNotifiedAt' | 'overdueNotifiedAt',
  due: SQL,
): Promise<number> {
  let total = 0;
  for (;;) {
    const count = await db.transaction(async (tx) => {
      const picked = tx
        .select({ uid: disputes.uid })
        .from(disputes)
        .where(due)
        .orderBy(asc(disputes.dueBy))
        .limit(batch)
        .for('update', { skipLocked: true });
      const marked = await tx
        .update(disputes)
        .set({ [marker]: sql`now()` })
        .where(sql`${disputes.uid} in ${picked}`)
        .returning();
      for (const dispute of marked) {
        await recordDisputeEvent(tx, type, dispute, await loadTemplate(tx, dispute, dispute.template));
      }
      return marked.length;
    });
    total += count;
    if (count < batch) return total;
  }
}
