import { eq } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import { disputes, submissions } from '../../db/schema/index.js';
import { Failure } from '../../domain/failure.js';
import { submitProblem } from '../../domain/submittable.js';
import type { AdapterRegistry } from '../../processors/registry.js';
import { loadTemplate } from '../disputes/records.js';
import { prepareSubmission } from './prepare.js';
import type { SubmissionRow } from './records.js';

/**
 * An operator retried a failed submission's job. A refusal: a new attempt with the dispute's current
 * evidence (and so a new idempotency key), linked from the failed one so every later run of the job
 * follows it. A failure the processor may not have seen the end of: the same attempt again.
 */
export async function reopen(
  deps: { db: Db; adapters: AdapterRegistry },
  failed: SubmissionRow,
): Promise<string> {
  return deps.db.transaction(async (tx) => {
    const [dispute] = await tx
      .select()
      .from(disputes)
      .where(eq(disputes.uid, failed.disputeUid))
      .for('update');
    const [current] = await tx.select().from(submissions).where(eq(submissions.id, failed.id)).for('update');
    if (!dispute || !current) throw new Error(`submission ${failed.id} lost its dispute`);
    if (current.retriedAs !== null) return current.retriedAs;
    if (dispute.state !== failed.previousState) {
      // Something happened to the dispute since (accepted, closed, submitted again): not ours to override.
      throw new PermanentSubmissionError(
        `Not retrying: dispute '${dispute.id}' is now ${dispute.state}, not ${failed.previousState} as when this submission failed.`,
      );
    }
    if (current.failure?.retryable) {
      // The processor never answered, or answered 5xx, until the retries ran out: it may hold what was
      // sent. The same attempt goes again, its document under its idempotency key, so a processor that
      // took it answers as it did rather than receiving it twice.
      await tx
        .update(submissions)
        .set({
          status: 'pending',
          failure: null,
          failedAtJobAttempt: null,
          completedAt: null,
          claimedUntil: null,
        })
        .where(eq(submissions.id, failed.id));
      await tx
        .update(disputes)
        .set({ state: 'compiling_evidence', updatedAt: new Date() })
        .where(eq(disputes.uid, dispute.uid));
      return failed.id;
    }
    // The same checks as a submit request: days may have passed, and the template or deadline changed.
    const problem = submitProblem(dispute, await loadTemplate(tx, dispute, dispute.template), new Date());
    if (problem) throw new PermanentSubmissionError(`Not retrying: ${problem.message}`);
    const { submissionId } = await prepareSubmission(tx, dispute, deps.adapters.forDispute(dispute).name);
    await tx.update(submissions).set({ retriedAs: submissionId }).where(eq(submissions.id, failed.id));
    return submissionId;
  });
}

/** A submission that can no longer be made as asked; retrying the job will not change that. */
class PermanentSubmissionError extends Failure {
  override readonly name = 'PermanentSubmissionError';
  readonly permanent = true;
}
