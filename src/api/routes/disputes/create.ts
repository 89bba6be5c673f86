import { evidenceErrors } from '../../../domain/errors.js';
import { createDispute } from '../../../features/disputes/create.js';
import { defineEndpoint } from '../../endpoint.js';
import { createInput } from '../../inputs/disputes.js';
import { outcomeReply } from '../../outcome-status.js';
import { submitAnswers, templateAnswer } from './docs.js';

export const createDisputeEndpoint = defineEndpoint({
  method: 'post',
  path: '/disputes',
  input: { body: createInput, errorTypes: evidenceErrors, legacyParameters: 'create' },
  docs: {
    operationId: 'createDispute',
    summary: 'Create a standalone dispute (`source: api`)',
    success: {
      201: 'Created (submitted or queued when asked, unless a rule holds it).',
      202: 'Created with `submit=true`; the processor call is still under way.',
    },
    returns: 'dispute',
    errors: [templateAnswer, ...submitAnswers],
  },
  async handle({ caller, input, url, deps }) {
    const outcome = await createDispute(deps, caller, input);
    return outcomeReply(outcome, url);
  },
});
