import type { ProcessorError } from '../../processors/types.js';

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
