import { submitInput } from '../domain/dispute-input.js';
import { type DisputeState, decide } from '../domain/states.js';
import {
  type Caller,
  type DisputeDeps,
  type DisputeOutcome,
  retrieveDispute,
  submitDispute,
} from './disputes.js';
import { listSubmissionAttempts } from './submission-attempts.js';

/**
 * Submits a dispute again after its last submission failed (`dispute resubmit` in the CLI): the submit of
 * the API, with the evidence the dispute holds now, as a new attempt with its own job. Refused, with the
 * reason, where the state table refuses or holds a submit, and where the last attempt did not fail (there
 * is then nothing to resubmit: a first submission is the client's to make).
 */
export async function resubmitDispute(
  deps: DisputeDeps,
  caller: Caller,
  id: string,
): Promise<DisputeOutcome> {
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
  // Submit's own transaction checks the state again, and the template, fields and deadline.
  return submitDispute(deps, caller, id, submitInput.parse({}));
}
