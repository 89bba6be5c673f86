import { and, eq, type SQL, sql } from 'drizzle-orm';
import type { Tx } from '../db/client.js';
import { anyOf } from '../db/schema/columns.js';
import { disputes, documents, events, submissions } from '../db/schema/index.js';
import { concernsPerson, type Person } from '../domain/personal-data.js';
import { containsDeep } from '../domain/redaction.js';
import { type DisputeRow, ownedBy, type Tenant } from './dispute-records.js';

/** Where a person is held in one tenant: the rows a personal data request exports or redacts. */

export interface Held {
  /** Disputes that concern the person (domain/personal-data.ts, concernsPerson). */
  disputes: DisputeRow[];
  /** Submissions of those disputes, and any other whose evidence snapshot mentions the person. */
  submissions: {
    id: string;
    disputeUid: string;
    disputeId: string;
    status: string;
    evidence: Record<string, unknown>;
    createdAt: Date;
  }[];
  /** Documents (their evidence, not the PDF) of those disputes or mentioning the person. */
  documents: {
    id: string;
    disputeUid: string;
    disputeId: string;
    submissionId: string;
    evidence: Record<string, string | number | boolean>;
    createdAt: Date;
  }[];
  /** Events (webhook payloads) of those disputes or mentioning the person. */
  events: { id: string; type: string; data: Record<string, unknown>; createdAt: Date }[];
}

/**
 * What the database says may mention the person (a superset: `Person.searchPatterns`); the exact test is
 * made here, on the rows it returns.
 */
const mayMention = (text: SQL, person: Person) =>
  sql`${text} ~ any(${sql.param(person.searchPatterns)}::text[])`;

/**
 * Everything held about the person in the tenant. With `lock`, the rows are locked for the removal that
 * follows, disputes in the order mirroring and the submission worker lock them (id in "C" collation), so
 * that they wait for each other rather than deadlock.
 */
export async function findHeld(tx: Tx, tenant: Tenant, person: Person, lock: boolean): Promise<Held> {
  const disputeText = sql`concat_ws(' ', ${disputes.customerName}, ${disputes.customerEmail},
    ${disputes.referenceUrl}, ${disputes.fields}::text, ${disputes.products}::text,
    ${disputes.correspondence}::text, ${disputes.pastPayments}::text)`;
  const disputeQuery = tx
    .select()
    .from(disputes)
    .where(and(ownedBy(disputes, tenant), mayMention(disputeText, person)))
    .orderBy(sql`${disputes.id} collate "C"`);
  const found = (await (lock ? disputeQuery.for('update') : disputeQuery)).filter((dispute) =>
    concernsPerson(dispute, person),
  );
  const uids = found.map((dispute) => dispute.uid);
  const concerned = new Set(uids);
  const about = (disputeUid: string | null, value: unknown) =>
    (disputeUid !== null && concerned.has(disputeUid)) || containsDeep(value, person.mentions);

  const submissionQuery = tx
    .select({
      id: submissions.id,
      disputeUid: submissions.disputeUid,
      disputeId: disputes.id,
      status: submissions.status,
      evidence: submissions.evidence,
      createdAt: submissions.createdAt,
    })
    .from(submissions)
    .innerJoin(disputes, eq(disputes.uid, submissions.disputeUid))
    .where(
      and(
        ownedBy(submissions, tenant),
        sql`(${anyOf(submissions.disputeUid, uids, 'uuid')} or ${mayMention(sql`${submissions.evidence}::text`, person)})`,
      ),
    )
    .orderBy(submissions.createdAt, submissions.id);
  const heldSubmissions = await (lock ? submissionQuery.for('update', { of: submissions }) : submissionQuery);

  // Documents are locked by redactDocuments, which the removal calls with their disputes.
  const heldDocuments = await tx
    .select({
      id: documents.id,
      disputeUid: documents.disputeUid,
      disputeId: disputes.id,
      submissionId: documents.submissionId,
      evidence: documents.evidence,
      createdAt: documents.createdAt,
    })
    .from(documents)
    .innerJoin(disputes, eq(disputes.uid, documents.disputeUid))
    .where(
      and(
        ownedBy(documents, tenant),
        sql`(${anyOf(documents.disputeUid, uids, 'uuid')} or ${mayMention(sql`${documents.evidence}::text`, person)})`,
      ),
    )
    .orderBy(documents.createdAt, documents.id);

  const eventQuery = tx
    .select({
      id: events.id,
      type: events.type,
      disputeUid: events.disputeUid,
      data: events.data,
      createdAt: events.createdAt,
    })
    .from(events)
    .where(
      and(
        ownedBy(events, tenant),
        sql`(${anyOf(events.disputeUid, uids, 'uuid')} or ${mayMention(sql`${events.data}::text`, person)})`,
      ),
    )
    .orderBy(events.createdAt, events.id);
  const heldEvents = await (lock ? eventQuery.for('update') : eventQuery);

  return {
    disputes: found,
    submissions: heldSubmissions.filter((row) => about(row.disputeUid, row.evidence)),
    documents: heldDocuments.filter((row) => about(row.disputeUid, row.evidence)),
    events: heldEvents
      .filter((row) => about(row.disputeUid, row.data))
      .map(({ disputeUid: _uid, ...event }) => event),
  };
}
