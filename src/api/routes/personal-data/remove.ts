import { personalDataRequestObject, removeInput } from '../../../domain/personal-data.js';
import { requestRemoval } from '../../../services/personal-data-removal.js';
import { type Endpoint, parseInput } from '../../endpoint.js';

/**
 * Records the removal of a person from everything held in the key's organisation and mode, and answers
 * at once with 200, as the original did ("submitted"): a job carries it out, once none of the person's
 * data is on its way to a processor (services/personal-data-removal.ts, carryOutRemoval).
 */
export const removePersonalDataEndpoint: Endpoint = {
  method: 'post',
  path: '/personal-data/remove',
  async handle({ caller, input, url, deps }) {
    const request = await requestRemoval(deps, caller, parseInput(removeInput, input));
    return { status: 200, body: personalDataRequestObject(request, url) };
  },
};
