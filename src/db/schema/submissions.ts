import { sql } from 'drizzle-orm';
import { index, integer, jsonb, pgTable, text, timestamp, uuid } from 'drizzle-orm/pg-core';
import type { CompellingEvidence } from '../../domain/compelling-evidence.js';
import type { EvidencePackage } from '../../domain/evidence.js';
import { disputes } from './disputes.js';
import { tenancy } from './tenancy.js';

export const submissionStatuses = ['pending', 'succeeded', 'failed'] as const;
export type SubmissionStatus = (typeof submissionStatuses)[number];

/**
 * One row per attempt at sending a dispute's evidence, written before the processor is called. Its id is
 * the idempotency key handed to the adapter, so a retried attempt is recognisable on both sides.
 */
export const submissions = pgTable(
  'submissions',
  {
    id: text().primaryKey(),
    ...tenancy(),
    disputeUid: uuid()
      .notNull()
      .references(() => disputes.uid),
    status: text().$type<SubmissionStatus>().notNull().default('pending'),
    adapter: text().notNull(),
    /** The state the dispute was in before submission: where it returns if the processor refuses. */
    previousState: text().notNull(),
    /** What was submitted, as it stood when the attempt was made. */
    evidence: jsonb().$type<EvidencePackage>().notNull(),
    /** This service's Visa CE 3.0 verdict on the evidence as sent (domain/compelling-evidence.ts); null where it does not apply. */
    compellingEvidence: jsonb().$type<CompellingEvidence | null>(),
    processorReference: text(),
    failure: jsonb().$type<{
      message: string;
      retryable: boolean;
      status?: number;
      /** The start of the processor's answer, credentials cut out (processors/http.ts). */
      excerpt?: string;
    } | null>(),
    /** The lease of the runner calling the processor; an expired lease is free for recovery to take. */
    claimedUntil: timestamp({ withTimezone: true }),
    /**
     * How many tries of the job had failed before the one that recorded a failure. A later run of the same
     * job with more failed tries is an operator's retry of the failed job, which reopens the submission.
     */
    failedAtJobAttempt: integer(),
    /** The submission that an operator's retry of this failed one created. */
    retriedAs: text(),
    /** The response document sent with this attempt (documents.id) and its SHA-256. */
    documentId: text(),
    documentSha256: text(),
    createdAt: timestamp({ withTimezone: true }).notNull().defaultNow(),
    completedAt: timestamp({ withTimezone: true }),
  },
  (table) => [
    index('submissions_dispute_idx').on(table.disputeUid, table.createdAt),
    // Pending attempts are few and are what recovery looks for.
    index('submissions_pending_idx').on(table.createdAt).where(sql`${table.status} = 'pending'`),
  ],
);
