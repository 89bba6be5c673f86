import { evidenceErrors } from '../../../domain/errors.js';
import { submitDispute } from '../../../features/disputes/commands.js';
import { defineEndpoint } from '../../endpoint.js';
import { submitInput } from '../../inputs/disputes.js';
import { disputeIdParameter } from '../../inputs/params.js';
import { outcomeReply } from '../../outcome-status.js';
import { evidenceUpdate, stateAnswers, submitAnswers, templateAnswer } from './docs.js';

export const submitDisputeEndpoint = defineEndpoint({
  method: 'post',
  path: '/disputes/:id/submit',
  params: { id: disputeIdParameter },
  input: { body: submitInput, errorTypes: evidenceErrors, legacyParameters: 'evidence', beforeParams: true },
  docs: {
    operationId: 'submitDispute',
    summary: 'Submit the evidence, or queue it (`queue=true`)',
    description: evidenceUpdate,
    success: {
      200: 'With `queue=true`: queued.',
      201: 'Submitted.',
      202: 'Held by a rule or the state, or the processor call still under way.',
    },
    returns: 'dispute',
    errors: ['dispute_not_found', templateAnswer, ...stateAnswers, ...submitAnswers],
  },
  async handle({ caller, params, input, url, deps }) {
    const outcome = await submitDispute(deps, caller, params.id, input);
    return outcomeReply(outcome, url);
  },
});
