import { and, eq, inArray, isNotNull, isNull, lt, ne, sql } from 'drizzle-orm';
import { z } from 'zod';
import type { Db, Tx } from '../../db/client.js';
import { anyOf } from '../../db/schema/columns.js';
import { disputes, events, personalDataRequests, submissions } from '../../db/schema/index.js';
import {
  customerOfObject,
  isPersonsCustomer,
  type Person,
  personOf,
  type RemoveInput,
  redactDispute,
  redactDisputeObject,
  redactDocumentInput,
  redactEvidence,
} from '../../domain/personal-data.js';
import { documentWithoutFiles, objectWithoutFiles, withoutFiles } from '../../domain/personal-data-files.js';
import { sameJson } from '../../domain/redaction.js';
import { newId } from '../../ids.js';
import type { SecretBox } from '../../secrets.js';
import { removeOwnedFiles } from '../files/owned.js';
import { postgresFileStorage } from '../files/storage.js';
import { rerenderDocuments } from '../responses/documents.js';
import { sealedAt } from '../secrets/sealed-columns.js';
import { ownedBy, type Tenant } from '../tenancy.js';
import { personsFiles, redactFilenames } from './files.js';
import type { PersonalDataRequestRow } from './requests.js';
import {
  lockPerson,
  now,
  type PersonalDataDeps,
  personEmailHashes,
  personHashes,
  recordRequest,
} from './retrieval.js';
import { findHeld, type Held } from './search.js';

/**
 * Removing a person (POST /v1/personal-data/remove): the request is recorded and answered at once, and a
 * job (`removePersonalData`, on the deadline queue) carries it out, redacting the person everywhere in
 * the tenant in one transaction once none of their data is on its way to a processor. Removing emits no
 * event: redaction is not a change of the dispute a client acts on. Cached dispute objects cannot go
 * stale: each redacted dispute row's `version` is bumped by the database (drizzle/0001), and the
 * DisputeObjectCache is keyed by it.
 */

/** How a removal request reaches its job (jobs/removal-dispatcher.ts implements it over BullMQ). */
export interface RemovalDispatcher {
  /**
   * Makes sure the request's removal job exists. Never throws: a job that could not be enqueued (Redis
   * away) is enqueued by the deadline sweep, which finds the request still waiting.
   */
  dispatch(requestId: string): Promise<void>;
}

/** Who a removal is about, sealed on its request until it has run. */
const subjectSchema = z.object({ email: z.string(), name: z.string() });

/**
 * Records a removal request and hands it to its job: the answer does not wait for the removal, which may
 * have to wait itself for a submission in flight (carryOutRemoval). The person is kept sealed on the row
 * (`subject`) until the removal has run, and as keyed hashes for good.
 */
export async function requestRemoval(
  deps: PersonalDataDeps & { removals: RemovalDispatcher },
  tenant: Tenant,
  input: RemoveInput,
): Promise<PersonalDataRequestRow> {
  const person = personOf(input);
  const id = newId('personalDataRequest');
  const request = await recordRequest(deps.db, {
    id,
    orgId: tenant.orgId,
    livemode: tenant.livemode,
    kind: 'remove',
    ...personHashes(deps.secrets, person),
    subject: deps.secrets.seal(JSON.stringify(subjectSchema.parse(input)), sealedAt('requestSubject', id)),
    notificationEmail:
      input.notification_email === undefined
        ? null
        : deps.secrets.seal(input.notification_email, sealedAt('requestNotificationEmail', id)),
    export: null,
    summary: null,
    createdAt: now(deps),
    completedAt: null,
  });
  await deps.removals.dispatch(request.id);
  return request;
}

/** What running a removal request came to. */
export type RemovalOutcome =
  | { status: 'removed'; summary: Record<string, number> }
  /** It had run already (a duplicate job, a job the sweep re-enqueued): nothing was done. */
  | { status: 'done_before' }
  /** A submission of the person's data is in flight: nothing was done; try again once it has finished. */
  | { status: 'waiting'; submissionId: string }
  | { status: 'unknown' }
  /** It can never run as recorded (its subject cannot be opened): recorded on the request for on-call. */
  | { status: 'failed'; reason: string };

