import { sql } from 'drizzle-orm';
import type { Db, Tx } from '../../db/client.js';
import { personalDataRequests } from '../../db/schema/index.js';
import { formatTimestamp, toDisputeObject } from '../../domain/disputes.js';
import { type Person, personOf, type RetrieveInput } from '../../domain/personal-data.js';
import { newId } from '../../ids.js';
import type { SecretBox } from '../../secrets.js';
import { loadTemplates } from '../disputes/records.js';
import { sealedAt } from '../secrets/sealed-columns.js';
import type { Tenant } from '../tenancy.js';
import { exportedFiles } from './files.js';
import type { PersonalDataRequestRow } from './requests.js';
import { findHeld } from './search.js';

/**
 * Personal data requests, and the retrieve. A retrieve is done within the request (the data held about
 * one person is small): it seals an export of everything held about the person in the tenant
 * (organisation and mode) for the operator to send on (`npm run cli -- privacy export`). A remove is
 * recorded and carried out by a job (personal-data-removal.ts). Either is recorded in
 * personal_data_requests with the person as keyed hashes (and, while a removal waits, sealed). Nothing is
 * sent from here.
 */

export interface PersonalDataDeps {
  db: Db;
  /** Seals exports and notification addresses; derives the key of the person's hashes from APP_SECRET. */
  secrets: SecretBox;
  now?: () => Date;
}

/** The purpose the person's keyed hashes are made for (SecretBox.keyedHash). */
const hashPurpose = 'personal-data';

export function personHashes(secrets: SecretBox, person: Person) {
  return {
    emailHash: secrets.keyedHash(hashPurpose, `email:${person.email}`),
    nameHash: secrets.keyedHash(hashPurpose, `name:${person.name}`),
  };
}

/** The email hashes the person's requests may carry: under APP_SECRET and, while set, the previous one. */
export function personEmailHashes(secrets: SecretBox, person: Person): string[] {
  return secrets.keyedHashes(hashPurpose, `email:${person.email}`);
}

export async function retrievePersonalData(
  deps: PersonalDataDeps,
  tenant: Tenant,
  input: RetrieveInput,
): Promise<PersonalDataRequestRow> {
  const person = personOf(input);
  const hashes = personHashes(deps.secrets, person);
  const id = newId('personalDataRequest');
  const createdAt = now(deps);
  return deps.db.transaction(async (tx) => {
    // A removal of the same person runs either wholly before this export (which then finds nothing of
    // them) or after it (and deletes it). Read committed, so what is read is what stands once the lock
    // is held, not a snapshot taken while waiting for it.
    await lockPerson(tx, tenant, hashes.emailHash);
    const held = await findHeld(tx, tenant, person, false);
    const templates = await loadTemplates(tx, held.disputes);
    const files = await exportedFiles(tx, tenant, held);
    const exported = {
      object: 'personal_data_export',
      request: id,
      livemode: tenant.livemode,
      created: formatTimestamp(createdAt),
      notification_email: input.notification_email,
      disputes: held.disputes.map((dispute) => toDisputeObject(dispute, templates.get(dispute.uid) ?? null)),
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
      files,
    };
    return recordRequest(tx, {
      id,
      orgId: tenant.orgId,
      livemode: tenant.livemode,
      kind: 'retrieve',
      ...hashes,
      notificationEmail: deps.secrets.seal(
        input.notification_email,
        sealedAt('requestNotificationEmail', id),
      ),
      export: deps.secrets.seal(JSON.stringify(exported), sealedAt('requestExport', id)),
      summary: {
        disputes: held.disputes.length,
        submissions: held.submissions.length,
        documents: held.documents.length,
        events: held.events.length,
        files: files.length,
      },
      createdAt,
      completedAt: now(deps),
    });
  });
}

/** Serialises the requests about one person in one tenant, for the rest of the transaction. */
export async function lockPerson(tx: Tx, tenant: Tenant, emailHash: string): Promise<void> {
  const key = `personal-data:${tenant.orgId}:${tenant.livemode}:${emailHash}`;
  await tx.execute(sql`select pg_advisory_xact_lock(hashtextextended(${key}, 0))`);
}

/** Inserts a request row, in a transaction or not. */
export async function recordRequest(
  db: Db | Tx,
  values: typeof personalDataRequests.$inferInsert,
): Promise<PersonalDataRequestRow> {
  const [row] = await db.insert(personalDataRequests).values(values).returning();
  if (!row) throw new Error('insert returned no row');
  return row;
}

export function now(deps: Pick<PersonalDataDeps, 'now'>): Date {
  return deps.now?.() ?? new Date();
}
