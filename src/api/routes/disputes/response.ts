import { referenceNames } from '../../../domain/versions.js';
import { retrieveResponse } from '../../../features/responses/retrieve.js';
import { defineEndpoint } from '../../endpoint.js';
import { disputeIdParameter } from '../../inputs/params.js';

/**
 * GET /v1/disputes/:id/response: the evidence sent, a signed, expiring `response_url` to its PDF, and its
 * evidence files, each with a signed link of its own (routes/files/download.ts). The
 * references carry the names of the caller's version (`dispute_id`, `external_charge`, `user_id` as well
 * before 2017-10-30).
 */
export const disputeResponseEndpoint = defineEndpoint({
  method: 'get',
  path: '/disputes/:id/response',
  params: { id: disputeIdParameter },
  docs: {
    operationId: 'retrieveDisputeResponse',
    summary: "The latest submission's evidence, a signed link to its PDF, and its files with signed links",
    success: { 200: 'The response package.' },
    returns: 'response',
    errors: ['dispute_not_found', 'response_not_found'],
  },
  async handle({ caller, params, url, deps }) {
    const response = await retrieveResponse(deps.db, caller, params.id);
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
        response_url: deps.links.url(response.documentId),
        files: response.files.map((file) => ({ ...file, url: deps.links.fileUrl(file.file) })),
        livemode: dispute.livemode,
        url,
      },
    };
  },
});