/**
 * Carries out a removal request, in one transaction: disputes whose customer is the person lose their
 * customer attributes, and every mention of them in evidence, submission snapshots, event payloads and
 * response documents becomes `[redacted]` (domain/personal-data.ts says exactly how); amounts, ids,
 * states and timestamps stay. The exports of the person's retrieve requests are deleted, and the
 * notification addresses of their other requests that are done are cleared. The request is then done,
 * and forgets who it was about.
 *
 * While any submission of the disputes concerned is pending, nothing is changed: its job may send it
 * again, under the same idempotency key, and must send what it sent before; and the runner records what
 * it sent when it finishes. The caller tries again later. The disputes are locked first, so no new
 * submission of them starts meanwhile, and the pending ones are looked for without locking their rows,
 * which a runner recording an outcome holds while it waits for the disputes.
 */
export async function carryOutRemoval(deps: PersonalDataDeps, requestId: string): Promise<RemovalOutcome> {
  return deps.db.transaction(async (tx): Promise<RemovalOutcome> => {
    // Locked: two runs of one request (a stalled job taken over) run one after the other.
    const [request] = await tx
      .select()
      .from(personalDataRequests)
      .where(and(eq(personalDataRequests.id, requestId), eq(personalDataRequests.kind, 'remove')))
      .for('update');
    if (!request) return { status: 'unknown' };
    if (request.completedAt !== null) return { status: 'done_before' };
    const subject = openSubject(deps.secrets, request);
    if ('failure' in subject) {
      await tx
        .update(personalDataRequests)
        .set({ failure: subject.failure })
        .where(eq(personalDataRequests.id, request.id));
      return { status: 'failed', reason: subject.failure };
    }
    const person = personOf(subject);
    const tenant = { orgId: request.orgId, livemode: request.livemode };
    // No export of the person is being made meanwhile: one made before is deleted below, one after finds
    // nothing left. The lock is named by the hash a retrieve makes now, whatever secret the removal's
    // own hash was made under; its requests are found under every hash they may carry.
    await lockPerson(tx, tenant, personHashes(deps.secrets, person).emailHash);
    const others = othersOf(request, personEmailHashes(deps.secrets, person));

    const first = await findHeld(tx, tenant, person, true);
    const touched = touchedBy(first);
    // Every dispute the removal will touch is locked, not only those about the person: a submission of
    // any of them records its outcome (and its events) only under that lock, so none can land unseen
    // between the search and the redaction. Same order as every other locker of several disputes.
    await tx
      .select({ uid: disputes.uid })
      .from(disputes)
      .where(anyOf(disputes.uid, touched, 'uuid'))
      .orderBy(disputes.orgId, disputes.livemode, sql`${disputes.id} collate "C"`)
      .for('update');
    const [pending] = await tx
      .select({ id: submissions.id })
      .from(submissions)
      .where(and(anyOf(submissions.disputeUid, touched, 'uuid'), eq(submissions.status, 'pending')))
      .orderBy(submissions.createdAt)
      .limit(1);
    if (pending) return { status: 'waiting', submissionId: pending.id };
    // Searched again under the locks: what finished between the first search and them is included.
    const held = await findHeld(tx, tenant, person, true);

    const summary = await redactHeld(tx, tenant, person, held, touchedBy(held));
    const exports = await tx
      .update(personalDataRequests)
      .set({ export: null })
      .where(and(others, eq(personalDataRequests.kind, 'retrieve'), isNotNull(personalDataRequests.export)))
      .returning({ id: personalDataRequests.id });
    // Removals still waiting keep theirs: the operator confirms each removal to its address once done.
    await tx
      .update(personalDataRequests)
      .set({ notificationEmail: null })
      .where(
        and(
          others,
          isNotNull(personalDataRequests.completedAt),
          isNotNull(personalDataRequests.notificationEmail),
        ),
      );
    const done = { ...summary, exports: exports.length };
    await tx
      .update(personalDataRequests)
      .set({ subject: null, summary: done, completedAt: now(deps), failure: null })
      .where(eq(personalDataRequests.id, request.id));
    return { status: 'removed', summary: done };
  });
}

/**
 * The person's other requests in the request's tenant: all made before the removal runs, those made
 * while it waited included (their exports hold what it removes).
 */
function othersOf(request: PersonalDataRequestRow, emailHashes: string[]) {
  return and(
    ownedBy(personalDataRequests, { orgId: request.orgId, livemode: request.livemode }),
    inArray(personalDataRequests.emailHash, emailHashes),
    ne(personalDataRequests.id, request.id),
  );
}

