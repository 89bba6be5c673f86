import { referenceNames } from '../../../domain/versions.js';
import { retrieveResponse } from '../../../services/responses.js';
import type { Endpoint } from '../../endpoint.js';
import { disputeId } from '../params.js';

/**
 * GET /v1/disputes/:id/response: the evidence sent and a signed, expiring `response_url` to its PDF. The
 * references carry the names of the caller's version (`dispute_id`, `external_charge`, `user_id` before
 * 2017-10-30).
 */
export const disputeResponseEndpoint: Endpoint = {
  method: 'get',
  path: '/disputes/:id/response',
  async handle(context) {
    const { caller, deps } = context;
    const response = await retrieveResponse(deps.db, caller, disputeId(context));
    const { dispute } = response;
    return {
      status: 200,
      body: {
        object: 'response',
        ...referenceNames(caller.version, {
          dispute: dispute.id,
          charge: dispute.charge,
          account_id: dispute.accountId,
        }),
        evidence: response.evidence,
        response_url: deps.links.url(response.documentId, { requestOrigin: context.origin }),
        livemode: dispute.livemode,
        url: context.url,
      },
    };
  },
};
