import { personalDataRequestObject, retrieveInput } from '../../../domain/personal-data.js';
import { retrievePersonalData } from '../../../services/personal-data.js';
import { type Endpoint, parseInput } from '../../endpoint.js';

/**
 * Everything held about a person, exported sealed for the operator to send to `notification_email`
 * (`npm run cli -- privacy export`). 200, as the original interface answered.
 */
export const retrievePersonalDataEndpoint: Endpoint = {
  method: 'post',
  path: '/personal-data/retrieve',
  async handle({ caller, input, url, deps }) {
    const request = await retrievePersonalData(deps, caller, parseInput(retrieveInput, input));
    return { status: 200, body: personalDataRequestObject(request, url) };
  },
};
