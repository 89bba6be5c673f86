import { submitInput } from '../../../domain/dispute-input.js';
import { evidenceErrors } from '../../../domain/errors.js';
import { renameLegacyParameters } from '../../../domain/versions.js';
import { submitDispute } from '../../../services/disputes.js';
import { type Endpoint, parseInput } from '../../endpoint.js';
import { disputeBody } from '../../serialize.js';
import { disputeId } from '../params.js';

export const submitDisputeEndpoint: Endpoint = {
  method: 'post',
  path: '/disputes/:id/submit',
  async handle(context) {
    const { caller, input, url, deps } = context;
    const params = parseInput(
      submitInput,
      renameLegacyParameters(caller.version, 'evidence', input),
      evidenceErrors,
    );
    const outcome = await submitDispute(deps, caller, disputeId(context), params);
    return { status: outcome.status, body: disputeBody(outcome, url) };
  },
};
