import { personalDataRequestObject } from '../../../domain/personal-data.js';
import { requestRemoval } from '../../../features/personal-data/removal.js';
import { defineEndpoint } from '../../endpoint.js';
import { removeInput } from '../../inputs/personal-data.js';

/**
 * Records the removal of a person from everything held in the key's organisation and mode, and answers
 * at once with 200, as the original did ("submitted"): a job carries it out, once none of the person's
 * data is on its way to a processor (features/personal-data/removal.ts, carryOutRemoval).
 */
export const removePersonalDataEndpoint = defineEndpoint({
  method: 'post',
  path: '/personal-data/remove',
  input: { body: removeInput },
  budget: 'personalData',
  docs: {
    operationId: 'removePersonalData',
    summary: 'Redact a person everywhere, by a job',
    success: { 200: 'Recorded; a job carries it out.' },
    returns: 'personalDataRequest',
    errors: [],
  },
  async handle({ caller, input, url, deps }) {
    const request = await requestRemoval(deps, caller, input);
    return { status: 200, body: personalDataRequestObject(request, url) };
  },
});
