import { retrieveDispute } from '../../../services/disputes.js';
import type { Endpoint } from '../../endpoint.js';
import { disputeBody } from '../../serialize.js';
import { disputeId } from '../params.js';

export const retrieveDisputeEndpoint: Endpoint = {
  method: 'get',
  path: '/disputes/:id',
  async handle(context) {
    const found = await retrieveDispute(context.deps.db, context.caller, disputeId(context));
    return { status: 200, body: disputeBody(found, context.url) };
  },
};
