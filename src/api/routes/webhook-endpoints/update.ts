import { updateEndpoint } from '../../../features/webhooks/endpoints.js';
import { webhookEndpointObject } from '../../../features/webhooks/objects.js';
import { defineEndpoint } from '../../endpoint.js';
import { webhookEndpointIdParameter } from '../../inputs/params.js';
import { updateEndpointInput } from '../../inputs/webhook-endpoints.js';

export const updateWebhookEndpointEndpoint = defineEndpoint({
  method: 'put',
  path: '/webhook_endpoints/:id',
  params: { id: webhookEndpointIdParameter },
  // WEBHOOK_ALLOW_PRIVATE takes plain http URLs too.
  input: { body: (settings) => updateEndpointInput(settings.allowPrivateWebhooks) },
  docs: {
    operationId: 'updateWebhookEndpoint',
    summary: 'Update a webhook endpoint',
    success: { 200: 'Updated.' },
    returns: 'webhookEndpoint',
    errors: ['webhook_endpoint_not_found'],
  },
  async handle({ caller, params, input, url, deps }) {
    const endpoint = await updateEndpoint(deps.db, caller, params.id, input);
    return { status: 200, body: webhookEndpointObject(endpoint, url) };
  },
});
