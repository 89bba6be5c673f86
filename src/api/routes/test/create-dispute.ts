import { generateTestDispute } from '../../../features/disputes/test-mode.js';
import { defineEndpoint } from '../../endpoint.js';
import { testDisputeInput } from '../../inputs/disputes.js';
import { outcomeReply } from '../../outcome-status.js';

/** Test mode only: a realistic random dispute from the mock processor (docs/api.md, "Endpoints"). */
export const createTestDisputeEndpoint = defineEndpoint({
  method: 'post',
  path: '/test/disputes',
  input: { body: testDisputeInput },
  budget: 'testDisputes',
  docs: {
    operationId: 'createTestDispute',
    summary: 'Test keys only: a realistic random dispute from the mock processor',
    success: { 201: 'Created.' },
    returns: 'dispute',
    errors: [],
  },
  async handle({ caller, input, url, deps }) {
    const outcome = await generateTestDispute(deps.db, caller, input);
    return outcomeReply(outcome, url);
  },
});
