import { createInput } from '../../../domain/dispute-input.js';
import { evidenceErrors } from '../../../domain/errors.js';
import { renameLegacyParameters } from '../../../domain/versions.js';
import { createDispute } from '../../../services/disputes.js';
import { type Endpoint, parseInput } from '../../endpoint.js';
import { disputeBody } from '../../serialize.js';

export const createDisputeEndpoint: Endpoint = {
  method: 'post',
  path: '/disputes',
  async handle({ caller, input, url, deps }) {
    const params = parseInput(
      createInput,
      renameLegacyParameters(caller.version, 'create', input),
      evidenceErrors,
    );
    const outcome = await createDispute(deps, caller, params);
    return { status: outcome.status, body: disputeBody(outcome, url) };
  },
};
