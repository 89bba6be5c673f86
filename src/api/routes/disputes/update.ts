import { evidenceErrors } from '../../../domain/errors.js';
import { updateDispute } from '../../../features/disputes/commands.js';
import { defineEndpoint, type Endpoint, type EndpointDocs } from '../../endpoint.js';
import { updateInput } from '../../inputs/disputes.js';
import { disputeIdParameter } from '../../inputs/params.js';
import { outcomeReply } from '../../outcome-status.js';
import { evidenceUpdate, stateAnswers, submitAnswers, templateAnswer } from './docs.js';

const update = {
  path: '/disputes/:id',
  params: { id: disputeIdParameter },
  input: { body: updateInput, errorTypes: evidenceErrors, legacyParameters: 'evidence', beforeParams: true },
  async handle({ caller, params, input, url, deps }) {
    const outcome = await updateDispute(deps, caller, params.id, input);
    return outcomeReply(outcome, url);
  },
} satisfies Omit<Endpoint<'id', typeof updateInput>, 'method' | 'docs'>;

const docs = {
  description: evidenceUpdate,
  success: {
    200: 'Updated (with `queue=true`: queued).',
    201: 'With `submit=true`: submitted.',
    202: 'With `submit=true`: held by a rule or the state, or the processor call still under way.',
  },
  returns: 'dispute',
  errors: ['dispute_not_found', templateAnswer, ...stateAnswers, ...submitAnswers],
} satisfies Omit<EndpointDocs, 'operationId' | 'summary'>;

export const updateDisputeEndpoint = defineEndpoint({
  ...update,
  method: 'put',
  docs: { operationId: 'updateDispute', summary: 'Update a dispute', ...docs },
});

/** Some of the original interface's client libraries send updates as POST. */
export const updateDisputeByPostEndpoint = defineEndpoint({
  ...update,
  method: 'post',
  docs: {
    operationId: 'updateDisputeByPost',
    summary: 'Update a dispute (POST, as some client libraries send it)',
    ...docs,
  },
});
