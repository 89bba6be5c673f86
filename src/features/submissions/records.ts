import { and, eq, gt, isNull, lt, or, sql } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import { anyOf, stateIn } from '../../db/schema/columns.js';
import { disputes, organisations, submissions, templates } from '../../db/schema/index.js';
import { builtOnce, statement } from '../../db/statements.js';
import { sendableStates } from '../../domain/states.js';
import { type AttachedFile, ProcessorError, type ResponsePackage } from '../../processors/types.js';
import { type DisputeRow, type TemplateRow, templateOfDispute } from '../disputes/records.js';
import { responseFilesOf } from '../responses/files.js';
import { type DisputeEvent, recordDisputeEvents } from '../webhooks/events.js';
import type { QueuedDispute, SubmissionResult, SubmitOutcome } from './port.js';

/**
 * The submission rows as the runner and the submit requests read and write them: claims and their leases,
 * outcomes with their disputes and events, and the reads of what was recorded.
 */

/** Where the job running a submission stands in its retry budget. */
export interface JobAttempt {
  /** How many earlier tries of this attempt's job failed (0 on the first): it grows each time the job fails. */
  failedTries: number;
  /** No retry follows this run: a transient failure is recorded as the outcome. */
  final: boolean;
}

export type SubmissionRow = typeof submissions.$inferSelect;

/** An attempt this runner holds the lease of, with its dispute and the template it names. */
export interface Claimed {
  submission: SubmissionRow;
  dispute: DisputeRow;
  template: TemplateRow | null;
  /**
   * The organisation's word on Visa compliance fees (`org settings --visa-compliance-fee`), read with the
   * claim: no statement of its own per submission.
   */
  visaComplianceFee: VisaComplianceFee;
}

export type VisaComplianceFee = 'accept' | 'refuse';

/** The setting as stored: anything but `accept` refuses. */
export const feeOf = (stored: string | null | undefined): VisaComplianceFee =>
  stored === 'accept' ? 'accept' : 'refuse';

export type Outcome = { reference: string | null } | { error: ProcessorError };

export interface Finish {
  claimed: Claimed;
  outcome: Outcome;
  attempt: JobAttempt;
  /** What was sent: a success announces it with `dispute.response.generated`. */
  response?: ResponsePackage;
  /** The evidence files that went with it, listed in the same event. */
  files?: readonly AttachedFile[];
}

/**
 * Takes the leases of the attempts nobody holds, with their disputes; the others answer undefined, and
 * so does a second call for the same attempt in one batch (one runner per attempt). One transaction, so
 * a batch that fails leaves no lease behind for its item-by-item retry to trip over.
 */
export async function claimMany(db: Db, ids: string[], leaseMs: number): Promise<(Claimed | undefined)[]> {
  const { claimed, found } = await db.transaction(async (tx) => {
    const claimed = await claimSubmissions(tx, { ids, lease: `${leaseMs} milliseconds` });
    const uids = claimed.map((submission) => submission.disputeUid);
    const found = uids.length === 0 ? [] : await claimedDisputes(tx, { uids });
    return { claimed, found };
  });
  const byUid = new Map(found.map((row) => [row.dispute.uid, row]));
  const byId = new Map(claimed.map((submission) => [submission.id, submission]));
  return ids.map((id) => {
    const submission = byId.get(id);
    byId.delete(id);
    const row = submission && byUid.get(submission.disputeUid);
    if (!submission || !row) return undefined;
    const { dispute, template, fee } = row;
    return { submission, dispute, template, visaComplianceFee: feeOf(fee) };
  });
}

/** Built once (db/statements.ts). */
const claimSubmissions = builtOnce((db) =>
  db
    .update(submissions)
    .set({ claimedUntil: sql`now() + ${sql.placeholder('lease')}::interval` })
    .where(
      and(
        anyOf(submissions.id, sql.placeholder('ids'), 'text'),
        eq(submissions.status, 'pending'),
        or(isNull(submissions.claimedUntil), lt(submissions.claimedUntil, sql`now()`)),
      ),
    )
    .returning()
    .prepare('claim_submissions'),
);

/**
 * Disputes by uid (the `uids` placeholder) with what their submission needs: the template and the
 * organisation's Visa compliance fee setting, read in the same statement.
 */
export function disputesToSubmit(db: Db) {
  return db
    .select({ dispute: disputes, template: templates, fee: organisations.visaComplianceFee })
    .from(disputes)
    .innerJoin(organisations, eq(organisations.id, disputes.orgId))
    .leftJoin(templates, templateOfDispute)
    .where(anyOf(disputes.uid, sql.placeholder('uids'), 'uuid'));
}

const claimedDisputes = builtOnce((db) => disputesToSubmit(db).prepare('claimed_disputes'));

