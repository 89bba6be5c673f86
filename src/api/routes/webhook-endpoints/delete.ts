import { deleteEndpoint } from '../../../features/webhooks/endpoints.js';
import { deletedWebhookEndpointObject } from '../../../features/webhooks/objects.js';
import { defineEndpoint } from '../../endpoint.js';
import { webhookEndpointIdParameter } from '../../inputs/params.js';

export const deleteWebhookEndpointEndpoint = defineEndpoint({
  method: 'delete',
  path: '/webhook_endpoints/:id',
  params: { id: webhookEndpointIdParameter },
  docs: {
    operationId: 'deleteWebhookEndpoint',
    summary: 'Delete a webhook endpoint and its deliveries (its events stay in the log)',
    success: { 200: 'Deleted.' },
    returns: 'deletedWebhookEndpoint',
    errors: ['webhook_endpoint_not_found'],
  },
  async handle({ caller, params, url, deps }) {
    const endpoint = await deleteEndpoint(deps.db, caller, params.id);
    return { status: 200, body: deletedWebhookEndpointObject(endpoint, url) };
  },
});
