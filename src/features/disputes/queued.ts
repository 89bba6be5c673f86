import { sql } from 'drizzle-orm';
import { anyOf } from '../../db/schema/columns.js';
import { disputes } from '../../db/schema/index.js';
import { builtOnce } from '../../db/statements.js';
import { submitProblem } from '../../domain/submittable.js';
import { prepareSubmissions } from '../submissions/prepare.js';
import { type Claimed, disputesToSubmit, feeOf } from '../submissions/records.js';
import { recordDisputeEvents } from '../webhooks/events.js';
import { type DisputeDeps, now } from './commands.js';
import { documentProblem } from './document-size.js';
import type { DisputeRow } from './records.js';

export type QueuedOutcome =
  | { status: 'prepared'; claimed: Claimed }
  | { status: 'skipped' }
  | { status: 'refused'; message: string };

/**
 * Queued disputes whose moment came: prepare each to be submitted with what it holds now, edits
 * included, in one transaction for the batch. Run by the submission worker, which then calls the
 * processor with the attempt it holds. A dispute no longer queued, or queued for a later moment, is left
 * alone (its job was stale). One that can no longer be submitted (a template field went missing, the
 * deadline passed, its template grew so that its response document is over the size limits) returns to
 * needs_response with a `dispute.submission_failed` event, and the refusal is the job's failure reason.
 * A failed submission also returns the dispute to needs_response: its moment has passed, and the
 * merchant must act.
 */
/**
 * Locked in the order the mirror locks a page in (tenant, then id in code-unit order, which the "C"
 * collation is for these ASCII ids), so neither can deadlock the other. Built once and named, as every
 * statement of the submission path (docs/architecture.md, "Indexes and statements").
 */
const lockDisputes = builtOnce((db) =>
  disputesToSubmit(db)
    .orderBy(disputes.orgId, disputes.livemode, sql`${disputes.id} collate "C"`)
    .for('update', { of: disputes })
    .prepare('lock_queued_disputes'),
);

export async function prepareQueuedDisputes(
  deps: Pick<DisputeDeps, 'db' | 'adapters' | 'now' | 'documentLimits'> & { leaseMs: number },
  disputeUids: string[],
): Promise<QueuedOutcome[]> {
  const at = now(deps);
  return deps.db.transaction(async (tx) => {
    // With the templates they name and their organisation's fee setting, read in the same statement
    // (those are not locked).
    const rows = await lockDisputes(tx, { uids: disputeUids });
    const templateOf = new Map(rows.map(({ dispute, template }) => [dispute.uid, template]));
    const feeOfDispute = new Map(rows.map(({ dispute, fee }) => [dispute.uid, feeOf(fee)]));
    const due = rows
      .map(({ dispute }) => dispute)
      .filter((dispute) => dispute.state === 'queued' && dispute.submitAt && dispute.submitAt <= at);
    const outcomes = new Map<string, QueuedOutcome>();
    const refused: DisputeRow[] = [];
    const ready: DisputeRow[] = [];
    for (const dispute of due) {
      const template = templateOf.get(dispute.uid) ?? null;
      // The template may have grown since the dispute was queued: refused here, never rendered.
      const problem =
        submitProblem(dispute, template, at) ?? documentProblem(dispute, template, deps.documentLimits, at);
      if (problem) outcomes.set(dispute.uid, { status: 'refused', message: problem.message });
      (problem ? refused : ready).push(dispute);
    }
    if (refused.length > 0) {
      const returned = await tx
        .update(disputes)
        .set({ state: 'needs_response', submitAt: null, updatedAt: new Date() })
        .where(
          anyOf(
            disputes.uid,
            refused.map((dispute) => dispute.uid),
            'uuid',
          ),
        )
        .returning();
      await recordDisputeEvents(
        tx,
        returned.map((dispute) => ({
          type: 'dispute.submission_failed',
          dispute,
          template: templateOf.get(dispute.uid) ?? null,
        })),
      );
    }
    const prepared = await prepareSubmissions(
      tx,
      ready.map((dispute) => ({
        dispute,
        adapter: deps.adapters.forDispute(dispute).name,
        returnTo: 'needs_response',
        claimForMs: deps.leaseMs,
      })),
    );
    for (const { dispute, submission } of prepared) {
      const template = templateOf.get(dispute.uid) ?? null;
      const visaComplianceFee = feeOfDispute.get(dispute.uid) ?? 'refuse';
      outcomes.set(dispute.uid, {
        status: 'prepared',
        claimed: { submission, dispute, template, visaComplianceFee },
      });
    }
    // Two jobs for one dispute in a batch (its old moment and its new one): the first takes it.
    return disputeUids.map((uid) => {
      const outcome = outcomes.get(uid) ?? { status: 'skipped' };
      outcomes.delete(uid);
      return outcome;
    });
  });
}
