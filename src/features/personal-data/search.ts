import { and, eq, type SQL, sql } from 'drizzle-orm';
import type { Tx } from '../../db/client.js';
import { anyOf } from '../../db/schema/columns.js';
import { disputes, documents, events, submissions } from '../../db/schema/index.js';
import type { EvidencePackage } from '../../domain/evidence.js';
import type { EvidenceDocumentInput } from '../../domain/evidence-document.js';
import {
  concernsPerson,
  documentConcernsPerson,
  objectConcernsPerson,
  type Person,
} from '../../domain/personal-data.js';
import { containsDeep } from '../../domain/redaction.js';
import type { DisputeRow } from '../disputes/records.js';
import { ownedBy, type Tenant } from '../tenancy.js';

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
    evidence: EvidencePackage;
    createdAt: Date;
  }[];
  /** Documents (their evidence, not the PDF) of those disputes, or rendered from input about the person. */
  documents: {
    id: string;
    disputeUid: string;
    disputeId: string;
    submissionId: string;
    evidence: Record<string, string | number | boolean>;
    createdAt: Date;
  }[];
  /** Events (webhook payloads) of those disputes, or about the person (objectConcernsPerson). */
  events: {
    id: string;
    type: string;
    disputeUid: string | null;
    data: Record<string, unknown>;
    createdAt: Date;
  }[];
}

/**
 * What the database says may mention the person (a superset: `Person.searchPatterns`); the exact test is
 * made here, on the rows it returns.
 */
export const mayMention = (text: SQL, person: Person) =>
  sql`${text} ~ any(${sql.param(person.searchPatterns)}::text[])`;

/**
 * Everything held about the person in the tenant. With `lock`, the disputes that may concern them are
 * locked for the removal that follows, in the order mirroring and queued submissions lock them (id in
 * "C" collation), so that they wait for each other rather than deadlock; while they are locked no
 * submission of them can be prepared. Their events are locked too. Submissions are read, never locked:
 * a runner recording an outcome holds its submission's row and then waits for the dispute's, so waiting
 * here for a submission row could close a cycle. Documents are locked by rerenderDocuments.
 */
export async function findHeld(tx: Tx, tenant: Tenant, person: Person, lock: boolean): Promise<Held> {
  const disputeText = sql`concat_ws(' ', ${disputes.customerName}, ${disputes.customerEmail},
    ${disputes.referenceUrl}, ${disputes.fields}::text, ${disputes.products}::text,
    ${disputes.correspondence}::text, ${disputes.pastPayments}::text, ${disputes.evidenceFiles}::text)`;
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
  const ofConcerned = (disputeUid: string | null) => disputeUid !== null && concerned.has(disputeUid);

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
  const heldSubmissions = await submissionQuery;

  const heldDocuments = await tx
    .select({
      id: documents.id,
      disputeUid: documents.disputeUid,
      disputeId: disputes.id,
      submissionId: documents.submissionId,
      input: documents.input,
      evidence: documents.evidence,
      createdAt: documents.createdAt,
    })
    .from(documents)
    .innerJoin(disputes, eq(disputes.uid, documents.disputeUid))
    .where(
      and(
        ownedBy(documents, tenant),
        sql`(${anyOf(documents.disputeUid, uids, 'uuid')} or ${mayMention(sql`${documents.input}::text`, person)})`,
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
    submissions: heldSubmissions.filter(
      (row) => ofConcerned(row.disputeUid) || containsDeep(row.evidence, person.mentions),
    ),
    documents: heldDocuments
      .filter(
        (row) =>
          ofConcerned(row.disputeUid) ||
          // Stored as JSON, its moments as text: the test reads none of them.
          documentConcernsPerson(row.input as unknown as EvidenceDocumentInput, person),
      )
      .map(({ input: _input, ...document }) => document),
    events: heldEvents.filter((row) => ofConcerned(row.disputeUid) || objectConcernsPerson(row.data, person)),
  };
}
