import { personalDataRequestObject, removeInput } from '../../../domain/personal-data.js';
import { removePersonalData } from '../../../services/personal-data.js';
import { type Endpoint, parseInput } from '../../endpoint.js';

/** Redacts a person from everything held in the key's organisation and mode. 200, as the original answered. */
export const removePersonalDataEndpoint: Endpoint = {
  method: 'post',
  path: '/personal-data/remove',
  async handle({ caller, input, url, deps }) {
    const request = await removePersonalData(deps, caller, parseInput(removeInput, input));
    return { status: 200, body: personalDataRequestObject(request, url) };
  },
};
