import { updateInput } from '../../../domain/dispute-input.js';
import { evidenceErrors } from '../../../domain/errors.js';
import { renameLegacyParameters } from '../../../domain/versions.js';
import { updateDispute } from '../../../services/disputes.js';
import { type Endpoint, parseInput, type RequestContext } from '../../endpoint.js';
import { disputeBody } from '../../serialize.js';
import { disputeId } from '../params.js';

async function handle(context: RequestContext) {
  const { caller, input, url, deps } = context;
  const params = parseInput(
    updateInput,
    renameLegacyParameters(caller.version, 'evidence', input),
    evidenceErrors,
  );
  const outcome = await updateDispute(deps, caller, disputeId(context), params);
  return { status: outcome.status, body: disputeBody(outcome, url) };
}

export const updateDisputeEndpoint: Endpoint = { method: 'put', path: '/disputes/:id', handle };

/** Some of the original interface's client libraries send updates as POST. */
export const updateDisputeByPostEndpoint: Endpoint = { method: 'post', path: '/disputes/:id', handle };
