import { ApiError } from '../../../domain/errors.js';
import { retrieveDispute } from '../../../services/disputes.js';
import type { Endpoint } from '../../endpoint.js';
import { disputeId } from '../params.js';

/**
 * The generated response package. Responses are rendered by the evidence-documents stage; until then
 * every existing dispute answers response_not_found (and an unknown one dispute_not_found).
 */
export const disputeResponseEndpoint: Endpoint = {
  method: 'get',
  path: '/disputes/:id/response',
  async handle(context) {
    const id = disputeId(context);
    await retrieveDispute(context.deps.db, context.caller, id);
    throw new ApiError('response_not_found', `No response has been generated for dispute '${id}' yet.`);
  },
};
