import { type DisputeState, decide } from '../../domain/states.js';
import { listSubmissionAttempts } from '../submissions/attempts.js';
import type { Caller } from '../tenancy.js';
import { type DisputeDeps, retrieveDispute, submitDispute } from './commands.js';
import type { DisputeOutcome } from './outcomes.js';

/**
 * Submits a dispute again after its last submission failed (`dispute resubmit` in the CLI): the failed
 * attempt's job runs again, as an operator's retry does, making a new attempt with the evidence the dispute
 * holds now. Refused, with the reason, where the state table refuses or holds a submit, and where the last
 * attempt did not fail (there is then nothing to resubmit: a first submission is the client's to make).
 * Answers the dispute as it then stands: its state tells whether the attempt went out.
 */
export async function resubmitDispute(
  deps: DisputeDeps,
  caller: Caller,
  id: string,
): Promise<Pick<DisputeOutcome, 'dispute' | 'template'>> {
  const { dispute } = await retrieveDispute(deps.db, caller, id);
  const state = dispute.state as DisputeState;
  const decision = decide(state, 'submit', { force: false, version: caller.version });
  if (decision.outcome === 'refuse') {
    throw new Error(`dispute '${id}' is ${state}: it cannot be submitted again (${decision.error})`);
  }
  if (decision.outcome !== 'proceed') {
    throw new Error(
      `dispute '${id}' is ${state}: a submit is held there; submit it through the API with force`,
    );
  }
  const last = (await listSubmissionAttempts(deps.db, dispute.uid)).at(-1);
  if (last?.status !== 'failed') {
    throw new Error(
      last
        ? `dispute '${id}': its last submission ${last.id} is ${last.status}, not failed; nothing to resubmit`
        : `dispute '${id}' has no submission to resubmit; submit it through the API`,
    );
  }
  // The operator's retry of Bull Board and `jobs retry`: one way to submit again, so a later retry of the
  // same failed job follows this one instead of making another attempt.
  if (await deps.submitter.retryFailed(last.id)) return retrieveDispute(deps.db, caller, id);
  // Its job is no longer kept, so nothing else can retry it: a submit as the API makes one. Its own
  // transaction checks the state again, and the template, fields and deadline.
  return submitDispute(deps, caller, id, { force: false, queue: false });
}
