import { and, asc, eq } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import { disputes, submissions } from '../../db/schema/index.js';
import type { SubmissionStatus } from '../../db/schema/submissions.js';
import { ownedBy, type Tenant } from '../tenancy.js';
import { failureReason } from './records.js';

/**
 * A dispute's submission attempts, for on-call (`dispute show`, `dispute resubmit`): what was tried, how
 * it ended, and which attempt's job ran it. An operator's retry of a failed job makes a new attempt that
 * its job runs too (features/submissions/reopen.ts), so the job of an attempt is that of the first
 * attempt in its chain of retries.
 */

export interface SubmissionAttempt {
  id: string;
  status: SubmissionStatus;
  adapter: string;
  createdAt: Date;
  completedAt: Date | null;
  /**
   * Why a failed attempt failed, as its job's failure reason says it: who answered, with what status,
   * permanent or transient, and the answer; with the answer's HTTP status when there was one.
   */
  failure: { reason: string; status: number | null } | null;
  /** The attempt an operator's retry of this failed one made. */
  retriedAs: string | null;
  /** The first attempt of its chain of retries: the one whose `submit` job ran it. */
  firstAttempt: string;
}

/** Oldest first. */
export async function listSubmissionAttempts(db: Db, disputeUid: string): Promise<SubmissionAttempt[]> {
  const rows = await db
    .select()
    .from(submissions)
    .where(eq(submissions.disputeUid, disputeUid))
    .orderBy(asc(submissions.createdAt), asc(submissions.id));
  const retriedFrom = new Map(rows.flatMap((row) => (row.retriedAs ? [[row.retriedAs, row.id]] : [])));
  const firstOf = (id: string): string => {
    const earlier = retriedFrom.get(id);
    return earlier === undefined ? id : firstOf(earlier);
  };
  return rows.map((row) => ({
    id: row.id,
    status: row.status,
    adapter: row.adapter,
    createdAt: row.createdAt,
    completedAt: row.completedAt,
    failure: row.failure
      ? { reason: failureReason(row.adapter, row.failure), status: row.failure.status ?? null }
      : null,
    retriedAs: row.retriedAs,
    firstAttempt: firstOf(row.id),
  }));
}

/** The id of the dispute an attempt (`sub_…`, as a submission job's payload names it) belongs to. */
export async function disputeOfSubmission(db: Db, tenant: Tenant, submissionId: string): Promise<string> {
  const [found] = await db
    .select({ id: disputes.id })
    .from(submissions)
    .innerJoin(disputes, eq(disputes.uid, submissions.disputeUid))
    .where(and(ownedBy(submissions, tenant), eq(submissions.id, submissionId)));
  if (!found) {
    throw new Error(
      `no submission ${submissionId} in ${tenant.orgId} (${tenant.livemode ? 'live' : 'test'})`,
    );
  }
  return found.id;
}