/** A submission with its dispute, following an operator's retries to the attempt that replaced it. */
export async function loadSubmission(db: Db, submissionId: string) {
  let id = submissionId;
  for (;;) {
    const [found] = await db
      .select({ submission: submissions, dispute: disputes })
      .from(submissions)
      .innerJoin(disputes, eq(disputes.uid, submissions.disputeUid))
      .where(eq(submissions.id, id));
    if (!found) throw new Error(`submission ${id} does not exist`);
    if (found.submission.retriedAs === null) return found;
    id = found.submission.retriedAs;
  }
}

/** The outcome a submit request reports: recorded, or still under way. */
export async function submitOutcome(db: Db, submissionId: string): Promise<SubmitOutcome> {
  return recordedOutcome((await loadSubmission(db, submissionId)).submission);
}

/** A failed attempt's recorded failure as its job's failure reason says it (ProcessorError.reason). */
export function failureReason(adapter: string, failure: NonNullable<SubmissionRow['failure']>): string {
  const { message, retryable, status, excerpt } = failure;
  return new ProcessorError(adapter, message, {
    retryable,
    ...(status === undefined ? {} : { status }),
    ...(excerpt === undefined ? {} : { excerpt }),
  }).reason;
}

export function recordedOutcome(submission: SubmissionRow): SubmitOutcome & SubmissionResult {
  if (submission.status === 'succeeded') return { status: 'succeeded' };
  if (submission.status === 'failed') {
    const failure = submission.failure ?? { message: '', retryable: false };
    return { status: 'failed', message: failure.message, reason: failureReason(submission.adapter, failure) };
  }
  return { status: 'in_flight' };
}

export const leaseEnd = (leaseMs: number) => sql`now() + ${`${leaseMs} milliseconds`}::interval`;

/**
 * The queue slot of a dispute that a failed submission returned to `queued` (a submit-now of a queued
 * dispute, refused): it needs its delayed job back, since submitting it now removed it.
 */
export async function queuedAfterFailure(db: Db, submissionId: string): Promise<QueuedDispute | null> {
  const { dispute } = await loadSubmission(db, submissionId);
  return dispute.state === 'queued' && dispute.submitAt
    ? { uid: dispute.uid, submitAt: dispute.submitAt }
    : null;
}

/**
 * Submissions left pending with nobody holding them (their job was lost with Redis, or never enqueued
 * because the process stopped after the commit), oldest first, a page at a time: all of them, however
 * many wait out a processor outage. The sweep enqueues each again; job ids deduplicate.
 */
export async function* unattendedSubmissions(db: Db, olderThanMs: number): AsyncGenerator<string> {
  let after = '';
  for (;;) {
    const rows = await db
      .select({ id: submissions.id })
      .from(submissions)
      .where(
        and(
          eq(submissions.status, 'pending'),
          or(isNull(submissions.claimedUntil), lt(submissions.claimedUntil, sql`now()`)),
          lt(submissions.createdAt, sql`now() - ${`${olderThanMs} milliseconds`}::interval`),
          gt(submissions.id, after),
        ),
      )
      .orderBy(submissions.id)
      .limit(1000);
    for (const row of rows) yield row.id;
    const last = rows.at(-1);
    if (!last || rows.length < 1000) return;
    after = last.id;
  }
}

/**
 * Records outcomes of attempts still pending, in one transaction: the attempts, their disputes (submitted,
 * or back where they were) and the events. Answers false for an attempt another runner recorded first.
 */
