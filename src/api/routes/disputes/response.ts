import { retrieveResponse } from '../../../services/disputes.js';
import type { Endpoint } from '../../endpoint.js';
import { disputeId } from '../params.js';

export const disputeResponseEndpoint: Endpoint = {
  method: 'get',
  path: '/disputes/:id/response',
  handle: (context) => retrieveResponse(context.deps.db, context.caller, disputeId(context)),
};
