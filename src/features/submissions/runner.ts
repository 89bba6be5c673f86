import { isDeepStrictEqual } from 'node:util';
import { and, eq, isNull, sql } from 'drizzle-orm';
import { Batcher } from '../../db/batcher.js';
import type { Db } from '../../db/client.js';
import { disputes, submissions } from '../../db/schema/index.js';
import { compellingEvidenceApplies, compellingEvidenceOf } from '../../domain/compelling-evidence.js';
import type { DocumentLimits } from '../../domain/document-size.js';
import { maxPastPayments, type PastPayment } from '../../domain/evidence.js';
import { fileReferences } from '../../domain/evidence-files.js';
import { isPermanent } from '../../domain/failure.js';
import { sendableStates } from '../../domain/states.js';
import { describeError, type Logger, withLogContext } from '../../logger.js';
import type { AdapterRegistry } from '../../processors/registry.js';
import {
  type AttachedFile,
  type DisputeReference,
  type ProcessorAdapter,
  type ProcessorConnection,
  ProcessorError,
  type ResponsePackage,
  type SubmitEvidenceRequest,
} from '../../processors/types.js';
import type { SecretBox } from '../../secrets.js';
import {
  AccountUnusableError,
  accountOfDispute,
  bareConnection,
  connectionOf,
} from '../accounts/connections.js';
import { adapterFailure } from '../adapter-failure.js';
import type { DisputeRow } from '../disputes/records.js';
import { attachedFiles } from '../files/attachments.js';
import { type FileStorage, postgresFileStorage } from '../files/storage.js';
import { DocumentStore, renderedFileReferences } from '../responses/documents.js';
import type { SubmissionResult } from './port.js';
import {
  type Claimed,
  claimMany,
  type Finish,
  finishMany,
  type JobAttempt,
  leaseEnd,
  loadSubmission,
  type Outcome,
  recordedOutcome,
  type SubmissionRow,
} from './records.js';
import { reopen } from './reopen.js';

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
  /** DOCUMENT_MAX_CHARACTERS and DOCUMENT_MAX_PAGES, checked once more before a document is rendered. */
  documentLimits: DocumentLimits;
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
  readonly #files: FileStorage;

  constructor(deps: SubmissionDeps) {
    this.#deps = deps;
    this.#claims = new Batcher((ids) => claimMany(deps.db, ids, deps.leaseMs));
    this.#finishes = new Batcher((items) => finishMany(deps.db, items));
    this.#files = postgresFileStorage(deps.db);
    this.#documents = new DocumentStore(deps.db, this.#files, deps.documentLimits);
  }

  async run(submissionId: string, attempt: JobAttempt): Promise<SubmissionResult> {
    const claimed = await this.#claims.call(submissionId);
    if (claimed) return this.runClaimed(claimed, attempt);
    // Not claimable: finished, held by another runner, or replaced by an operator's retry.
    const { submission } = await loadSubmission(this.#deps.db, submissionId);
    if (submission.status === 'failed' && attempt.failedTries > (submission.failedAtJobAttempt ?? Infinity)) {
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
    let files: AttachedFile[] = [];
    try {
      const connection = await connectionFor(this.#deps, dispute, adapter);
      if ('error' in connection) {
        outcome = connection;
      } else {
        const withPayments = await addPastPayments(db, adapter, connection, claimed, log);
        // A later attempt sends the files its stored document lists (documents.ts, renderedFileReferences).
        const references = submission.documentId
          ? await renderedFileReferences(db, submission.documentId)
          : fileReferences(submission.evidence, claimed.template?.fields ?? []);
        files = await attachedFiles(db, this.#files, submission, references);
        response = await this.#documents.responseFor({
          ...withPayments,
          files,
          limits: adapter.evidenceLimits,
        });
        const decided = await decideCompellingEvidence(db, withPayments);
        const { visaComplianceFee } = claimed;
        outcome = await callProcessor(
          adapter,
          { connection, visaComplianceFee },
          decided,
          response,
          files,
          log,
        );
      }
    } catch (thrown) {
      // Rendering or storing the document failed: nothing was sent. Retried like an outage, and recorded
      // as the attempt's failure when the retries run out, so the dispute is never left compiling; a
      // document over the size limits fails at once, as retrying cannot shrink it.
      log.error({ err: describeError(thrown) }, 'the response document could not be prepared');
      outcome = isPermanent(thrown)
        ? { error: new ProcessorError(adapter.name, (thrown as Error).message, { retryable: false }) }
        : {
            error: new ProcessorError(
              adapter.name,
              'The response document could not be prepared; nothing was sent.',
              { retryable: true },
            ),
          };
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
    const finished = await this.#finishes.call({ claimed, outcome, attempt, response, files });
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
  { connection, visaComplianceFee }: Pick<SubmitEvidenceRequest, 'connection' | 'visaComplianceFee'>,
  { submission, dispute }: Claimed,
  response: ResponsePackage,
  files: AttachedFile[],
  log: Logger,
): Promise<Outcome> {
  try {
    const answer = await adapter.submitEvidence({
      connection,
      dispute: referenceOf(dispute),
      evidence: submission.evidence,
      response,
      files,
      idempotencyKey: submission.id,
      compellingEvidence: submission.compellingEvidence,
      visaComplianceFee,
    });
    if (answer.delivery === 'portal') {
      log.info("response package ready for the merchant to upload in the processor's portal");
    }
    return { reference: answer.reference };
  } catch (thrown) {
    return { error: adapterFailure(adapter.name, thrown, log) };
  }
}

/** What an adapter is told of the dispute it answers. */
function referenceOf(dispute: DisputeRow): DisputeReference {
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
  const evidence = claimed.submission.evidence;
  if (!adapter.pastPayments || claimed.submission.documentId || evidence.pastPayments.length > 0) {
    return claimed;
  }
  let found: PastPayment[];
  try {
    found = await adapter.pastPayments({
      connection,
      dispute: referenceOf(claimed.dispute),
      limit: maxPastPayments,
      compellingEvidence: compellingEvidenceApplies(claimed.dispute),
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
 * This service's Visa CE 3.0 verdict on the evidence as it goes out (domain/compelling-evidence.ts),
 * kept on the attempt: the adapter sends the program's fields by it, and the statistics count it.
 */
async function decideCompellingEvidence(db: Db, claimed: Claimed): Promise<Claimed> {
  const { submission, dispute } = claimed;
  const compellingEvidence = compellingEvidenceOf({ ...dispute, ...submission.evidence });
  if (isDeepStrictEqual(compellingEvidence, submission.compellingEvidence)) return claimed;
  await db
    .update(submissions)
    .set({ compellingEvidence })
    .where(and(eq(submissions.id, submission.id), eq(submissions.status, 'pending')));
  return { ...claimed, submission: { ...submission, compellingEvidence } };
}

const sendable = new Set<string>(sendableStates);

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