async function redactHeld(tx: Tx, tenant: Tenant, person: Person, held: Held, touched: string[]) {
  const theirs = held.disputes.filter((dispute) => isPersonsCustomer(dispute, person));
  const theirUids = new Set(theirs.map((dispute) => dispute.uid));
  const theirIds = new Set(theirs.map((dispute) => dispute.id));

  // First: the person's files go, records and bytes; the records naming them lose them below.
  const theirSubmissions = held.submissions.filter((submission) => theirUids.has(submission.disputeUid));
  const removed = new Set(
    await removeOwnedFiles(
      tx,
      postgresFileStorage(tx),
      tenant,
      await personsFiles(tx, tenant, theirs, theirSubmissions),
    ),
  );
  const filesRenamed = await redactFilenames(tx, tenant, person);

  let disputesRedacted = 0;
  for (const dispute of held.disputes) {
    const kept = withoutFiles(dispute, removed);
    const redacted = {
      ...redactDispute(kept, person, { theirs: theirUids.has(dispute.uid) }),
      productImages: kept.productImages,
    };
    if (sameJson(redacted, pick(dispute, redacted))) continue;
    // No updatedAt: timestamps are kept, a redaction is no edit of the client's. The trigger still bumps `version`.
    await tx.update(disputes).set(redacted).where(eq(disputes.uid, dispute.uid));
    disputesRedacted += 1;
  }

  let submissionsRedacted = 0;
  for (const submission of held.submissions) {
    const evidence = redactEvidence(withoutFiles(submission.evidence, removed), person, {
      theirs: theirUids.has(submission.disputeUid),
    });
    if (sameJson(evidence, submission.evidence)) continue;
    await tx.update(submissions).set({ evidence }).where(eq(submissions.id, submission.id));
    submissionsRedacted += 1;
  }

  let eventsRedacted = 0;
  for (const event of held.events) {
    const data = redactDisputeObject(objectWithoutFiles(event.data, removed, person.mentions), person, {
      theirs:
        (event.disputeUid !== null && theirUids.has(event.disputeUid)) ||
        isPersonsCustomer(customerOfObject(event.data), person),
    });
    if (sameJson(data, event.data)) continue;
    await tx.update(events).set({ data }).where(eq(events.id, event.id));
    eventsRedacted += 1;
  }

  // Last: the documents are rendered again from their stored inputs, redacted the same way and without
  // the removed files (listed as removed), and the events that carried their evidence take the new dictionary.
  const documentsRedacted = await rerenderDocuments(tx, touched, (input) =>
    redactDocumentInput(documentWithoutFiles(input, removed), person, {
      theirs: theirIds.has(input.dispute.id) || isPersonsCustomer(input.dispute, person),
    }),
  );
  return {
    disputes: disputesRedacted,
    submissions: submissionsRedacted,
    documents: documentsRedacted.length,
    events: eventsRedacted,
    files: removed.size,
    filenames: filesRenamed,
  };
}

/** The removal requests still waiting for their job this long after they were made, oldest first. */
export async function waitingRemovals(db: Db, olderThanMs: number): Promise<string[]> {
  const rows = await db
    .select({ id: personalDataRequests.id })
    .from(personalDataRequests)
    .where(
      and(
        eq(personalDataRequests.kind, 'remove'),
        isNull(personalDataRequests.completedAt),
        isNull(personalDataRequests.failure),
        lt(personalDataRequests.createdAt, sql`now() - ${`${olderThanMs} milliseconds`}::interval`),
      ),
    )
    .orderBy(personalDataRequests.createdAt);
  return rows.map((row) => row.id);
}

/** The disputes a removal changes: those about the person, and those whose records mention them. */
function touchedBy(held: Held): string[] {
  return [
    ...new Set([
      ...held.disputes.map((dispute) => dispute.uid),
      ...held.submissions.map((submission) => submission.disputeUid),
      ...held.documents.map((document) => document.disputeUid),
    ]),
  ];
}

function openSubject(
  secrets: SecretBox,
  request: PersonalDataRequestRow,
): { email: string; name: string } | { failure: string } {
  if (request.subject === null) {
    return { failure: `removal ${request.id} has not run, yet no longer says whom it is about` };
  }
  try {
    return subjectSchema.parse(
      JSON.parse(secrets.open(request.subject, sealedAt('requestSubject', request.id))),
    );
  } catch {
    return {
      failure: `the subject of removal ${request.id} cannot be opened: this process has a different APP_SECRET`,
    };
  }
}

function pick<T extends object>(source: T, keysOf: object): Partial<T> {
  return Object.fromEntries(Object.keys(keysOf).map((key) => [key, source[key as keyof T]])) as Partial<T>;
}
