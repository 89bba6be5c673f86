import { testDisputeInput } from '../../../domain/dispute-input.js';
import { generateTestDispute } from '../../../services/test-disputes.js';
import { type Endpoint, parseInput } from '../../endpoint.js';
import { disputeBody } from '../../serialize.js';

/** Test mode only: a realistic random dispute from the mock processor (API.md section 4). */
export const createTestDisputeEndpoint: Endpoint = {
  method: 'post',
  path: '/test/disputes',
  async handle({ caller, input, url, deps }) {
    const outcome = await generateTestDispute(deps.db, caller, parseInput(testDisputeInput, input));
    return { status: outcome.status, body: disputeBody(outcome, url) };
  },
};
