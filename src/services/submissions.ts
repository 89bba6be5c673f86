import { and, eq, gt, isNull, lt, or, sql } from 'drizzle-orm';
import { Batcher } from '../db/batcher.js';
import { type Db, rowsOf, type Tx } from '../db/client.js';
import { anyOf, stateIn } from '../db/schema/columns.js';
import { disputes, submissions, templates } from '../db/schema/index.js';
import { statement } from '../db/statements.js';
import { maxPastPayments, type PastPayment } from '../domain/evidence.js';
import { sendableStates } from '../domain/states.js';
import { submitProblem } from '../domain/submittable.js';
import { newId } from '../ids.js';
import { describeError, type Logger, withLogContext } from '../logger.js';
import type { AdapterRegistry } from '../processors/registry.js';
import {
  type DisputeReference,
  type EvidencePackage,
  type ProcessorAdapter,
  type ProcessorConnection,
  ProcessorError,
  type ResponsePackage,
} from '../processors/types.js';
import type { SecretBox } from '../secrets.js';
import { type DisputeRow, loadTemplate, type TemplateRow, templateOfDispute } from './dispute-records.js';
import { DocumentStore } from './documents.js';
import { type DisputeEvent, recordDisputeEvents } from './events.js';
import {
  AccountUnusableError,
  accountOfDispute,
  bareConnection,
  connectionOf,
} from './processor-connections.js';

/** Where a submission stands once a runner is done with it (or could not take it). */
export type SubmissionResult =
  | { status: 'succeeded' }
  | {
      status: 'failed';
      message: string /** For on-call: the processor, its status and answer. */;
      reason?: string;
    }
  /** A transient processor failure with attempts left: the job retries, with this error's Retry-After. */
  | { status: 'retry'; error: ProcessorError }
  /** Another runner holds the attempt's lease. */
  | { status: 'in_flight' };

/** What a submit request learns: the outcome, or that the call is still under way. */
export type SubmitOutcome =
  | { status: 'succeeded' }
  | { status: 'failed'; message: string }
  | { status: 'in_flight' };

/**
 * How the dispute service hands work to the submission queue. Every processor call runs as a job; the
 * service only says what is due and when (jobs/submitter.ts implements it over BullMQ).
 */
export interface Submitter {
  /** Runs a prepared submission now and waits a while for its outcome (submit requests). */
  submit(submissionId: string): Promise<SubmitOutcome>;
  /** Runs a prepared submission without waiting, after `delayMs` (a retry the processor asked to wait for). */
  dispatch(submissionId: string, delayMs?: number): Promise<void>;
  /** Arranges for a queued dispute to be submitted at its `submit_at`. */
  schedule(dispute: QueuedDispute): Promise<void>;
  /** Drops that arrangement: the dispute left the queue or moved in it. */
  unschedule(dispute: QueuedDispute): Promise<void>;
  /**
   * Runs a failed attempt's job again, as an operator's retry in Bull Board does (its run reopens the
   * attempt: `reopen` below), and waits a while for it; false when that job is no longer kept.
   */
  retryFailed(submissionId: string): Promise<boolean>;
}

