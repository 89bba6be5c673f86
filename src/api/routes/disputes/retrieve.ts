import { retrieveDispute } from '../../../features/disputes/commands.js';
import { defineEndpoint } from '../../endpoint.js';
import { disputeIdParameter } from '../../inputs/params.js';
import { disputeBody } from '../../serialize.js';

export const retrieveDisputeEndpoint = defineEndpoint({
  method: 'get',
  path: '/disputes/:id',
  params: { id: disputeIdParameter },
  docs: {
    operationId: 'retrieveDispute',
    summary: 'Retrieve a dispute',
    success: { 200: 'The dispute.' },
    returns: 'dispute',
    errors: ['dispute_not_found'],
  },
  async handle({ caller, params, url, deps }) {
    const found = await retrieveDispute(deps.db, caller, params.id);
    return { status: 200, body: disputeBody(found, url) };
  },
});
