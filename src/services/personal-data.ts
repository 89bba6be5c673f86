import { and, eq, isNotNull } from 'drizzle-orm';
import type { Db, Tx } from '../db/client.js';
import { disputes, events, personalDataRequests, submissions } from '../db/schema/index.js';
import { formatTimestamp, toDisputeObject } from '../domain/disputes.js';
import {
  type Person,
  personOf,
  type RemoveInput,
  type RetrieveInput,
  redactDispute,
  redactDisputeObject,
  redactEvidence,
} from '../domain/personal-data.js';
import { sameJson } from '../domain/redaction.js';
import { newId } from '../ids.js';
import type { SecretBox } from '../secrets.js';
import { loadTemplates, ownedBy, type Tenant } from './dispute-records.js';
import { rerenderDocuments } from './documents.js';
import type { PersonalDataRequestRow } from './personal-data-requests.js';
import { findHeld } from './personal-data-search.js';

/**
 * Personal data requests, done within the request: the data held about one person is small. A retrieve
 * seals an export of everything held about the person in the tenant (organisation and mode) for the
 * operator to send on (`npm run cli -- privacy export`); a remove redacts them everywhere in the tenant in
 * one transaction. Either is recorded in personal_data_requests with the person only as keyed hashes.
 * Nothing is sent from here, and removing emits no event: redaction is not a change of the dispute a
 * client acts on. Cached dispute objects cannot go stale: each redacted dispute row's `version` is bumped
 * by the database (drizzle/0001), and the DisputeObjectCache is keyed by it.
 */

export interface PersonalDataDeps {
  db: Db;
  /** Seals exports and notification addresses; derives the key of the person's hashes from APP_SECRET. */
  secrets: SecretBox;
  now?: () => Date;
}

/** The purpose the person's keyed hashes are made for (SecretBox.keyedHash). */
const hashPurpose = 'personal-data';

function personHashes(secrets: SecretBox, person: Person) {
  return {
    emailHash: secrets.keyedHash(hashPurpose, `email:${person.email}`),
    nameHash: secrets.keyedHash(hashPurpose, `name:${person.name}`),
  };
}

export async function retrievePersonalData(
  deps: PersonalDataDeps,
  tenant: Tenant,
  input: RetrieveInput,
): Promise<PersonalDataRequestRow> {
  const person = personOf(input);
  const id = newId('personalDataRequest');
  const createdAt = now(deps);
  // One snapshot: the export is what was held at one moment, whatever writes meanwhile.
  return deps.db.transaction(
    async (tx) => {
      const held = await findHeld(tx, tenant, person, false);
      const templates = await loadTemplates(tx, held.disputes);
      const exported = {
        object: 'personal_data_export',
        request: id,
        livemode: tenant.livemode,
        created: formatTimestamp(createdAt),
        notification_email: input.notification_email,
        disputes: held.disputes.map((dispute) =>
          toDisputeObject(dispute, templates.get(dispute.uid) ?? null),
        ),
        submissions: held.submissions.map((submission) => ({
          id: submission.id,
          dispute: submission.disputeId,
          status: submission.status,
          created: formatTimestamp(submission.createdAt),
          evidence: submission.evidence,
        })),
        documents: held.documents.map((document) => ({
          id: document.id,
          dispute: document.disputeId,
          submission: document.submissionId,
          created: formatTimestamp(document.createdAt),
          evidence: document.evidence,
        })),
        events: held.events.map((event) => ({
          id: event.id,
          type: event.type,
          created: formatTimestamp(event.createdAt),
          data: event.data,
        })),
      };
      return record(tx, {
        id,
        orgId: tenant.orgId,
        livemode: tenant.livemode,
        kind: 'retrieve',
        ...personHashes(deps.secrets, person),
        notificationEmail: deps.secrets.seal(input.notification_email),
        export: deps.secrets.seal(JSON.stringify(exported)),
        summary: {
          disputes: held.disputes.length,
          submissions: held.submissions.length,
          documents: held.documents.length,
          events: held.events.length,
        },
        createdAt,
        completedAt: now(deps),
      });
    },
    { isolationLevel: 'repeatable read' },
  );
}

