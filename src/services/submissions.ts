import { and, eq, sql } from 'drizzle-orm';
import type { Db, Tx } from '../db/client.js';
import { disputes, submissions } from '../db/schema/index.js';
import { newId } from '../ids.js';
import { describeError, type Logger } from '../logger.js';
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
    .set({ state: 'compiling_evidence', updatedAt: new Date() })
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
  } catch (thrown) {
    // Anything an adapter throws ends the attempt on the record: a dispute is never left compiling
    // evidence behind a submission nobody will finish.
    const error =
      thrown instanceof ProcessorError
        ? thrown
        : new ProcessorError(adapter.name, 'The call to the processor failed unexpectedly.', {
            retryable: true,
          });
    if (!(thrown instanceof ProcessorError)) log.error({ err: describeError(thrown) }, 'adapter threw');
    await finishSubmission(deps.db, submission, dispute, { error });
    log.warn(
      { status: error.status, retryable: error.retryable, reason: error.message },
      'submission failed',
    );
    return { status: 'failed', message: error.message };
  }
}

/**
 * Runs every submission left pending, oldest first: those whose process stopped between recording the
 * attempt and recording its outcome. Safe to run at any time: the processor receives the same idempotency
 * key as before, and a submission finished meanwhile is left as it is.
 */
export async function resumePendingSubmissions(deps: SubmissionDeps): Promise<number> {
  const pending = await deps.db
    .select({ id: submissions.id })
    .from(submissions)
    .where(eq(submissions.status, 'pending'))
    .orderBy(submissions.createdAt);
  for (const { id } of pending) await runSubmission(deps, id);
  return pending.length;
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
    // Only a pending submission is finished, once: a second run of the same attempt records nothing.
    const [finished] = await tx
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
      .where(and(eq(submissions.id, submission.id), eq(submissions.status, 'pending')))
      .returning({ id: submissions.id });
    if (!finished) return;
    const [updated] = await tx
      .update(disputes)
      .set(
        succeeded
          ? {
              state: 'submitted',
              submittedAt: now,
              submittedCount: sql`${disputes.submittedCount} + 1`,
              submitAt: null,
              updatedAt: now,
            }
          : { state: submission.previousState, updatedAt: now },
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
