import { and, eq, isNull, lt, or, sql } from 'drizzle-orm';
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
 * How long one runner owns an attempt: longer than any processor call may take (adapters time out well
 * within it). A runner that dies holding it leaves the attempt to the next recovery once it expires.
 */
export const submissionLeaseMs = 5 * 60_000;

/**
 * Sends one prepared submission to the dispute's processor and records the outcome. Safe to call again
 * for the same submission: a finished one returns its recorded outcome, one that another runner holds
 * answers `in_flight`, and the processor always receives the same idempotency key.
 */
export async function runSubmission(deps: SubmissionDeps, submissionId: string): Promise<SubmissionResult> {
  const [found] = await deps.db
    .select({ submission: submissions, dispute: disputes })
    .from(submissions)
    .innerJoin(disputes, eq(disputes.uid, submissions.disputeUid))
    .where(eq(submissions.id, submissionId));
  if (!found) throw new Error(`submission ${submissionId} does not exist`);
  const { submission, dispute } = found;
  if (submission.status !== 'pending') return recordedOutcome(submission);
  if (!(await claim(deps.db, submission.id))) return { status: 'in_flight' };

  const adapter = deps.adapters.forDispute(dispute);
  const log = deps.logger.child({ submission: submissionId, dispute: dispute.id, adapter: adapter.name });
  let outcome: { reference: string | null } | { error: ProcessorError };
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
    outcome = { reference: answer.reference };
  } catch (thrown) {
    // Anything an adapter throws ends the attempt on the record: a dispute is never left compiling
    // evidence behind a submission nobody will finish.
    if (!(thrown instanceof ProcessorError)) log.error({ err: describeError(thrown) }, 'adapter threw');
    outcome = {
      error:
        thrown instanceof ProcessorError
          ? thrown
          : new ProcessorError(adapter.name, 'The call to the processor failed unexpectedly.', {
              retryable: true,
            }),
    };
  }
  // Outside the try: a database error here is ours, not the processor's. It propagates, and the attempt
  // stays pending for recovery to finish (the processor deduplicates on the idempotency key).
  if (!(await finishSubmission(deps.db, submission, dispute, outcome))) {
    const [stored] = await deps.db.select().from(submissions).where(eq(submissions.id, submission.id));
    return stored ? recordedOutcome(stored) : { status: 'in_flight' };
  }
  if ('reference' in outcome) {
    log.info('submission succeeded');
    return { status: 'succeeded' };
  }
  const { error } = outcome;
  log.warn({ status: error.status, retryable: error.retryable, reason: error.message }, 'submission failed');
  return { status: 'failed', message: error.message };
}

function recordedOutcome(submission: typeof submissions.$inferSelect): SubmissionResult {
  if (submission.status === 'succeeded') return { status: 'succeeded' };
  if (submission.status === 'failed') return { status: 'failed', message: submission.failure?.message ?? '' };
  return { status: 'in_flight' };
}

/** Takes the attempt's lease if nobody holds it: only one runner calls the processor at a time. */
async function claim(db: Db, submissionId: string): Promise<boolean> {
  const [claimed] = await db
    .update(submissions)
    .set({ claimedUntil: sql`now() + ${`${submissionLeaseMs} milliseconds`}::interval` })
    .where(
      and(
        eq(submissions.id, submissionId),
        eq(submissions.status, 'pending'),
        or(isNull(submissions.claimedUntil), lt(submissions.claimedUntil, sql`now()`)),
      ),
    )
    .returning({ id: submissions.id });
  return claimed !== undefined;
}

/**
 * Runs every pending submission nobody holds, oldest first: those whose process stopped between recording
 * the attempt and recording its outcome. Safe to run at any time and in any process: a live runner's lease
 * keeps its attempt out, and the processor receives the same idempotency key as before.
 */
export async function resumePendingSubmissions(deps: SubmissionDeps): Promise<number> {
  const pending = await deps.db
    .select({ id: submissions.id })
    .from(submissions)
    .where(
      and(
        eq(submissions.status, 'pending'),
        or(isNull(submissions.claimedUntil), lt(submissions.claimedUntil, sql`now()`)),
      ),
    )
    .orderBy(submissions.createdAt);
  let resumed = 0;
  for (const { id } of pending) {
    if ((await runSubmission(deps, id)).status !== 'in_flight') resumed += 1;
  }
  return resumed;
}

/** Records the outcome if the attempt is still pending; false when another runner recorded it first. */
async function finishSubmission(
  db: Db,
  submission: { id: string; previousState: string },
  dispute: DisputeRow,
  outcome: { reference: string | null } | { error: ProcessorError },
): Promise<boolean> {
  const now = new Date();
  return db.transaction(async (tx) => {
    const succeeded = 'reference' in outcome;
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
    if (!finished) return false;
    const [updated] = await tx
      .update(disputes)
      .set(
        succeeded
          ? {
              state: 'submitted',
              submittedAt: now,
              // Saturating: a count at the column's limit must not turn a success into an error.
              submittedCount: sql`least(${disputes.submittedCount}, 2147483646) + 1`,
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
    return true;
  });
}

/** The submitter of this stage: the processor call runs inside the request that asked for it. */
export function createInlineSubmitter(deps: SubmissionDeps): Submitter {
  return { submit: (submissionId) => runSubmission(deps, submissionId) };
}

export type { TemplateRow };
