import { createEndpointInput } from '../../../domain/webhooks.js';
import { createEndpoint } from '../../../services/webhooks/endpoints.js';
import { type Endpoint, parseInput } from '../../endpoint.js';
import { webhookEndpointObject } from '../../serialize.js';

/** The one answer that carries the signing secret. */
export const createWebhookEndpointEndpoint: Endpoint = {
  method: 'post',
  path: '/webhook_endpoints',
  async handle({ caller, input, url, deps }) {
    const parsed = parseInput(createEndpointInput(deps.allowPrivateWebhooks), input);
    const { endpoint, secret } = await createEndpoint(deps, caller, parsed);
    return { status: 201, body: webhookEndpointObject(endpoint, url, secret) };
  },
};