/**
 * Removes the person from the tenant's data in one transaction: disputes about them lose their customer
 * attributes, and every mention in evidence, submission snapshots, document evidence and event payloads
 * becomes `[redacted]` (domain/personal-data.ts says exactly how). Amounts, ids, states and timestamps
 * stay. Exports of earlier retrieve requests for the same email are deleted.
 */
export async function removePersonalData(
  deps: PersonalDataDeps,
  tenant: Tenant,
  input: RemoveInput,
): Promise<PersonalDataRequestRow> {
  const person = personOf(input);
  const hashes = personHashes(deps.secrets, person);
  const createdAt = now(deps);
  return deps.db.transaction(async (tx) => {
    const held = await findHeld(tx, tenant, person, true);
    const concerned = new Set(held.disputes.map((dispute) => dispute.uid));

    let disputesRedacted = 0;
    for (const dispute of held.disputes) {
      const redacted = redactDispute(dispute, person);
      if (sameJson(redacted, pick(dispute, redacted))) continue;
      // No updatedAt: timestamps are kept, a redaction is no edit of the client's. The trigger still bumps `version`.
      await tx.update(disputes).set(redacted).where(eq(disputes.uid, dispute.uid));
      disputesRedacted += 1;
    }

    let submissionsRedacted = 0;
    for (const submission of held.submissions) {
      const evidence = redactEvidence(submission.evidence, person);
      if (sameJson(evidence, submission.evidence)) continue;
      await tx.update(submissions).set({ evidence }).where(eq(submissions.id, submission.id));
      submissionsRedacted += 1;
    }

    let eventsRedacted = 0;
    for (const event of held.events) {
      const data = redactDisputeObject(event.data, person);
      if (sameJson(data, event.data)) continue;
      await tx.update(events).set({ data }).where(eq(events.id, event.id));
      eventsRedacted += 1;
    }

    // Last: the documents are rendered again from the redacted disputes and submissions, and the events
    // that carried their evidence take the new dictionary.
    const documentsRedacted = await rerenderDocuments(tx, [
      ...new Set([
        ...concerned,
        ...held.submissions.map((submission) => submission.disputeUid),
        ...held.documents.map((document) => document.disputeUid),
      ]),
    ]);

    const exports = await tx
      .update(personalDataRequests)
      .set({ export: null })
      .where(
        and(
          ownedBy(personalDataRequests, tenant),
          eq(personalDataRequests.kind, 'retrieve'),
          eq(personalDataRequests.emailHash, hashes.emailHash),
          isNotNull(personalDataRequests.export),
        ),
      )
      .returning({ id: personalDataRequests.id });

    return record(tx, {
      id: newId('personalDataRequest'),
      orgId: tenant.orgId,
      livemode: tenant.livemode,
      kind: 'remove',
      ...hashes,
      notificationEmail:
        input.notification_email === undefined ? null : deps.secrets.seal(input.notification_email),
      export: null,
      summary: {
        disputes: disputesRedacted,
        submissions: submissionsRedacted,
        documents: documentsRedacted.length,
        events: eventsRedacted,
        exports: exports.length,
      },
      createdAt,
      completedAt: now(deps),
    });
  });
}

async function record(
  tx: Tx,
  values: typeof personalDataRequests.$inferInsert,
): Promise<PersonalDataRequestRow> {
  const [row] = await tx.insert(personalDataRequests).values(values).returning();
  if (!row) throw new Error('insert returned no row');
  return row;
}

function pick<T extends object>(source: T, keysOf: object): Partial<T> {
  return Object.fromEntries(Object.keys(keysOf).map((key) => [key, source[key as keyof T]])) as Partial<T>;
}

function now(deps: Pick<PersonalDataDeps, 'now'>): Date {
  return deps.now?.() ?? new Date();
}