export interface QueuedDispute {
  uid: string;
  submitAt: Date;
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
 * transaction. The row exists before the processor is called; its id is the idempotency key. `returnTo`
 * is the state a failure puts the dispute back in: where it was, unless that state would resubmit it.
 */
export async function prepareSubmissions(
  tx: Tx,
  items: readonly { dispute: DisputeRow; adapter: string; returnTo?: string; claimForMs?: number }[],
): Promise<{ submissionId: string; dispute: DisputeRow; submission: SubmissionRow }[]> {
  if (items.length === 0) return [];
  const rows: SubmissionRow[] = items.map(({ dispute, adapter, returnTo, claimForMs }) => ({
    id: newId('submission'),
    orgId: dispute.orgId,
    livemode: dispute.livemode,
    disputeUid: dispute.uid,
    status: 'pending',
    adapter,
    previousState: returnTo ?? dispute.state,
    evidence: evidenceOf(dispute) as unknown as Record<string, unknown>,
    processorReference: null,
    failure: null,
    // A runner that goes on to call the processor itself holds the attempt from the start.
    claimedUntil: claimForMs === undefined ? null : new Date(Date.now() + claimForMs),
    failedAtJobAttempt: null,
    retriedAs: null,
    documentId: null,
    documentSha256: null,
    createdAt: new Date(),
    completedAt: null,
  }));
  await insertSubmissions.run(tx, {
    rows: JSON.stringify(
      rows.map((row, index) => ({ ...row, claimForMs: items[index]?.claimForMs ?? null })),
    ),
  });
  const compiling = await tx
    .update(disputes)
    .set({ state: 'compiling_evidence', updatedAt: new Date() })
    .where(
      anyOf(
        disputes.uid,
        items.map((item) => item.dispute.uid),
        'uuid',
      ),
    )
    .returning();
  const byUid = new Map(compiling.map((dispute) => [dispute.uid, dispute]));
  return rows.map((submission) => {
    const dispute = byUid.get(submission.disputeUid);
    if (!dispute) throw new Error(`dispute ${submission.disputeUid} vanished inside its transaction`);
    return { submissionId: submission.id, dispute, submission };
  });
}

/** One statement of constant text for any number of attempts: the rows travel as one JSON parameter. */
const insertSubmissions = statement<{ rows: string }>(sql`
  insert into ${submissions} (id, org_id, livemode, dispute_uid, adapter, previous_state, evidence, claimed_until)
  select id, "orgId", livemode, "disputeUid", adapter, "previousState", evidence,
    now() + "claimForMs" * interval '1 millisecond'
  from jsonb_to_recordset(${sql.placeholder('rows')}::jsonb) as attempt(id text, "orgId" text,
    livemode boolean, "disputeUid" uuid, adapter text, "previousState" text, evidence jsonb, "claimForMs" integer)`);

export async function prepareSubmission(
  tx: Tx,
  dispute: DisputeRow,
  adapter: string,
): Promise<{ submissionId: string; dispute: DisputeRow }> {
  const [prepared] = await prepareSubmissions(tx, [{ dispute, adapter }]);
  if (!prepared) throw new Error('no submission was prepared');
  return prepared;
}

export interface SubmissionDeps {
  db: Db;
  adapters: AdapterRegistry;
  /** Opens the answering account's credentials for the call. */
  secrets: SecretBox;
  logger: Logger;
  /**
   * How long a runner owns an attempt without renewing it (JOB_LOCK_SECONDS, like the job's own lock). A
   * live runner renews it while the processor call lasts; one that dies loses it within this time.
   */
  leaseMs: number;
}

/** Where the job running a submission stands in its retry budget. */
export interface JobAttempt {
  /** BullMQ's `attemptsMade` when this run started: it grows each time the job fails. */
  attemptsMade: number;
  /** No retry follows this run: a transient failure is recorded as the outcome. */
  final: boolean;
}

export type SubmissionRow = typeof submissions.$inferSelect;

/** An attempt this runner holds the lease of, with its dispute and the template it names. */
export interface Claimed {
  submission: SubmissionRow;
  dispute: DisputeRow;
  template: TemplateRow | null;
}

type Outcome = { reference: string | null } | { error: ProcessorError };

interface Finish {
  claimed: Claimed;
  outcome: Outcome;
  attempt: JobAttempt;
  /** What was sent: a success announces it with `dispute.response.generated`. */
  response?: ResponsePackage;
}

/**
 * Sends prepared submissions to their processors and records the outcomes. One runner serves all the
 * submission jobs of a process: the claims and the outcomes of jobs running at the same moment share
 * their round trips to Postgres (db/batcher.ts), which is what lets one worker keep up with a queue.
 *
 * Safe to run again for the same submission: a finished one returns its recorded outcome, one that
 * another runner holds answers `in_flight`, and the processor always receives the same idempotency key.
 * A failed submission is reopened only by a later attempt of its job than the one that recorded the
 * failure: that is an operator retrying the failed job (Bull Board, the CLI), which submits the dispute's
 * current evidence as a new attempt. A re-run of the same attempt (a worker died after recording) is not.
 */
export class SubmissionRunner {
  readonly #deps: SubmissionDeps;
  readonly #claims: Batcher<string, Claimed | undefined>;
  readonly #finishes: Batcher<Finish, boolean>;
  readonly #documents: DocumentStore;

