import { eq, sql } from 'drizzle-orm';
import type { Db, Tx } from '../db/client.js';
import { disputes, submissions } from '../db/schema/index.js';
import { newId } from '../ids.js';
import type { Logger } from '../logger.js';
import type { AdapterRegistry } from '../processors/registry.js';
import { type EvidencePackage, ProcessorError } from '../processors/types.js';
import { type DisputeRow, loadTemplate, type TemplateRow } from './dispute-records.js';
import { recordDisputeEvent } from './events.js';

export type SubmissionResult =
  | { status: 'succeeded' }
  | { status: 'failed'; message: string }
  /** Still with the processor; the outcome arrives as a dispute.submitted or submission_failed event. */
  | { status: 'in_flight' };

/**
 * Runs a prepared submission to its end. Submit requests go through this interface so that where the
 * processor call runs (in the request, or in a queue worker) is the caller's choice, not the route's.
 */
export interface Submitter {
  submit(submissionId: string): Promise<SubmissionResult>;
}

export function evidenceOf(dispute: DisputeRow): EvidencePackage {
  return {
    template: dispute.template,
    fields: dispute.fields,
    products: dispute.products,
    correspondence: dispute.correspondence,
    pastPayments: dispute.pastPayments,
    referenceUrl: dispute.referenceUrl,
  };
}

/**
 * Records a submission attempt and moves the dispute to compiling_evidence, inside the caller's
 * transaction. The row exists before the processor is called; its id is the idempotency key.
 */
export async function prepareSubmission(tx: Tx, dispute: DisputeRow, adapter: string): Promise<string> {
  const id = newId('submission');
  await tx.insert(submissions).values({
    id,
    orgId: dispute.orgId,
    livemode: dispute.livemode,
    disputeUid: dispute.uid,
    adapter,
    previousState: dispute.state,
    evidence: evidenceOf(dispute) as unknown as Record<string, unknown>,
  });
  await tx
    .update(disputes)
    .set({ state: 'compiling_evidence', version: sql`${disputes.version} + 1`, updatedAt: new Date() })
    .where(eq(disputes.uid, dispute.uid));
  return id;
}

export interface SubmissionDeps {
  db: Db;
  adapters: AdapterRegistry;
  logger: Logger;
}

/**
 * Sends one prepared submission to the dispute's processor and records the outcome. Safe to call again
 * for the same submission: a finished one returns its recorded outcome, and the processor receives the
 * same idempotency key every time.
 */
export async function runSubmission(deps: SubmissionDeps, submissionId: string): Promise<SubmissionResult> {
  const [found] = await deps.db
    .select({ submission: submissions, dispute: disputes })
    .from(submissions)
    .innerJoin(disputes, eq(disputes.uid, submissions.disputeUid))
    .where(eq(submissions.id, submissionId));
  if (!found) throw new Error(`submission ${submissionId} does not exist`);
  const { submission, dispute } = found;
  if (submission.status === 'succeeded') return { status: 'succeeded' };
  if (submission.status === 'failed') return { status: 'failed', message: submission.failure?.message ?? '' };

  const adapter = deps.adapters.forDispute(dispute);
  const log = deps.logger.child({ submission: submissionId, dispute: dispute.id, adapter: adapter.name });
  try {
    const answer = await adapter.submitEvidence({
      dispute: {
        id: dispute.id,
        charge: dispute.charge,
        accountId: dispute.accountId,
        reason: dispute.reason,
        kind: dispute.kind,
        amount: dispute.amount,
        currency: dispute.currency,
      },
      evidence: submission.evidence as unknown as EvidencePackage,
      idempotencyKey: submission.id,
    });
    await finishSubmission(deps.db, submission, dispute, { reference: answer.reference });
    log.info('submission succeeded');
    return { status: 'succeeded' };
  } catch (error) {
    if (!(error instanceof ProcessorError)) throw error;
    await finishSubmission(deps.db, submission, dispute, { error });
    log.warn(
      { status: error.status, retryable: error.retryable, reason: error.message },
      'submission failed',
    );
    return { status: 'failed', message: error.message };
  }
}

async function finishSubmission(
  db: Db,
  submission: { id: string; previousState: string },
  dispute: DisputeRow,
  outcome: { reference: string | null } | { error: ProcessorError },
): Promise<void> {
  const now = new Date();
  await db.transaction(async (tx) => {
    const succeeded = 'reference' in outcome;
    await tx
      .update(submissions)
      .set(
        succeeded
          ? { status: 'succeeded', processorReference: outcome.reference, completedAt: now }
          : {
              status: 'failed',
              completedAt: now,
              failure: {
                message: outcome.error.message,
                retryable: outcome.error.retryable,
                ...(outcome.error.status === undefined ? {} : { status: outcome.error.status }),
              },
            },
      )
      .where(eq(submissions.id, submission.id));
    const [updated] = await tx
      .update(disputes)
      .set(
        succeeded
          ? {
              state: 'submitted',
              submittedAt: now,
              submittedCount: sql`${disputes.submittedCount} + 1`,
              submitAt: null,
              version: sql`${disputes.version} + 1`,
              updatedAt: now,
            }
          : { state: submission.previousState, version: sql`${disputes.version} + 1`, updatedAt: now },
      )
      .where(eq(disputes.uid, dispute.uid))
      .returning();
    if (!updated) throw new Error(`dispute ${dispute.uid} vanished during submission`);
    const template = await loadTemplate(tx, updated, updated.template);
    await recordDisputeEvent(
      tx,
      succeeded ? 'dispute.submitted' : 'dispute.submission_failed',
      updated,
      template,
    );
  });
}

/** The submitter of this stage: the processor call runs inside the request that asked for it. */
export function createInlineSubmitter(deps: SubmissionDeps): Submitter {
  return { submit: (submissionId) => runSubmission(deps, submissionId) };
}

export type { TemplateRow };
