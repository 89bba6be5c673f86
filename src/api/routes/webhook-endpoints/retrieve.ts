import { retrieveEndpoint } from '../../../features/webhooks/endpoints.js';
import { webhookEndpointObject } from '../../../features/webhooks/objects.js';
import { defineEndpoint } from '../../endpoint.js';
import { webhookEndpointIdParameter } from '../../inputs/params.js';

export const retrieveWebhookEndpointEndpoint = defineEndpoint({
  method: 'get',
  path: '/webhook_endpoints/:id',
  params: { id: webhookEndpointIdParameter },
  docs: {
    operationId: 'retrieveWebhookEndpoint',
    summary: 'Retrieve a webhook endpoint',
    success: { 200: 'The webhook endpoint.' },
    returns: 'webhookEndpoint',
    errors: ['webhook_endpoint_not_found'],
  },
  async handle({ caller, params, url, deps }) {
    const endpoint = await retrieveEndpoint(deps.db, caller, params.id);
    return { status: 200, body: webhookEndpointObject(endpoint, url) };
  },
});
