import { acceptDispute } from '../../../features/disputes/commands.js';
import { defineEndpoint } from '../../endpoint.js';
import { disputeIdParameter } from '../../inputs/params.js';
import { outcomeReply } from '../../outcome-status.js';
import { stateAnswers } from './docs.js';

export const acceptDisputeEndpoint = defineEndpoint({
  method: 'post',
  path: '/disputes/:id/accept',
  params: { id: disputeIdParameter },
  docs: {
    operationId: 'acceptDispute',
    summary: 'Accept a dispute (bookkeeping: nothing is sent to the processor)',
    success: { 200: 'Accepted.' },
    returns: 'dispute',
    errors: ['dispute_not_found', ...stateAnswers],
  },
  async handle({ caller, params, url, deps }) {
    const outcome = await acceptDispute(deps, caller, params.id);
    return outcomeReply(outcome, url);
  },
});