export async function finishMany(db: Db, items: Finish[]): Promise<boolean[]> {
  const now = new Date();
  return db.transaction(async (tx) => {
    const recorded = await recordOutcomes.run(tx, {
      ids: items.map(({ claimed }) => claimed.submission.id),
      statuses: items.map(({ outcome }) => ('reference' in outcome ? 'succeeded' : 'failed')),
      references: items.map(({ outcome }) => ('reference' in outcome ? outcome.reference : null)),
      failures: items.map(({ outcome }) =>
        'error' in outcome ? JSON.stringify(failureOf(outcome.error)) : null,
      ),
      attempts: items.map(({ outcome, attempt }) => ('error' in outcome ? attempt.failedTries : null)),
      completedAt: now.toISOString(),
    });
    const finished = new Set(recorded.map((row) => row.id as string));
    const done = items.filter(({ claimed }) => finished.has(claimed.submission.id));
    const succeeded = done.filter(({ outcome }) => 'reference' in outcome);
    const templateOf = new Map(done.map(({ claimed }) => [claimed.dispute.uid, claimed.template]));
    const updated: DisputeEvent[] = [];
    const record = (type: DisputeEvent['type'], rows: DisputeRow[]) =>
      updated.push(
        ...rows.map((dispute) => ({ type, dispute, template: templateOf.get(dispute.uid) ?? null })),
      );
    if (succeeded.length > 0) {
      const rows = await submittedDisputes(tx, { uids: uidsOf(succeeded), now: now.toISOString() });
      record('dispute.submitted', rows);
      // Every success announces the package it sent (for standalone integrations, and processors whose
      // portal takes the upload; docs/api.md, "Webhooks"), also for a dispute the processor decided meanwhile,
      // which keeps its state and gets no dispute.submitted.
      const current = new Map(rows.map((dispute) => [dispute.uid, dispute]));
      const decided = succeeded.filter(({ claimed }) => !current.has(claimed.dispute.uid));
      if (decided.length > 0) {
        const uids = decided.map(({ claimed }) => claimed.dispute.uid);
        // Under a share lock, as the update above holds one on the disputes it changed: a personal-data
        // removal holding the dispute then sees this attempt still pending, and waits for it.
        const decidedRows = await tx
          .select()
          .from(disputes)
          .where(anyOf(disputes.uid, uids, 'uuid'))
          .orderBy(disputes.orgId, disputes.livemode, sql`${disputes.id} collate "C"`)
          .for('share');
        for (const dispute of decidedRows) current.set(dispute.uid, dispute);
      }
      for (const { claimed, response, files } of succeeded) {
        const dispute = current.get(claimed.dispute.uid);
        if (!dispute || !response) continue;
        updated.push({
          type: 'dispute.response.generated',
          dispute,
          template: templateOf.get(dispute.uid) ?? null,
          extra: {
            evidence: response.evidence,
            response_document: response.document.id,
            response_files: responseFilesOf(files ?? []),
          },
        });
      }
    }
    // Failures go back to the state each came from; there are few distinct ones.
    const failedBack = new Map<string, Finish[]>();
    for (const item of done.filter(({ outcome }) => 'error' in outcome)) {
      const state = item.claimed.submission.previousState;
      failedBack.set(state, [...(failedBack.get(state) ?? []), item]);
    }
    for (const [state, group] of failedBack) {
      const rows = await failedBackDisputes(tx, { uids: uidsOf(group), state, now: now.toISOString() });
      record('dispute.submission_failed', rows);
    }
    await recordDisputeEvents(tx, updated);
    return items.map(({ claimed }) => finished.has(claimed.submission.id));
  });
}

/** The attempts' outcomes, still pending ones only; one statement of constant text for any batch. */
const recordOutcomes = statement<{
  ids: string[];
  statuses: string[];
  references: (string | null)[];
  failures: (string | null)[];
  attempts: (number | null)[];
  completedAt: string;
}>(sql`
  update ${submissions} as s set
    status = v.status,
    processor_reference = v.reference,
    failure = v.failure::jsonb,
    failed_at_job_attempt = v.attempt,
    completed_at = ${sql.placeholder('completedAt')}::timestamptz
  from unnest(
    ${sql.placeholder('ids')}::text[],
    ${sql.placeholder('statuses')}::text[],
    ${sql.placeholder('references')}::text[],
    ${sql.placeholder('failures')}::text[],
    ${sql.placeholder('attempts')}::int[]
  ) as v(id, status, reference, failure, attempt)
  where s.id = v.id and s.status = 'pending'
  returning s.id`);

/**
 * The disputes of these attempts (`uids`) that an outcome may still change: a success is recorded on one
 * waiting on it or already under review (keeping the processor's state), a failure only on one still
 * waiting. One the processor has decided since keeps its state and gets no event from us.
 */
function stillOpenTo(states: readonly string[]) {
  return and(anyOf(disputes.uid, sql.placeholder('uids'), 'uuid'), stateIn(disputes.state, states));
}

const uidsOf = (items: readonly Finish[]) => items.map(({ claimed }) => claimed.dispute.uid);

/** Built once (db/statements.ts), as the disputes' fifty columns would be built again for every batch. */
const submittedDisputes = builtOnce((db) =>
  db
    .update(disputes)
    .set({
      state: sql`case when ${disputes.state} = 'compiling_evidence' then 'submitted' else ${disputes.state} end`,
      submittedAt: sql`${sql.placeholder('now')}::timestamptz`,
      // Saturating: a count at the column's limit must not turn a success into an error.
      submittedCount: sql`least(${disputes.submittedCount}, 2147483646) + 1`,
      submitAt: null,
      updatedAt: sql`${sql.placeholder('now')}::timestamptz`,
    })
    .where(stillOpenTo(sendableStates))
    .returning()
    .prepare('submitted_disputes'),
);

const failedBackDisputes = builtOnce((db) =>
  db
    .update(disputes)
    .set({
      state: sql`${sql.placeholder('state')}::text`,
      updatedAt: sql`${sql.placeholder('now')}::timestamptz`,
    })
    .where(stillOpenTo(['compiling_evidence']))
    .returning()
    .prepare('failed_back_disputes'),
);

function failureOf(error: ProcessorError): NonNullable<SubmissionRow['failure']> {
  return {
    message: error.message,
    retryable: error.retryable,
    ...(error.status === undefined ? {} : { status: error.status }),
    ...(error.excerpt === undefined ? {} : { excerpt: error.excerpt }),
  };
}
