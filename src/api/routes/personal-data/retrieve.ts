import { personalDataRequestObject } from '../../../domain/personal-data.js';
import { retrievePersonalData } from '../../../features/personal-data/retrieval.js';
import { defineEndpoint } from '../../endpoint.js';
import { retrieveInput } from '../../inputs/personal-data.js';

/**
 * Everything held about a person, exported sealed for the operator to send to `notification_email`
 * (`npm run cli -- privacy export`). 200, as the original interface answered.
 */
export const retrievePersonalDataEndpoint = defineEndpoint({
  method: 'post',
  path: '/personal-data/retrieve',
  input: { body: retrieveInput },
  budget: 'personalData',
  docs: {
    operationId: 'retrievePersonalData',
    summary: 'Export everything held about a person',
    success: { 200: 'Recorded.' },
    returns: 'personalDataRequest',
    errors: [],
  },
  async handle({ caller, input, url, deps }) {
    const request = await retrievePersonalData(deps, caller, input);
    return { status: 200, body: personalDataRequestObject(request, url) };
  },
});
