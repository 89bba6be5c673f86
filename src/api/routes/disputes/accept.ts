import { acceptDispute } from '../../../services/disputes.js';
import type { Endpoint } from '../../endpoint.js';
import { disputeBody } from '../../serialize.js';
import { disputeId } from '../params.js';

export const acceptDisputeEndpoint: Endpoint = {
  method: 'post',
  path: '/disputes/:id/accept',
  async handle(context) {
    const outcome = await acceptDispute(context.deps, context.caller, disputeId(context));
    return { status: outcome.status, body: disputeBody(outcome, context.url) };
  },
};