  constructor(deps: SubmissionDeps) {
    this.#deps = deps;
    this.#claims = new Batcher((ids) => claimMany(deps.db, ids, deps.leaseMs));
    this.#finishes = new Batcher((items) => finishMany(deps.db, items));
    this.#documents = new DocumentStore(deps.db);
  }

  async run(submissionId: string, attempt: JobAttempt): Promise<SubmissionResult> {
    const claimed = await this.#claims.call(submissionId);
    if (claimed) return this.runClaimed(claimed, attempt);
    // Not claimable: finished, held by another runner, or replaced by an operator's retry.
    const { submission } = await loadSubmission(this.#deps.db, submissionId);
    if (
      submission.status === 'failed' &&
      attempt.attemptsMade > (submission.failedAtJobAttempt ?? Infinity)
    ) {
      return this.run(await reopen(this.#deps, submission), attempt);
    }
    if (submission.id !== submissionId) return this.run(submission.id, attempt);
    return recordedOutcome(submission);
  }

  /** Calls the processor for an attempt this runner holds, and records what it answered. */
  runClaimed(claimed: Claimed, attempt: JobAttempt): Promise<SubmissionResult> {
    // Every line of the run, those of the processor calls' guard included, carries `submission_id`.
    return withLogContext({ submissionId: claimed.submission.id }, () => this.#runClaimed(claimed, attempt));
  }

  async #runClaimed(claimed: Claimed, attempt: JobAttempt): Promise<SubmissionResult> {
    const { submission, dispute } = claimed;
    const { db, logger, leaseMs } = this.#deps;
    const adapter = this.#deps.adapters.forDispute(dispute);
    const log = logger.child({ dispute: dispute.id, adapter: adapter.name });
    if (!sendable.has(dispute.state)) {
      // The processor decided it meanwhile (mirrored as won, lost, closed): nothing is sent, and the
      // attempt ends on the record without touching the dispute.
      const message = `Not sent: dispute '${dispute.id}' is ${dispute.state}, no longer compiling_evidence.`;
      const error = new ProcessorError(adapter.name, message, { retryable: false });
      await this.#finishes.call({ claimed, outcome: { error }, attempt });
      return { status: 'failed', message };
    }
    const lease = renewLease(db, submission.id, leaseMs, log);
    let outcome: Outcome;
    let response: ResponsePackage | undefined;
    try {
      const connection = await connectionFor(this.#deps, dispute, adapter);
      if ('error' in connection) {
        outcome = connection;
      } else {
        const withPayments = await addPastPayments(db, adapter, connection, claimed, log);
        response = await this.#documents.responseFor(withPayments);
        outcome = await callProcessor(adapter, connection, withPayments, response, log);
      }
    } catch (thrown) {
      // Rendering or storing the document failed: nothing was sent. Retried like an outage, and recorded
      // as the attempt's failure when the retries run out, so the dispute is never left compiling.
      log.error({ err: describeError(thrown) }, 'the response document could not be prepared');
      const message = 'The response document could not be prepared; nothing was sent.';
      outcome = { error: new ProcessorError(adapter.name, message, { retryable: true }) };
    } finally {
      lease.stop();
    }
    if ('error' in outcome && outcome.error.retryable && !attempt.final) {
      // The job retries after its backoff; free the attempt so that retry need not wait out the lease.
      await db.update(submissions).set({ claimedUntil: null }).where(eq(submissions.id, submission.id));
      log.info({ status: outcome.error.status, reason: outcome.error.message }, 'submission will be retried');
      return { status: 'retry', error: outcome.error };
    }
    // Outside the try: a database error here is ours, not the processor's. It propagates, and the attempt
    // stays pending for the job's retry to finish (the processor deduplicates on the idempotency key).
    const finished = await this.#finishes.call({ claimed, outcome, attempt, response });
    if (!finished) return recordedOutcome((await loadSubmission(db, submission.id)).submission);
    if ('reference' in outcome) {
      log.info('submission succeeded');
      return { status: 'succeeded' };
    }
    const { error } = outcome;
    log.warn(
      { status: error.status, retryable: error.retryable, reason: error.message },
      'submission failed',
    );
    return { status: 'failed', message: error.message, reason: error.reason };
  }
}

/**
 * Sends the evidence. Anything the adapter throws ends as an outcome: a dispute is never left compiling
 * evidence behind a submission nobody will finish.
 */
async function callProcessor(
  adapter: ProcessorAdapter,
  connection: ProcessorConnection,
  { submission, dispute }: Claimed,
  response: ResponsePackage,
  log: Logger,
): Promise<Outcome> {
  try {
    const answer = await adapter.submitEvidence({
      connection,
      dispute: referenceOf(dispute),
      evidence: submission.evidence as unknown as EvidencePackage,
      response,
      idempotencyKey: submission.id,
    });
    if (answer.delivery === 'portal') {
      log.info("response package ready for the merchant to upload in the processor's portal");
    }
    return { reference: answer.reference };
  } catch (thrown) {
    if (thrown instanceof ProcessorError) return { error: thrown };
    log.error({ err: describeError(thrown) }, 'adapter threw');
    return {
      error: new ProcessorError(adapter.name, 'The call to the processor failed unexpectedly.', {
        retryable: true,
      }),
    };
  }
}

/** What an adapter is told of the dispute it answers. */
export function referenceOf(dispute: DisputeRow): DisputeReference {
  return {
    id: dispute.id,
    charge: dispute.charge,
    accountId: dispute.accountId,
    reason: dispute.reason,
    kind: dispute.kind,
    amount: dispute.amount,
    currency: dispute.currency,
  };
}

/**
 * The connected account that answers the dispute, opened for the call. Disputes of the mock processor
 * and standalone ones need none; a mirrored dispute whose account was disconnected, or whose credentials
 * no longer open, cannot be sent until an operator connects it again: a permanent failure.
 */
async function connectionFor(
  deps: SubmissionDeps,
  dispute: DisputeRow,
  adapter: ProcessorAdapter,
): Promise<ProcessorConnection | { error: ProcessorError }> {
  const account = await accountOfDispute(deps.db, dispute);
  if (account) {
    try {
      return connectionOf(deps.secrets, account);
    } catch (error) {
      if (!(error instanceof AccountUnusableError)) throw error;
      return { error: new ProcessorError(adapter.name, error.message, { retryable: false }) };
    }
  }
  if (adapter.capabilities.submit === 'api' && adapter.name !== 'mock') {
    const message = `Not sent: no ${adapter.name} account '${dispute.account ?? ''}' is connected to answer dispute '${dispute.id}'.`;
    return { error: new ProcessorError(adapter.name, message, { retryable: false }) };
  }
  return bareConnection(dispute);
}

/**
 * Past payments (issue: past payments): when the client sent none and the processor can tell them, the
 * successful, undisputed payments made with the same card go into the attempt's snapshot and onto the
 * dispute, before the document is rendered, so every retry of the attempt sends the same. Helpful, not
 * needed: when the processor cannot tell them now, the evidence goes without.
 */
async function addPastPayments(
  db: Db,
  adapter: ProcessorAdapter,
  connection: ProcessorConnection,
  claimed: Claimed,
  log: Logger,
): Promise<Claimed> {
  const evidence = claimed.submission.evidence as unknown as EvidencePackage;
  if (!adapter.pastPayments || claimed.submission.documentId || evidence.pastPayments.length > 0) {
    return claimed;
  }
  let found: PastPayment[];
  try {
    found = await adapter.pastPayments({
      connection,
      dispute: referenceOf(claimed.dispute),
      limit: maxPastPayments,
    });
  } catch (error) {
    log.warn({ err: describeError(error) }, 'past payments not fetched; the evidence goes without');
    return claimed;
  }
  if (found.length === 0) return claimed;
  const pastPayments = found.slice(0, maxPastPayments);
  const withPayments = { ...evidence, pastPayments };
  const [submission] = await db.transaction(async (tx) => {
    await tx
      .update(disputes)
      .set({ pastPayments, updatedAt: sql`now()` })
      .where(
        and(eq(disputes.uid, claimed.dispute.uid), sql`jsonb_array_length(${disputes.pastPayments}) = 0`),
      );
    // Only an attempt still pending and not yet rendered takes them: what was rendered is what is sent.
    return tx
      .update(submissions)
      .set({ evidence: withPayments as unknown as SubmissionRow['evidence'] })
      .where(
        and(
          eq(submissions.id, claimed.submission.id),
          eq(submissions.status, 'pending'),
          isNull(submissions.documentId),
        ),
      )
      .returning();
  });
  return {
    ...claimed,
    submission: submission ?? claimed.submission,
    dispute: { ...claimed.dispute, pastPayments },
  };
}

/**
 * Takes the leases of the attempts nobody holds, with their disputes; the others answer undefined, and
 * so does a second call for the same attempt in one batch (one runner per attempt). One transaction, so
 * a batch that fails leaves no lease behind for its item-by-item retry to trip over.
 */
async function claimMany(db: Db, ids: string[], leaseMs: number): Promise<(Claimed | undefined)[]> {
  const { claimed, found } = await db.transaction(async (tx) => {
    const claimed = await tx
      .update(submissions)
      .set({ claimedUntil: leaseEnd(leaseMs) })
      .where(
        and(
          anyOf(submissions.id, ids, 'text'),
          eq(submissions.status, 'pending'),
          or(isNull(submissions.claimedUntil), lt(submissions.claimedUntil, sql`now()`)),
        ),
      )
      .returning();
    const uids = claimed.map((submission) => submission.disputeUid);
    const found =
      uids.length === 0
        ? []
        : await tx
            .select({ dispute: disputes, template: templates })
            .from(disputes)
            .leftJoin(templates, templateOfDispute)
            .where(anyOf(disputes.uid, uids, 'uuid'));
    return { claimed, found };
  });
  const byUid = new Map(found.map((row) => [row.dispute.uid, row]));
  const byId = new Map(claimed.map((submission) => [submission.id, submission]));
  return ids.map((id) => {
    const submission = byId.get(id);
    byId.delete(id);
    const row = submission && byUid.get(submission.disputeUid);
    return submission && row ? { submission, ...row } : undefined;
  });
}

/** A submission with its dispute, following an operator's retries to the attempt that replaced it. */
async function loadSubmission(db: Db, submissionId: string) {
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

function recordedOutcome(submission: SubmissionRow): SubmitOutcome & SubmissionResult {
  if (submission.status === 'succeeded') return { status: 'succeeded' };
  if (submission.status === 'failed') {
    const failure = submission.failure ?? { message: '', retryable: false };
    return { status: 'failed', message: failure.message, reason: failureReason(submission.adapter, failure) };
  }
  return { status: 'in_flight' };
}

const leaseEnd = (leaseMs: number) => sql`now() + ${`${leaseMs} milliseconds`}::interval`;

/** Extends the lease at half its length while the processor call lasts. */
function renewLease(db: Db, submissionId: string, leaseMs: number, log: Logger): { stop(): void } {
  const timer = setInterval(() => {
    db.update(submissions)
      .set({ claimedUntil: leaseEnd(leaseMs) })
      .where(and(eq(submissions.id, submissionId), eq(submissions.status, 'pending')))
      .catch((error: unknown) => log.warn({ err: describeError(error) }, 'renewing the lease failed'));
  }, leaseMs / 2);
  return { stop: () => clearInterval(timer) };
}

/**
 * An operator retried a failed submission's job. A refusal: a new attempt with the dispute's current
 * evidence (and so a new idempotency key), linked from the failed one so every later run of the job
 * follows it. A failure the processor may not have seen the end of: the same attempt again.
 */
async function reopen(deps: SubmissionDeps, failed: SubmissionRow): Promise<string> {
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

/** A submission that can no longer be made as asked; retrying the job will not change that. */
export class PermanentSubmissionError extends Error {
  readonly retryable = false;
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
async function finishMany(db: Db, items: Finish[]): Promise<boolean[]> {
  const now = new Date();
  return db.transaction(async (tx) => {
    const recorded = await tx.execute<{ id: string }>(sql`
      update ${submissions} as s set
        status = v.status,
        processor_reference = v.reference,
        failure = v.failure::jsonb,
        failed_at_job_attempt = v.attempt,
        completed_at = ${now.toISOString()}::timestamptz
      from unnest(
        ${sql.param(items.map(({ claimed }) => claimed.submission.id))}::text[],
        ${sql.param(items.map(({ outcome }) => ('reference' in outcome ? 'succeeded' : 'failed')))}::text[],
        ${sql.param(items.map(({ outcome }) => ('reference' in outcome ? outcome.reference : null)))}::text[],
        ${sql.param(items.map(({ outcome }) => ('error' in outcome ? JSON.stringify(failureOf(outcome.error)) : null)))}::text[],
        ${sql.param(items.map(({ outcome, attempt }) => ('error' in outcome ? attempt.attemptsMade : null)))}::int[]
      ) as v(id, status, reference, failure, attempt)
      where s.id = v.id and s.status = 'pending'
      returning s.id`);
    const finished = new Set(rowsOf<{ id: string }>(recorded).map((row) => row.id));
    const done = items.filter(({ claimed }) => finished.has(claimed.submission.id));
    const succeeded = done.filter(({ outcome }) => 'reference' in outcome);
    const templateOf = new Map(done.map(({ claimed }) => [claimed.dispute.uid, claimed.template]));
    const updated: DisputeEvent[] = [];
    const record = (type: DisputeEvent['type'], rows: DisputeRow[]) =>
      updated.push(
        ...rows.map((dispute) => ({ type, dispute, template: templateOf.get(dispute.uid) ?? null })),
      );
    if (succeeded.length > 0) {
      const rows = await tx
        .update(disputes)
        .set({
          state: sql`case when ${disputes.state} = 'compiling_evidence' then 'submitted' else ${disputes.state} end`,
          submittedAt: now,
          // Saturating: a count at the column's limit must not turn a success into an error.
          submittedCount: sql`least(${disputes.submittedCount}, 2147483646) + 1`,
          submitAt: null,
          updatedAt: now,
        })
        .where(stillOpenTo(succeeded, sendableStates))
        .returning();
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
      for (const { claimed, response } of succeeded) {
        const dispute = current.get(claimed.dispute.uid);
        if (!dispute || !response) continue;
        updated.push({
          type: 'dispute.response.generated',
          dispute,
          template: templateOf.get(dispute.uid) ?? null,
          extra: { evidence: response.evidence, response_document: response.document.id },
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
      const rows = await tx
        .update(disputes)
        .set({ state, updatedAt: now })
        .where(stillOpenTo(group, ['compiling_evidence']))
        .returning();
      record('dispute.submission_failed', rows);
    }
    await recordDisputeEvents(tx, updated);
    return items.map(({ claimed }) => finished.has(claimed.submission.id));
  });
}

const sendable = new Set<string>(sendableStates);

/**
 * The disputes of these attempts that an outcome may still change: a success is recorded on one waiting
 * on it or already under review (keeping the processor's state), a failure only on one still waiting.
 * One the processor has decided since keeps its state and gets no event from us.
 */
function stillOpenTo(items: readonly Finish[], states: readonly string[]) {
  return and(
    anyOf(
      disputes.uid,
      items.map(({ claimed }) => claimed.dispute.uid),
      'uuid',
    ),
    stateIn(disputes.state, states),
  );
}

function failureOf(error: ProcessorError): NonNullable<SubmissionRow['failure']> {
  return {
    message: error.message,
    retryable: error.retryable,
    ...(error.status === undefined ? {} : { status: error.status }),
    ...(error.excerpt === undefined ? {} : { excerpt: error.excerpt }),
  };
}

export type { TemplateRow };
